// The server's settings, as `initializationOptions` and `workspace/didChangeConfiguration`
// send them.
#pragma once

#include <string>
#include <vector>

#include "lsp/protocol/types.h"

namespace denpex::lsp {

struct Settings {
  std::vector<std::string> ruleDirs;  // extra rule folders, after the workspace's .denpex/rules
  bool autoDiagnose = true;           // diagnose log documents as they open and change
  std::string logLevel;               // trace, debug, info, warn, error, off; empty: as started
  // A probe file (`denpex probe --output FILE`, made on the machine the jobs run on) that
  // training scripts are also checked against; relative to the first workspace folder. Empty:
  // none. The server never probes a machine itself.
  std::string probe;
  // The client vouches that the user trusts the workspace (VS Code's workspace trust). Only then
  // are the workspace's .denpex/rules and the `rules` folders loaded: rules are code. Read from
  // initializationOptions only, never from didChangeConfiguration, whose settings a workspace
  // can write (.vscode/settings.json).
  bool trustedWorkspace = false;

  // Reads {"rules": [...], "autoDiagnose": bool, "logLevel": "...", "probe": "..."} (unknown keys ignored),
  // starting from `base`; `trustedWorkspace` only when `initialization`. Throws
  // LspError(InvalidParams) on wrong types.
  static Settings merge(Settings base, const json& j, bool initialization = false);
};

}  // namespace denpex::lsp
