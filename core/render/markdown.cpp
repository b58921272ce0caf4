// Markdown: the full entry of a rule, the hover, the rank table and the report (see report.h).
#include <algorithm>

#include "core/render/report.h"
#include "core/render/wording.h"

namespace denpex::core {

using render_detail::indent;
using render_detail::mdCode;
using render_detail::mdFence;
using render_detail::mdText;
using render_detail::sortedEvidence;
using render_detail::sourceName;
using render_detail::trimEnd;

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

namespace {

// The verdict, with what came from the log (an unrecognised exception's type and message) inert.
std::string verdictMarkdown(const Finding& f) {
  if (!f.rule->fallback) return f.rule->title;
  std::string what = f.exceptionType + (f.exceptionMessage.empty() ? "" : ": " + f.exceptionMessage);
  return "Unrecognized failure: " + mdCode(what);
}

}  // namespace

std::string rankTableMarkdown(const Incident& inc) {
  if (inc.empty()) return "";
  std::string out = inc.initiatingRank ? "**Rank " + std::to_string(*inc.initiatingRank) + " failed first** (" + mdText(inc.initiatingReason) + ")\n\n"
                                       : "**No initiating rank found**\n\n";
  out += "| rank | host | role | time | first failure |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& rr : inc.ranks) {
    std::string failure = rr.title.empty() ? "-" : rr.title;
    if (rr.role == "collateral" || rr.role == "independent") failure += " (" + rr.reason + ")";
    out += "| " + std::to_string(rr.rank) + " | " + (rr.host.empty() ? "-" : mdText(rr.host)) + " | " + rr.role + " | " +
           (rr.time.empty() ? "-" : mdText(rr.time)) + " | " + mdText(failure) + " |\n";
  }
  if (!inc.launcherNote.empty()) out += "\n" + mdText(inc.launcherNote) + "\n";
  return out;
}

std::string hoverMarkdown(const Diagnosis& d, size_t finding) {
  const Finding& f = d.findings[finding];
  const Rule& r = *f.rule;
  std::string out = "### " + verdictMarkdown(f) + "\n\n`" + r.id + "` · " + (d.initiating(finding) ? "initiating failure" : toString(d.role(finding)));
  if (!f.ranks.empty()) out += " · rank" + std::string(f.ranks.size() > 1 ? "s " : " ") + ranksText(f.ranks);
  if (f.step) out += " · step " + std::to_string(*f.step);
  out += "\n\n";
  if (!r.fallback) out += trimEnd(r.summary) + "\n\n";
  if (!f.observed.empty()) {
    out += "**Seen in this log**\n\n";
    for (const auto& o : f.observed) out += "- " + mdText(o) + "\n";
    out += "\n";
  }
  if (f.userFrame)
    out += "**Your code:** " + mdCode(f.userFrame->file + ":" + std::to_string(f.userFrame->line)) + "\n\n";
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
    out += "## " + std::to_string(i + 1) + ". " + verdictMarkdown(f) + "\n\n";
    out += "`" + f.rule->id + "` · " + toString(f.rule->severity) + " · " + toString(f.rule->role);
    if (!f.ranks.empty()) out += " · ranks " + ranksText(f.ranks);
    if (f.step) out += " · step " + std::to_string(*f.step);
    out += "\n\n**Evidence**\n\n";
    for (const auto& e : sortedEvidence(f))
      out += "- " + mdCode(sourceName(d, e.source) + ":" + std::to_string(e.line + 1)) + " " + mdCode(e.text) + "\n";
    out += "\n";
    std::string hover = hoverMarkdown(d, i);
    size_t cut = hover.find("\n\n", hover.find("\n\n") + 2);  // drop the hover's own heading lines
    out += cut == std::string::npos ? hover : hover.substr(cut + 2);
    if (i < in.plans.size()) {
      for (const auto& plan : in.plans[i]) {
        if (plan.applicable)
          out += "\n**" + mdText(plan.title) + "**\n\n" + mdFence(unifiedDiff(plan.path, plan.originalText, plan.edits), "diff");
        else
          out += "\n_No edit in " + mdCode(plan.path + ":" + std::to_string(plan.line)) + ": " + mdText(plan.reason) + "_\n";
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace denpex::core
