// The terminal report (see report.h).
#include <cstdio>
#include <sstream>

#include "core/render/report.h"
#include "core/render/wording.h"

namespace denpex::core {

using render_detail::indent;
using render_detail::sortedEvidence;
using render_detail::sourceName;
using render_detail::trimEnd;

namespace {

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
    if (d.role(i) == Role::kRoot && !r.fallback) ++roots;
    const Evidence& anchor = f.evidence.front();
    if (i > 0) out += "\n";
    out += st.bold(sourceName(d, anchor.source) + ":" + std::to_string(anchor.line + 1) + ":") + " " +
           severityWord(f, st) + st.bold("[" + r.id + "] " + verdict(f)) + "\n";
    std::string meta = "role: " + std::string(d.initiating(i) ? "root (initiating failure)" : toString(d.role(i)));
    if (std::string why = d.collateralReason(i); !why.empty()) meta += " (" + why + ")";
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
          out += "    " + st.green("fix") + ": " + plan.title + (plan.outside ? " [outside the project]" : "") + "\n";
          if (options.showDiff) out += indent(colorDiff(unifiedDiff(plan.path, plan.originalText, plan.edits), st), "      ");
        } else {
          out += "    " + st.dim(std::string(plan.alreadySafe ? "ok" : "no edit") + ": " + plan.path + ":" +
                                 std::to_string(plan.line) + ": " + plan.reason) + "\n";
        }
      }
    }
    out += "\n  " + st.dim("Full entry: denpex explain " + r.id) + "\n";
  }
  if (d.linesOutsideRanks > 0)
    out += st.dim("note: " + std::to_string(d.linesOutsideRanks) +
                  " lines named ranks the run cannot have (past its world size, or past the first 8192 ranks) and were read "
                  "as lines without a rank") + "\n";
  if (d.findings.empty()) {
    out += "No known failure found in " + std::to_string(d.lines) + " lines.\n";
  } else {
    size_t unknown = 0, symptoms = 0, collateral = 0;
    for (size_t i = 0; i < d.findings.size(); ++i) {
      if (d.findings[i].rule->fallback && d.role(i) == Role::kRoot) ++unknown;
      else if (d.role(i) == Role::kSymptom) ++symptoms;
      else if (d.role(i) == Role::kCollateral) ++collateral;
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

}  // namespace denpex::core
