// textDocument/didSave: didChange already carried the text; a saved file may be a new one, so
// the workspace's file listing (for finding the file a frame names) is made afresh.
#include "lsp/handlers/handlers.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

void didSave(Server& server, json&) { server.invalidateListing(); }

}  // namespace denpex::lsp::handlers
