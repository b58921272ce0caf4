// codeAction/resolve: every action is complete when sent; resolving one returns it unchanged.
#include "lsp/handlers/handlers.h"

namespace denpex::lsp::handlers {

json codeActionResolve(Server&, const json& params) { return params; }

}  // namespace denpex::lsp::handlers
