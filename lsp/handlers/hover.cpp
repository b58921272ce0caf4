// textDocument/hover: the encyclopedia entry of the findings on the hovered line.
#include "core/report.h"
#include "lsp/findings.h"

namespace denpex::lsp {

void registerHover(Server& server) {
  server.onRequest("textDocument/hover", [&server](const json& params) -> json {
    std::string uri = member(member(params, "textDocument"), "uri").get<std::string>();
    core::TextPosition pos = positionFromJson(member(params, "position"));
    auto doc = server.document(uri);
    if (!doc) return nullptr;
    auto refs = findingsOnLines(*doc, pos.line, pos.line);
    if (refs.empty()) return nullptr;
    std::string markdown;
    for (const auto& ref : refs) {
      if (!markdown.empty()) markdown += "\n---\n\n";
      markdown += core::hoverMarkdown(*ref.finding);
      if (!ref.owner->incident.empty() && (ref.finding->initiating || ref.finding->role() == core::Role::kCollateral))
        markdown += "\n**Ranks**\n\n" + core::rankTableMarkdown(ref.owner->incident);
    }
    core::LineIndex index(*doc->text);
    size_t lineLength = index.lineText(pos.line).size();
    uint32_t end = server.encoding() == core::PositionEncoding::kUtf16
                       ? core::utf16Column(index.lineText(pos.line), lineLength)
                       : static_cast<uint32_t>(lineLength);
    return json{{"contents", {{"kind", "markdown"}, {"value", markdown}}},
                {"range", {{"start", toJson({pos.line, 0})}, {"end", toJson({pos.line, end})}}}};
  });
}

}  // namespace denpex::lsp
