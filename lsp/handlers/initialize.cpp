// initialize: the client's capabilities and workspace in, the server's capabilities out.
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/to_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

json initialize(Server& server, const json& params) {
  server.initialize(params);
  return initializeResult(server.encoding(), kCommands);
}

}  // namespace denpex::lsp::handlers
