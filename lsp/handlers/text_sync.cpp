// textDocument/didOpen, didChange, didClose: the document store; diagnosis follows changes.
#include "lsp/server.h"

namespace denpex::lsp {

void registerTextSync(Server& server) {
  server.onNotification("textDocument/didOpen", [&server](const json& params) {
    const json& doc = member(params, "textDocument");
    server.openDocument(member(doc, "uri").get<std::string>(), doc.value("languageId", ""), doc.value("version", 0),
                        member(doc, "text").get<std::string>());
  });
  server.onNotification("textDocument/didChange", [&server](const json& params) {
    const json& doc = member(params, "textDocument");
    server.changeDocument(member(doc, "uri").get<std::string>(), doc.value("version", 0), member(params, "contentChanges"));
  });
  server.onNotification("textDocument/didClose", [&server](const json& params) {
    server.closeDocument(member(member(params, "textDocument"), "uri").get<std::string>());
  });
  server.onNotification("textDocument/didSave", [](const json&) {});
}

}  // namespace denpex::lsp
