// initialized: the client is ready for notifications; tell it which rule folders are in use, and
// ask it to watch rule files (when it can) so that edits to them take effect without a restart.
#include "lsp/handlers/handlers.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

void initialized(Server& server, json&) {
  server.announceRules();
  if (server.clientSupports({"workspace", "didChangeWatchedFiles", "dynamicRegistration"})) {
    json watchers = json::array({{{"globPattern", "**/.denpex/rules/**/*.{yaml,yml}"}}});
    for (const auto& dir : server.settings().ruleDirs) watchers.push_back({{"globPattern", dir + "/**/*.{yaml,yml}"}});
    server.request("client/registerCapability",
                   {{"registrations", json::array({{{"id", "denpex-rule-files"},
                                                    {"method", "workspace/didChangeWatchedFiles"},
                                                    {"registerOptions", {{"watchers", watchers}}}}})}});
  }
}

}  // namespace denpex::lsp::handlers
