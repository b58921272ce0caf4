// The routing table: every method the server answers, in one place (clangd's bindMethods).
// `exit` is the dispatcher's own (it must work before `initialize` and after `shutdown`);
// `$/cancelRequest` is the reader thread's (it must overtake the queue).
#include "lsp/handlers/handlers.h"
#include "lsp/server/server.h"

namespace denpex::lsp {

Routes bindMethods() {
  Routes r;
  // Lifecycle.
  r.requests["initialize"] = handlers::initialize;
  r.notifications["initialized"] = handlers::initialized;
  r.requests["shutdown"] = handlers::shutdown;
  r.notifications["workspace/didChangeConfiguration"] = handlers::didChangeConfiguration;
  r.notifications["workspace/didChangeWatchedFiles"] = handlers::didChangeWatchedFiles;
  r.notifications["workspace/didChangeWorkspaceFolders"] = handlers::didChangeWorkspaceFolders;
  // Text synchronisation.
  r.notifications["textDocument/didOpen"] = handlers::didOpen;
  r.notifications["textDocument/didChange"] = handlers::didChange;
  r.notifications["textDocument/didClose"] = handlers::didClose;
  r.notifications["textDocument/didSave"] = handlers::didSave;
  // Features.
  r.requests["textDocument/hover"] = handlers::hover;
  r.requests["textDocument/codeAction"] = handlers::codeAction;
  r.requests["codeAction/resolve"] = handlers::codeActionResolve;
  r.requests["workspace/executeCommand"] = handlers::executeCommand;
  r.requests["textDocument/documentLink"] = handlers::documentLink;
  r.requests["textDocument/codeLens"] = handlers::codeLens;
  return r;
}

}  // namespace denpex::lsp
