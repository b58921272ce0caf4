// textDocument/didSave: nothing to do; didChange already carried the text.
#include "lsp/handlers/handlers.h"

namespace denpex::lsp::handlers {

void didSave(Server&, const json&) {}

}  // namespace denpex::lsp::handlers
