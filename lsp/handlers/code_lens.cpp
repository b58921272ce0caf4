// textDocument/codeLens: the verdict above the first line of each root-cause finding.
#include "core/report.h"
#include "lsp/findings.h"

namespace denpex::lsp {

void registerCodeLens(Server& server) {
  server.onRequest("textDocument/codeLens", [&server](const json& params) -> json {
    std::string uri = member(member(params, "textDocument"), "uri").get<std::string>();
    auto doc = server.document(uri);
    json lenses = json::array();
    if (!doc) return lenses;
    for (const auto& ref : allFindings(*doc)) {
      const core::Finding& f = *ref.finding;
      if (f.rule->role != core::Role::kRoot) continue;
      uint64_t first = f.evidence.front().line;
      for (const auto& e : f.evidence) first = std::min(first, e.line);
      uint32_t line = static_cast<uint32_t>(first);
      std::string title = "denpex: " + core::verdict(f);
      if (!f.ranks.empty()) title += " (rank" + std::string(f.ranks.size() > 1 ? "s " : " ") + core::ranksText(f.ranks) + ")";
      lenses.push_back({{"range", {{"start", toJson({line, 0})}, {"end", toJson({line, 0})}}},
                        {"command", {{"title", title}, {"command", "denpex.explainRule"}, {"arguments", {f.rule->id}}}}});
    }
    return lenses;
  });
}

}  // namespace denpex::lsp
