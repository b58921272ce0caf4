// initialized: nothing to do; the server is ready once it answered initialize.
#include "lsp/handlers/handlers.h"

namespace denpex::lsp::handlers {

void initialized(Server&, json&) {}

}  // namespace denpex::lsp::handlers
