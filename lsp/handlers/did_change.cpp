// textDocument/didChange: incremental or full changes; a log is diagnosed again (from where the
// last diagnosis left off when it only grew).
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

void didChange(Server& server, json& params) {
  const json& doc = member(params, "textDocument");
  std::string uri = stringMember(doc, "uri");
  server.documents().change(uri, doc.value("version", 0), member(params, "contentChanges"), server.encoding());
  auto view = server.documents().view(uri);
  if (view && view->isLog && server.settings().autoDiagnose) server.scheduleDiagnosis(uri);
  else if (view && isCheckedDocument(view->path, view->languageId, view->text->view()) && server.settings().autoDiagnose) server.checkSource(uri);
}

}  // namespace denpex::lsp::handlers
