// initialized: the client is ready for notifications; tell it which rule folders are in use.
#include "lsp/handlers/handlers.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

void initialized(Server& server, json&) { server.announceRules(); }

}  // namespace denpex::lsp::handlers
