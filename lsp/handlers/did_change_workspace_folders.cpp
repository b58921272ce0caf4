// workspace/didChangeWorkspaceFolders: folders added to the workspace later are honoured (their
// sources for fixes, their .denpex/rules when the workspace is trusted).
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/uri.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

void didChangeWorkspaceFolders(Server& server, json& params) {
  std::vector<std::string> added, removed;
  const json event = params.is_object() ? params.value("event", json::object()) : json::object();
  auto read = [&](const char* key, std::vector<std::string>& out) {
    if (!event.contains(key) || !event[key].is_array()) return;
    for (const auto& f : event[key])
      if (f.is_object() && f.contains("uri") && f["uri"].is_string()) {
        std::string p = uriToPath(f["uri"].get<std::string>());
        if (!p.empty()) out.push_back(p);
      }
  };
  read("added", added);
  read("removed", removed);
  server.changeWorkspaceFolders(added, removed);
}

}  // namespace denpex::lsp::handlers
