// textDocument/codeLens: the verdict above the first line of each root-cause finding.
#include <algorithm>

#include "core/render/report.h"
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/protocol/to_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

json codeLens(Server& server, const json& params) {
  auto doc = server.documents().view(documentUri(params));
  json lenses = json::array();
  if (!doc) return lenses;
  for (const auto& ref : allFindings(*doc)) {
    const core::Finding& f = ref.finding();
    if (f.rule->role != core::Role::kRoot) continue;
    uint64_t first = f.evidence.front().line;
    for (const auto& e : f.evidence) first = std::min(first, e.line);
    std::string title = "denpex: " + core::verdict(f);
    if (!f.ranks.empty()) title += " (rank" + std::string(f.ranks.size() > 1 ? "s " : " ") + core::ranksText(f.ranks) + ")";
    lenses.push_back(toCodeLens(static_cast<uint32_t>(first), title, "denpex.explain", json::array({f.rule->id})));
  }
  return lenses;
}

}  // namespace denpex::lsp::handlers
