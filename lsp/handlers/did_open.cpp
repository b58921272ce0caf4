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
  std::string text = takeStringMember(doc, "text");
  // A big log may have been diagnosed in part while this message arrived (early_diagnosis.h).
  std::optional<EarlyDiagnosis::Fed> early = server.takeEarlyDiagnosis(text);
  server.documents().open(uri, languageId, version, std::move(text));
  auto view = server.documents().view(uri);
  if (view && view->isLog && server.settings().autoDiagnose) {
    if (early) server.scheduleDiagnosis(uri, std::move(*early), view->text);
    else server.scheduleDiagnosis(uri);
  }
  else if (view && isCheckedDocument(view->path, view->languageId, view->text->view()) && server.settings().autoDiagnose) server.checkSource(uri);
}

}  // namespace denpex::lsp::handlers
