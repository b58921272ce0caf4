// SARIF 2.1.0 (see report.h).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <string_view>

#include "core/base/text.h"
#include "core/parse/log_text.h"
#include "core/render/report.h"
#include "core/render/wording.h"

namespace denpex::core {

using render_detail::indent;
using render_detail::sortedEvidence;
using render_detail::sourceName;
using render_detail::trimEnd;

using nlohmann::json;

namespace {

// A file name as a URI reference (RFC 3986): unreserved characters and '/' as they are, every
// other byte percent-encoded. An absolute path becomes a file: URI; a relative one stays
// relative to the uriBaseId %SRCROOT% (the folder denpex ran in, which the consumer knows).
json artifactLocation(const std::string& name) {
  std::string encoded;
  for (unsigned char c : name) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                c == '_' || c == '~' || c == '/';
    if (keep) {
      encoded.push_back(static_cast<char>(c));
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      encoded += hex;
    }
  }
  if (!name.empty() && name[0] == '/') return {{"uri", "file://" + encoded}};
  return {{"uri", encoded}, {"uriBaseId", "%SRCROOT%"}};
}

bool ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// FNV-1a, 64 bits: the same fingerprint on every platform and every build.
std::string fingerprint(std::string_view key) {
  uint64_t h = text::fnv1a(key);
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace

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
                       {"defaultConfiguration", {{"level", level}}},
                       {"properties", {{"tags", r.tags}, {"category", r.category}}}});
    }
    // Columns are UTF-16 code units (the run's columnKind). Evidence spans are byte offsets in
    // the line, the same units when the line is ASCII; for any other line the region is the
    // whole line, without columns, rather than columns in another unit.
    auto location = [&](const Evidence& e) {
      json region = {{"startLine", e.line + 1}};
      if (ascii(e.text)) {
        region["startColumn"] = e.begin + 1;
        region["endColumn"] = std::max(e.end, e.begin) + 1;
      }
      return json{{"physicalLocation", {{"artifactLocation", artifactLocation(sourceName(d, e.source))}, {"region", region}}}};
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
    // A rank's failure caused by another rank's is context, not a problem of its own.
    std::string level = d.role(i) == Role::kCollateral ? "note"
                        : r.severity == Severity::kError ? "error"
                        : r.severity == Severity::kWarning ? "warning" : "note";
    json result = {{"ruleId", r.id},
                   {"ruleIndex", ruleIndex},
                   {"level", level},
                   {"message", {{"text", message}}},
                   {"locations", json::array({location(f.evidence.front())})},
                   {"partialFingerprints", {{"denpexFailure/v2", fingerprint(r.id + "|" + (f.rule->fallback ? f.messageTemplate : ""))}}}};
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
                         {"artifactChanges", json::array({{{"artifactLocation", artifactLocation(plan.path)},
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
                                                               {"rules", rules}}}}},
                                       {"columnKind", "utf16CodeUnits"},
                                       {"results", results}}})}};
  return sarif.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace denpex::core
