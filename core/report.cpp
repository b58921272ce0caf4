// Text, Markdown, JSON and SARIF renderings of a diagnosis (see report.h).
#include "core/report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

namespace denpex::core {
namespace {

using nlohmann::json;

std::string trimEnd(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  size_t start = 0;
  std::string t = trimEnd(text);
  while (start <= t.size()) {
    size_t nl = t.find('\n', start);
    std::string line = t.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    out += line.empty() ? "\n" : pad + line + "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string sourceName(const Diagnosis& d, uint32_t source) {
  return source < d.sources.size() ? d.sources[source] : "<input>";
}

}  // namespace

std::string verdict(const Finding& f) {
  if (f.rule->fallback) {
    std::string v = "Unrecognized failure: " + f.exceptionType;
    if (!f.exceptionMessage.empty()) v += ": " + f.exceptionMessage;
    return v;
  }
  return f.rule->title;
}

std::string ranksText(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    // Collapse runs: 0-3, 5
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j;
  }
  return out;
}

namespace {

std::vector<Evidence> sortedEvidence(const Finding& f) {
  std::vector<Evidence> ev = f.evidence;
  std::stable_sort(ev.begin(), ev.end(), [](const Evidence& a, const Evidence& b) {
    return std::tie(a.source, a.line) < std::tie(b.source, b.line);
  });
  return ev;
}

struct Style {
  bool on;
  std::string wrap(const char* code, const std::string& s) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
  std::string bold(const std::string& s) const { return wrap("1", s); }
  std::string dim(const std::string& s) const { return wrap("2", s); }
  std::string red(const std::string& s) const { return wrap("1;31", s); }
  std::string yellow(const std::string& s) const { return wrap("1;33", s); }
  std::string cyan(const std::string& s) const { return wrap("36", s); }
  std::string green(const std::string& s) const { return wrap("32", s); }
};

std::string severityWord(const Finding& f, const Style& st) {
  std::string word = toString(f.rule->severity);
  if (f.rule->severity == Severity::kError) return st.red(word);
  if (f.rule->severity == Severity::kWarning) return st.yellow(word);
  return st.cyan(word);
}

std::string colorDiff(const std::string& diff, const Style& st) {
  if (!st.on) return diff;
  std::string out;
  std::istringstream in(diff);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0) out += st.bold(line);
    else if (!line.empty() && line[0] == '+') out += st.green(line);
    else if (!line.empty() && line[0] == '-') out += st.red(line);
    else if (line.rfind("@@", 0) == 0) out += st.cyan(line);
    else out += line;
    out += "\n";
  }
  return out;
}

}  // namespace

std::string ruleUrl(const Rule& rule) {
  return "https://github.com/denpex/denpex/blob/main/docs/rules/" + rule.category + "/" + rule.id + ".md";
}

std::string renderText(const ReportInput& in, const TextOptions& options) {
  Style st{options.color};
  const Diagnosis& d = in.diagnosis;
  std::string out;
  if (!d.incident.empty()) {
    const Incident& inc = d.incident;
    out += st.bold("Incident") + ": ";
    out += inc.initiatingRank ? "rank " + std::to_string(*inc.initiatingRank) + " failed first (" + inc.initiatingReason + ")\n"
                              : "no initiating rank found" + (inc.initiatingReason.empty() ? std::string() : ": " + inc.initiatingReason) + "\n";
    out += "  " + st.dim("RANK  HOST            ROLE         TIME                        FIRST FAILURE") + "\n";
    for (const auto& rr : inc.ranks) {
      char row[160];
      std::snprintf(row, sizeof row, "  %-5d %-15.15s %-12s %-27.27s ", rr.rank, rr.host.empty() ? "-" : rr.host.c_str(),
                    rr.role.c_str(), rr.time.empty() ? "-" : rr.time.c_str());
      std::string line = row + (rr.title.empty() ? std::string("-") : rr.title);
      if (rr.role == "collateral") line += st.dim("  <- " + rr.reason);
      out += (rr.role == "initiator" ? st.bold(line) : line) + "\n";
    }
    if (inc.launcherRootCause) {
      out += "  torchrun's \"Root Cause (first observed failure)\": rank " + std::to_string(*inc.launcherRootCause) +
             (inc.launcherNote.empty() ? " (agrees)" : "") + "\n";
      if (!inc.launcherNote.empty()) out += "  " + st.yellow("note") + ": " + inc.launcherNote + "\n";
    }
    out += "\n";
  }
  size_t roots = 0;
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    const Rule& r = *f.rule;
    if (f.role() == Role::kRoot && !r.fallback) ++roots;
    const Evidence& anchor = f.evidence.front();
    if (i > 0) out += "\n";
    out += st.bold(sourceName(d, anchor.source) + ":" + std::to_string(anchor.line + 1) + ":") + " " +
           severityWord(f, st) + st.bold("[" + r.id + "] " + verdict(f)) + "\n";
    std::string meta = "role: " + std::string(f.initiating ? "root (initiating failure)" : toString(f.role()));
    if (!f.collateralReason.empty()) meta += " (" + f.collateralReason + ")";
    if (!f.ranks.empty()) meta += " | rank" + std::string(f.ranks.size() > 1 ? "s " : " ") + ranksText(f.ranks);
    if (f.step) meta += " | step " + std::to_string(*f.step);
    if (f.count > 1) meta += " | seen " + std::to_string(f.count) + " times";
    if (!r.fallback) {
      char conf[16];
      std::snprintf(conf, sizeof conf, "%.0f%%", f.confidence * 100);
      meta += " | confidence " + std::string(conf);
    }
    out += "  " + st.dim(meta) + "\n";
    if (!r.fallback) out += indent(r.summary, "  ");
    out += "\n  " + st.bold("Evidence") + "\n";
    auto evidence = sortedEvidence(f);
    size_t width = 0;
    for (const auto& e : evidence) width = std::max(width, sourceName(d, e.source).size() + 1 + std::to_string(e.line + 1).size());
    for (const auto& e : evidence) {
      std::string loc = sourceName(d, e.source) + ":" + std::to_string(e.line + 1);
      out += "    " + st.cyan(loc) + std::string(width - loc.size() + 2, ' ') + e.text + "\n";
    }
    if (!f.observed.empty()) {
      out += "\n  " + st.bold("Fingerprint seen") + "\n";
      for (const auto& o : f.observed) out += "    " + o + "\n";
    }
    if (r.fallback && !f.messageTemplate.empty())
      out += "\n  " + st.bold("Template") + "\n    " + f.messageTemplate + "\n";
    if (f.userFrame) {
      out += "\n  " + st.bold("Your code") + "\n    " + f.userFrame->file + ":" + std::to_string(f.userFrame->line);
      if (!f.userFrame->function.empty()) out += " in " + f.userFrame->function;
      out += "\n";
    }
    if (!r.rootCause.empty()) out += "\n  " + st.bold("Root cause") + "\n" + indent(r.rootCause, "    ");
    if (!r.mechanism.empty()) out += "\n  " + st.bold("Mechanism") + "\n" + indent(r.mechanism, "    ");
    if (!r.confirm.empty()) {
      out += "\n  " + st.bold("How to confirm") + "\n";
      for (const auto& c : r.confirm) out += indent("- " + c, "    ");
    }
    if (!r.fix.empty()) out += "\n  " + st.bold("Fix") + "\n" + indent(r.fix, "    ");
    if (!r.verify.empty()) out += "\n  " + st.bold("Verify") + "\n" + indent(r.verify, "    ");
    if (!r.related.empty()) {
      std::string rel;
      for (const auto& id : r.related) rel += (rel.empty() ? "" : ", ") + id;
      out += "\n  " + st.bold("Related") + ": " + rel + "\n";
    }
    if (i < in.plans.size() && !in.plans[i].empty()) {
      out += "\n  " + st.bold("Source fixes") + "\n";
      for (const auto& plan : in.plans[i]) {
        if (plan.applicable) {
          out += "    " + st.green("fix") + ": " + plan.title + "\n";
          if (options.showDiff) out += indent(colorDiff(unifiedDiff(plan.path, plan.originalText, plan.edits), st), "      ");
        } else {
          out += "    " + st.dim(std::string(plan.alreadySafe ? "ok" : "no edit") + ": " + plan.path + ":" +
                                 std::to_string(plan.line) + ": " + plan.reason) + "\n";
        }
      }
    }
    out += "\n  " + st.dim("Full entry: denpex explain " + r.id) + "\n";
  }
  if (d.findings.empty()) {
    out += "No known failure found in " + std::to_string(d.lines) + " lines.\n";
  } else {
    size_t unknown = 0, symptoms = 0, collateral = 0;
    for (const auto& f : d.findings) {
      if (f.rule->fallback && f.role() == Role::kRoot) ++unknown;
      else if (f.role() == Role::kSymptom) ++symptoms;
      else if (f.role() == Role::kCollateral) ++collateral;
    }
    std::string parts = std::to_string(roots) + " root cause" + (roots == 1 ? "" : "s");
    if (unknown) parts += ", " + std::to_string(unknown) + " unrecognized";
    if (symptoms) parts += ", " + std::to_string(symptoms) + " symptom" + (symptoms == 1 ? "" : "s");
    if (collateral) parts += ", " + std::to_string(collateral) + " collateral";
    out += "\n" + std::to_string(d.findings.size()) + " finding" + (d.findings.size() == 1 ? "" : "s") + " (" + parts +
           ") in " + std::to_string(d.lines) + " lines.\n";
  }
  return out;
}

std::string explainMarkdown(const Rule& r) {
  std::string out = "# " + r.title + "\n\n";
  out += "`" + r.id + "` · " + r.category + " · " + toString(r.severity) + " · role: " + toString(r.role) + "\n\n";
  if (!r.tags.empty()) {
    out += "Tags:";
    for (const auto& t : r.tags) out += " `" + t + "`";
    out += "\n\n";
  }
  out += trimEnd(r.summary) + "\n\n";
  auto section = [&](const std::string& title, const std::string& body) {
    if (!body.empty()) out += "## " + title + "\n\n" + trimEnd(body) + "\n\n";
  };
  auto list = [&](const std::string& title, const std::vector<std::string>& items, bool checklist) {
    if (items.empty()) return;
    out += "## " + title + "\n\n";
    for (const auto& it : items) out += std::string(checklist ? "- [ ] " : "- ") + trimEnd(it) + "\n";
    out += "\n";
  };
  section("What it is", r.whatItIs);
  list("What you observe", r.observe, false);
  if (!r.symptoms.empty()) {
    out += "## Symptoms and why they happen\n\n| Symptom | Why |\n| --- | --- |\n";
    auto cell = [](std::string s) {
      s = trimEnd(s);
      std::replace(s.begin(), s.end(), '\n', ' ');
      size_t p = 0;
      while ((p = s.find('|', p)) != std::string::npos) {
        s.replace(p, 1, "\\|");
        p += 2;
      }
      return s;
    };
    for (const auto& s : r.symptoms) out += "| " + cell(s.symptom) + " | " + cell(s.why) + " |\n";
    out += "\n";
  }
  section("Fingerprint", r.fingerprint);
  list("Systems affected", r.systems, false);
  list("How to confirm", r.confirm, true);
  section("Root cause", r.rootCause);
  section("Mechanism", r.mechanism);
  section("Fix", r.fix);
  list("Prevention", r.prevention, false);
  section("How to verify the fix", r.verify);
  if (!r.related.empty()) {
    out += "## Related failures\n\n";
    for (const auto& id : r.related) out += "- `" + id + "` (`denpex explain " + id + "`)\n";
    out += "\n";
  }
  if (!r.references.empty()) {
    out += "## References\n\n";
    for (const auto& ref : r.references)
      out += "- " + (ref.title.empty() ? "<" + ref.url + ">" : "[" + ref.title + "](" + ref.url + ")") + "\n";
    out += "\n";
  }
  return trimEnd(out) + "\n";
}

std::string rankTableMarkdown(const Incident& inc) {
  if (inc.empty()) return "";
  std::string out = inc.initiatingRank ? "**Rank " + std::to_string(*inc.initiatingRank) + " failed first** (" + inc.initiatingReason + ")\n\n"
                                       : "**No initiating rank found**\n\n";
  out += "| rank | host | role | time | first failure |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& rr : inc.ranks) {
    std::string failure = rr.title.empty() ? "-" : rr.title;
    if (rr.role == "collateral" || rr.role == "independent") failure += " (" + rr.reason + ")";
    std::replace(failure.begin(), failure.end(), '|', '/');
    out += "| " + std::to_string(rr.rank) + " | " + (rr.host.empty() ? "-" : rr.host) + " | " + rr.role + " | " +
           (rr.time.empty() ? "-" : rr.time) + " | " + failure + " |\n";
  }
  if (!inc.launcherNote.empty()) out += "\n" + inc.launcherNote + "\n";
  return out;
}

std::string hoverMarkdown(const Finding& f) {
  const Rule& r = *f.rule;
  std::string out = "### " + verdict(f) + "\n\n`" + r.id + "` · " + (f.initiating ? "initiating failure" : toString(f.role()));
  if (!f.ranks.empty()) out += " · rank" + std::string(f.ranks.size() > 1 ? "s " : " ") + ranksText(f.ranks);
  if (f.step) out += " · step " + std::to_string(*f.step);
  out += "\n\n";
  if (!r.fallback) out += trimEnd(r.summary) + "\n\n";
  if (!f.observed.empty()) {
    out += "**Seen in this log**\n\n";
    for (const auto& o : f.observed) out += "- " + o + "\n";
    out += "\n";
  }
  if (f.userFrame)
    out += "**Your code:** `" + f.userFrame->file + ":" + std::to_string(f.userFrame->line) + "`\n\n";
  auto section = [&](const std::string& title, const std::string& body) {
    if (!body.empty()) out += "**" + title + "**\n\n" + trimEnd(body) + "\n\n";
  };
  section("Root cause", r.rootCause);
  section("Mechanism", r.mechanism);
  if (!r.confirm.empty()) {
    out += "**How to confirm**\n\n";
    for (const auto& c : r.confirm) out += "- " + trimEnd(c) + "\n";
    out += "\n";
  }
  section("Fix", r.fix);
  section("Verify", r.verify);
  if (!r.related.empty()) {
    out += "**Related:**";
    for (const auto& id : r.related) out += " `" + id + "`";
    out += "\n";
  }
  return trimEnd(out) + "\n";
}

std::string renderMarkdown(const ReportInput& in) {
  const Diagnosis& d = in.diagnosis;
  std::string out = "# denpex diagnosis\n\n";
  if (!d.incident.empty()) out += "## Ranks\n\n" + rankTableMarkdown(d.incident) + "\n";
  if (d.findings.empty()) return out + "No known failure found in " + std::to_string(d.lines) + " lines.\n";
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    out += "## " + std::to_string(i + 1) + ". " + verdict(f) + "\n\n";
    out += "`" + f.rule->id + "` · " + toString(f.rule->severity) + " · " + toString(f.rule->role);
    if (!f.ranks.empty()) out += " · ranks " + ranksText(f.ranks);
    if (f.step) out += " · step " + std::to_string(*f.step);
    out += "\n\n**Evidence**\n\n";
    for (const auto& e : sortedEvidence(f))
      out += "- `" + sourceName(d, e.source) + ":" + std::to_string(e.line + 1) + "` `" + e.text + "`\n";
    out += "\n";
    std::string hover = hoverMarkdown(f);
    size_t cut = hover.find("\n\n", hover.find("\n\n") + 2);  // drop the hover's own heading lines
    out += cut == std::string::npos ? hover : hover.substr(cut + 2);
    if (i < in.plans.size()) {
      for (const auto& plan : in.plans[i]) {
        if (plan.applicable)
          out += "\n**" + plan.title + "**\n\n```diff\n" + unifiedDiff(plan.path, plan.originalText, plan.edits) + "```\n";
        else
          out += "\n_No edit in `" + plan.path + ":" + std::to_string(plan.line) + "`: " + plan.reason + "_\n";
      }
    }
    out += "\n";
  }
  return out;
}

namespace {

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
        {"role", toString(f.role())},
        {"initiating", f.initiating},
        {"collateral_reason", optionalString(f.collateralReason)},
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
        {"url", ruleUrl(r)},
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
  return out.dump(2) + "\n";
}

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
  return sarif.dump(2) + "\n";
}

}  // namespace denpex::core
