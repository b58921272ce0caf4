// Every LSP method the server answers, one handler per method, one file per handler
// (handlers/<method>.cpp). The routing table that binds method names to them is
// server/routes.cpp. Handlers run on the server's main thread; they read params through
// protocol/from_proto.h, build results through protocol/to_proto.h, and answer errors by
// throwing LspError.
#pragma once

#include <string>
#include <vector>

#include "lsp/protocol/types.h"

namespace denpex::lsp {

class Server;

namespace handlers {

// Lifecycle.
json initialize(Server& server, const json& params);
void initialized(Server& server, json& params);
json shutdown(Server& server, const json& params);
void didChangeConfiguration(Server& server, json& params);
void didChangeWatchedFiles(Server& server, json& params);
void didChangeWorkspaceFolders(Server& server, json& params);

// Text synchronisation.
void didOpen(Server& server, json& params);
void didChange(Server& server, json& params);
void didClose(Server& server, json& params);
void didSave(Server& server, json& params);

// Features.
json hover(Server& server, const json& params);
json codeAction(Server& server, const json& params);
json codeActionResolve(Server& server, const json& params);
json executeCommand(Server& server, const json& params);
json documentLink(Server& server, const json& params);
json codeLens(Server& server, const json& params);

// The commands workspace/executeCommand runs (also listed in the initialize result).
extern const std::vector<std::string> kCommands;

}  // namespace handlers
}  // namespace denpex::lsp
