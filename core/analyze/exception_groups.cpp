// Exception groups and the fallback findings (see exception_groups.h).
#include "core/analyze/exception_groups.h"

#include <algorithm>

namespace denpex::core {

namespace {

constexpr size_t kEvidenceTextMax = 400;

}  // namespace

Evidence ExceptionGroups::exceptionEvidence(const Traceback& tb) {
  const ExceptionRecord& fin = tb.final();
  Evidence e;
  e.source = tb.source;
  e.line = fin.line;
  e.begin = fin.begin;
  e.end = fin.end;
  e.signal = "exception";
  e.text = (fin.type + (fin.message.empty() ? "" : ": " + fin.message)).substr(0, kEvidenceTextMax);
  e.rank = tb.rank;
  e.timestamp = tb.timestamp;
  return e;
}

void ExceptionGroups::add(Traceback&& tb) {
  const ExceptionRecord& fin = tb.final();
  std::string key = fin.type + ": " + maskMessage(fin.message);
  auto it = index_.find(key);
  if (it == index_.end()) {
    if (groups_.size() >= maxGroups_) {
      ++dropped_;
      return;
    }
    it = index_.emplace(key, groups_.size()).first;
    Group g;
    g.templ = maskMessage(fin.message);
    g.first = tb;
    groups_.push_back(std::move(g));
  }
  Group& g = groups_[it->second];
  ++g.count;
  if (tb.rank >= 0) g.ranks.insert(tb.rank);
  if (tb.rank >= 0 && !g.rankFirst.count(tb.rank)) g.rankFirst[tb.rank] = exceptionEvidence(tb);
  if (g.ranges.size() < 64) g.ranges.emplace_back(tb.source, tb.firstLine, tb.lastLine);
}

void ExceptionGroups::explain(std::vector<Finding>& findings, const RuleSet& rules, const Matcher& matcher,
                              const std::shared_ptr<const Rule>& fallback) const {
  // A traceback whose lines are some finding's evidence is explained by it.
  std::vector<bool> claimed(groups_.size(), false);
  auto inGroup = [](const Group& g, const Evidence& e) {
    for (const auto& [src, a, b] : g.ranges)
      if (src == e.source && e.line >= a && e.line <= b) return true;
    return false;
  };
  auto explains = [&](const Finding& f, const Group& g) {
    return std::any_of(f.evidence.begin(), f.evidence.end(), [&](const Evidence& e) { return inGroup(g, e); }) ||
           std::any_of(f.rankEvidence.begin(), f.rankEvidence.end(), [&](const auto& re) { return inGroup(g, re.second); });
  };
  // A wrapper's finding gives way where another rule explains the exception it wraps (decided
  // for every finding first, then removed).
  std::vector<bool> givesWay(findings.size(), false);
  for (size_t i = 0; i < findings.size(); ++i) {
    if (!findings[i].rule->wraps) continue;
    bool any = false, everyOneExplained = true;
    for (const Group& g : groups_) {
      if (!explains(findings[i], g)) continue;
      any = true;
      everyOneExplained &= std::any_of(findings.begin(), findings.end(), [&](const Finding& x) {
        return !x.rule->wraps && !x.rule->fallback && explains(x, g);
      });
    }
    givesWay[i] = any && everyOneExplained;
  }
  for (size_t i = findings.size(); i-- > 0;)
    if (givesWay[i]) findings.erase(findings.begin() + static_cast<std::ptrdiff_t>(i));
  for (auto& f : findings) {
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      bool hit = explains(f, groups_[gi]);
      if (!hit) continue;
      claimed[gi] = true;
      if (f.exceptionType.empty()) {
        const Traceback& tb = groups_[gi].first;
        f.exceptionType = tb.final().type;
        f.exceptionMessage = tb.final().message;
        if (const Frame* uf = tb.userFrame()) f.userFrame = *uf;
      }
    }
  }
  // A traceback whose exception a finding's rule recognises is explained by that finding too,
  // even when the finding's evidence is another line: the same failure worded another way, or
  // on another rank of an unprefixed log ("Connection reset by peer" on one rank, "Connection
  // closed by peer" on the next). Only signals that count for a rule (outside any `not`) do.
  // Only the rules that have a finding can claim one: their patterns alone are tried (compiling
  // the set of every pattern for a few messages cost most of a small log's diagnosis).
  std::vector<size_t> found;
  for (size_t r = 0; r < rules.rules().size(); ++r)
    if (std::any_of(findings.begin(), findings.end(), [&](const Finding& x) { return x.rule == rules.rules()[r]; }))
      found.push_back(r);
  std::vector<Matcher::Hit> hits;
  for (size_t gi = 0; gi < groups_.size() && !found.empty(); ++gi) {
    if (claimed[gi]) continue;
    const ExceptionRecord& fin = groups_[gi].first.final();
    hits.clear();
    matcher.matchRules(fin.type + (fin.message.empty() ? "" : ": " + fin.message), found, hits);
    for (const auto& hit : hits) {
      if (!rules.rules()[hit.rule]->positiveSignals[static_cast<size_t>(hit.signal)]) continue;
      claimed[gi] = true;
      break;
    }
  }
  if (!fallback) return;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    if (claimed[gi]) continue;
    const Group& g = groups_[gi];
    const Traceback& tb = g.first;
    const ExceptionRecord& fin = tb.final();
    Finding f;
    f.rule = fallback;
    f.exceptionType = fin.type;
    f.exceptionMessage = fin.message;
    f.messageTemplate = fin.type + ": " + g.templ;
    f.count = g.count;
    f.ranks.assign(g.ranks.begin(), g.ranks.end());
    f.evidence.push_back(exceptionEvidence(tb));
    f.rankEvidence = g.rankFirst;
    if (const Frame* uf = tb.userFrame()) {
      f.userFrame = *uf;
      Evidence fe;
      fe.source = uf->source;
      fe.line = uf->logLine;
      fe.signal = "user-frame";
      fe.text = "File \"" + uf->file + "\", line " + std::to_string(uf->line) + (uf->function.empty() ? "" : ", in " + uf->function);
      fe.rank = tb.rank;
      f.evidence.push_back(fe);
    }
    findings.push_back(std::move(f));
  }
}

}  // namespace denpex::core
