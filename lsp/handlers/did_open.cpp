// textDocument/didOpen: the document joins the store; a log is diagnosed in the background, a
// training script checked for the failures its source foretells.
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

void didOpen(Server& server, json& params) {
  member(params, "textDocument");
  json& doc = params["textDocument"];
  std::string uri = stringMember(doc, "uri");
  std::string languageId = doc.value("languageId", "");
  int version = doc.value("version", 0);
  server.documents().open(uri, languageId, version, takeStringMember(doc, "text"));
  auto view = server.documents().view(uri);
  if (view && view->isLog && server.settings().autoDiagnose) server.scheduleDiagnosis(uri);
  else if (view && isCheckedDocument(view->path, view->languageId, view->text->view()) && server.settings().autoDiagnose) server.checkSource(uri);
}

}  // namespace denpex::lsp::handlers
