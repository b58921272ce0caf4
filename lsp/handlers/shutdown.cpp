// shutdown: later requests are refused; the exit code after `exit` becomes 0.
#include "lsp/handlers/handlers.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

json shutdown(Server& server, const json&) {
  server.markShutdown();
  return nullptr;
}

}  // namespace denpex::lsp::handlers
