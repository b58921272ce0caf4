// textDocument/didClose: the document leaves the store and its diagnostics are cleared.
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

void didClose(Server& server, json& params) {
  std::string uri = documentUri(params);
  server.documents().close(uri);
  server.publishDiagnostics(uri, std::nullopt, json::array());
}

}  // namespace denpex::lsp::handlers
