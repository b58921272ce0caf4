// The JSON report (schema: docs/json-output.md; see report.h).
#include <nlohmann/json.hpp>

#include <cmath>

#include "core/parse/log_text.h"
#include "core/render/report.h"
#include "core/render/wording.h"

namespace denpex::core {

using render_detail::indent;
using render_detail::sortedEvidence;
using render_detail::sourceName;
using render_detail::trimEnd;

namespace {

using nlohmann::json;

json positionJson(std::string_view text, size_t offset) {
  LineIndex index(text);
  TextPosition p = index.toPosition(offset, PositionEncoding::kUtf16);
  return {{"line", p.line + 1}, {"column", p.character + 1}};
}

json plansJson(const std::vector<FixPlan>& plans) {
  json out = json::array();
  for (const auto& plan : plans) {
    json p = {{"title", plan.title}, {"file", plan.path}, {"line", plan.line}, {"applicable", plan.applicable},
              {"already_safe", plan.alreadySafe}};
    if (!plan.reason.empty()) p["reason"] = plan.reason;
    if (plan.outside) p["outside"] = true;  // outside the project: written only when allowed
    json changes = json::array();
    for (const auto& e : plan.edits)
      changes.push_back({{"start", positionJson(plan.originalText, e.begin)},
                         {"end", positionJson(plan.originalText, e.end)},
                         {"new_text", e.newText}});
    p["changes"] = changes;
    if (plan.applicable) p["diff"] = unifiedDiff(plan.path, plan.originalText, plan.edits);
    out.push_back(p);
  }
  return out;
}

json optionalString(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

std::string renderJson(const ReportInput& in) {
  const Diagnosis& d = in.diagnosis;
  json findings = json::array();
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    const Rule& r = *f.rule;
    json ev = json::array();
    for (const auto& e : f.evidence) {
      ev.push_back({{"source", sourceName(d, e.source)},
                    {"line", e.line + 1},
                    {"start_byte", e.begin},
                    {"end_byte", e.end},
                    {"signal", e.signal},
                    {"text", e.text},
                    {"rank", e.rank >= 0 ? json(e.rank) : json(nullptr)},
                    {"timestamp", optionalString(e.timestamp)}});
    }
    std::string first, last;
    for (const auto& e : f.evidence) {
      if (e.timestamp.empty()) continue;
      if (first.empty() || e.timestamp < first) first = e.timestamp;
      if (last.empty() || e.timestamp > last) last = e.timestamp;
    }
    json item = {
        {"rule", r.id},
        {"title", verdict(f)},
        {"severity", toString(r.severity)},
        {"category", r.category},
        {"tags", r.tags},
        {"role", toString(d.role(i))},
        {"initiating", d.initiating(i)},
        {"collateral_reason", optionalString(d.collateralReason(i))},
        {"confidence", std::round(f.confidence * 100) / 100},
        {"ranks", f.ranks},
        {"count", f.count},
        {"step", f.step ? json(*f.step) : json(nullptr)},
        {"evidence", ev},
        {"timestamps", {{"first", optionalString(first)}, {"last", optionalString(last)}}},
        {"captures", f.captures},
        {"observed", f.observed},
        {"exception", f.exceptionType.empty()
                          ? json(nullptr)
                          : json{{"type", f.exceptionType},
                                 {"message", f.exceptionMessage},
                                 {"template", optionalString(f.messageTemplate)}}},
        {"user_frame", f.userFrame ? json{{"file", f.userFrame->file},
                                          {"line", f.userFrame->line},
                                          {"function", f.userFrame->function}}
                                   : json(nullptr)},
        {"summary", trimEnd(r.summary)},
        {"root_cause", trimEnd(r.rootCause)},
        {"fix", trimEnd(r.fix)},
        {"verify", trimEnd(r.verify)},
        {"related", r.related},
        {"doc", ruleDocPath(r)},
        {"edits", i < in.plans.size() ? plansJson(in.plans[i]) : json::array()},
    };
    findings.push_back(item);
  }
  json incident = nullptr;
  if (!d.incident.empty()) {
    json ranks = json::array();
    for (const auto& rr : d.incident.ranks) {
      ranks.push_back({{"rank", rr.rank},
                       {"host", optionalString(rr.host)},
                       {"role", rr.role},
                       {"reason", rr.reason},
                       {"rule", optionalString(rr.failure)},
                       {"failure", optionalString(rr.title)},
                       {"time", optionalString(rr.time)},
                       {"exit_code", rr.exitCode ? json(*rr.exitCode) : json(nullptr)},
                       {"source", rr.hasEvidence ? json(sourceName(d, rr.source)) : json(nullptr)},
                       {"line", rr.hasEvidence ? json(rr.line + 1) : json(nullptr)}});
    }
    incident = {{"initiating_rank", d.incident.initiatingRank ? json(*d.incident.initiatingRank) : json(nullptr)},
                {"reason", d.incident.initiatingReason},
                {"ranks", ranks},
                {"launcher_root_cause_rank", d.incident.launcherRootCause ? json(*d.incident.launcherRootCause) : json(nullptr)},
                {"launcher_note", optionalString(d.incident.launcherNote)}};
  }
  json out = {{"version", kJsonSchemaVersion},
              {"tool", {{"name", "denpex"}, {"version", kVersion}}},
              {"sources", d.sources},
              {"lines", d.lines},
              {"incident", incident},
              {"findings", findings}};
  if (d.linesOutsideRanks > 0) out["lines_outside_ranks"] = d.linesOutsideRanks;
  // Replace, never throw: a file name need not be UTF-8.
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace denpex::core
