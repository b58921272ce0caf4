// textDocument/hover: the encyclopedia entry of the findings on the hovered line.
#include "core/render/report.h"
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/protocol/to_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

json hover(Server& server, const json& params) {
  std::string uri = documentUri(params);
  core::TextPosition pos = positionFromJson(member(params, "position"));
  auto doc = server.documents().view(uri);
  if (!doc) return nullptr;
  auto refs = findingsOnLines(*doc, pos.line, pos.line);
  if (refs.empty()) return nullptr;
  std::string markdown;
  for (const auto& ref : refs) {
    const core::Diagnosis& d = *ref.owner;
    if (!markdown.empty()) markdown += "\n---\n\n";
    markdown += core::hoverMarkdown(d, ref.index);
    if (!d.incident.empty() && (d.initiating(ref.index) || d.role(ref.index) == core::Role::kCollateral))
      markdown += "\n**Ranks**\n\n" + core::rankTableMarkdown(d.incident);
  }
  auto indexed = server.documents().lineIndex(doc->uri, doc->text);
  std::string_view line = indexed->index.lineText(pos.line);
  uint32_t end = server.encoding() == core::PositionEncoding::kUtf16 ? core::utf16Column(line, line.size())
                                                                     : static_cast<uint32_t>(line.size());
  return toHover(markdown, toRange({pos.line, 0}, {pos.line, end}));
}

}  // namespace denpex::lsp::handlers
