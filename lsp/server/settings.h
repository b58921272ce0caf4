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

  // Reads {"rules": [...], "autoDiagnose": bool, "logLevel": "..."} (unknown keys ignored),
  // starting from `base`. Throws LspError(InvalidParams) on wrong types.
  static Settings merge(Settings base, const json& j);
};

}  // namespace denpex::lsp
