// workspace/didChangeWatchedFiles: rule files created, changed or deleted on disk take effect
// without a restart.
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/uri.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

void didChangeWatchedFiles(Server& server, json& params) {
  std::vector<std::string> paths;
  if (params.is_object() && params.contains("changes") && params["changes"].is_array())
    for (const auto& c : params["changes"])
      if (c.is_object() && c.contains("uri") && c["uri"].is_string()) paths.push_back(uriToPath(c["uri"].get<std::string>()));
  server.rulesChangedOnDisk(paths);
}

}  // namespace denpex::lsp::handlers
