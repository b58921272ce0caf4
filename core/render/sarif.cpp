// SARIF 2.1.0 (see report.h).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "core/parse/log_text.h"
#include "core/render/report.h"
#include "core/render/wording.h"

namespace denpex::core {

using render_detail::indent;
using render_detail::sortedEvidence;
using render_detail::sourceName;
using render_detail::trimEnd;

using nlohmann::json;

std::string renderSarif(const ReportInput& in) {
  const Diagnosis& d = in.diagnosis;
  json rules = json::array();
  std::vector<std::string> ids;
  json results = json::array();
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    const Rule& r = *f.rule;
    auto it = std::find(ids.begin(), ids.end(), r.id);
    size_t ruleIndex = static_cast<size_t>(it - ids.begin());
    if (it == ids.end()) {
      ids.push_back(r.id);
      std::string level = r.severity == Severity::kError ? "error" : r.severity == Severity::kWarning ? "warning" : "note";
      rules.push_back({{"id", r.id},
                       {"name", r.title},
                       {"shortDescription", {{"text", r.title}}},
                       {"fullDescription", {{"text", trimEnd(r.summary)}}},
                       {"help", {{"text", trimEnd(r.fix.empty() ? r.summary : r.fix)}, {"markdown", explainMarkdown(r)}}},
                       {"helpUri", ruleUrl(r)},
                       {"defaultConfiguration", {{"level", level}}},
                       {"properties", {{"tags", r.tags}, {"category", r.category}}}});
    }
    auto location = [&](const Evidence& e) {
      return json{{"physicalLocation",
                   {{"artifactLocation", {{"uri", sourceName(d, e.source)}}},
                    {"region", {{"startLine", e.line + 1}, {"startColumn", e.begin + 1}, {"endColumn", std::max(e.end, e.begin) + 1}}}}}};
    };
    json related = json::array();
    for (size_t k = 1; k < f.evidence.size(); ++k) {
      json loc = location(f.evidence[k]);
      loc["id"] = k;
      loc["message"] = {{"text", f.evidence[k].signal + ": " + f.evidence[k].text}};
      related.push_back(loc);
    }
    std::string message = verdict(f);
    if (!f.observed.empty()) message += ". " + f.observed.front();
    std::string key = r.id + "|" + (f.rule->fallback ? f.messageTemplate : "");
    char fp[17];
    std::snprintf(fp, sizeof fp, "%016zx", std::hash<std::string>{}(key));
    json result = {{"ruleId", r.id},
                   {"ruleIndex", ruleIndex},
                   {"level", r.severity == Severity::kError ? "error" : r.severity == Severity::kWarning ? "warning" : "note"},
                   {"message", {{"text", message}}},
                   {"locations", json::array({location(f.evidence.front())})},
                   {"partialFingerprints", {{"denpexFailure/v1", fp}}}};
    if (!related.empty()) result["relatedLocations"] = related;
    if (i < in.plans.size()) {
      json fixes = json::array();
      for (const auto& plan : in.plans[i]) {
        if (!plan.applicable) continue;
        json replacements = json::array();
        for (const auto& e : plan.edits) {
          LineIndex index(plan.originalText);
          TextPosition a = index.toPosition(e.begin, PositionEncoding::kUtf16);
          TextPosition b = index.toPosition(e.end, PositionEncoding::kUtf16);
          replacements.push_back({{"deletedRegion", {{"startLine", a.line + 1}, {"startColumn", a.character + 1},
                                                     {"endLine", b.line + 1}, {"endColumn", b.character + 1}}},
                                  {"insertedContent", {{"text", e.newText}}}});
        }
        fixes.push_back({{"description", {{"text", plan.title}}},
                         {"artifactChanges", json::array({{{"artifactLocation", {{"uri", plan.path}}},
                                                           {"replacements", replacements}}})}});
      }
      if (!fixes.empty()) result["fixes"] = fixes;
    }
    results.push_back(result);
  }
  json sarif = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                {"version", "2.1.0"},
                {"runs", json::array({{{"tool", {{"driver", {{"name", "denpex"},
                                                               {"version", kVersion},
                                                               {"semanticVersion", kVersion},
                                                               {"informationUri", "https://github.com/denpex/denpex"},
                                                               {"rules", rules}}}}},
                                       {"results", results}}})}};
  return sarif.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace denpex::core
