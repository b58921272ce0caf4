// Turning the diagnoser's state into findings (see diagnoser.h): each rule evaluated per rank,
// with run-wide facts gathered once, then grouped, ordered and made an incident.
#include "core/analyze/diagnoser_state.h"

#include "core/analyze/order.h"
#include "core/base/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

namespace denpex::core {

namespace diagnoser_detail {

bool evalCondition(const Condition& c, const std::vector<SignalValue>& values) {
  switch (c.op) {
    case Condition::Op::kSignal: return values[static_cast<size_t>(c.signal)].value;
    case Condition::Op::kNot: return !evalCondition(c.args[0], values);
    case Condition::Op::kAnd: return evalCondition(c.args[0], values) && evalCondition(c.args[1], values);
    case Condition::Op::kOr: return evalCondition(c.args[0], values) || evalCondition(c.args[1], values);
  }
  return false;
}

namespace {

// Marks the signals of the branches a condition that holds took. Of an `or` whose one side
// holds, that side alone: the other side is another wording of the same failure, which a log
// shows instead, not evidence it lacks. A `not` takes nothing.
void markTaken(const Condition& c, const std::vector<SignalValue>& values, std::vector<char>& taken) {
  switch (c.op) {
    case Condition::Op::kSignal: taken[static_cast<size_t>(c.signal)] = 1; return;
    case Condition::Op::kNot: return;
    case Condition::Op::kAnd:
      markTaken(c.args[0], values, taken);
      markTaken(c.args[1], values, taken);
      return;
    case Condition::Op::kOr: {
      bool left = evalCondition(c.args[0], values), right = evalCondition(c.args[1], values);
      if (left || !right) markTaken(c.args[0], values, taken);
      if (right || !left) markTaken(c.args[1], values, taken);
      return;
    }
  }
}

// Every signal a condition names, under any operator.
void markNamed(const Condition& c, std::vector<char>& named) {
  if (c.op == Condition::Op::kSignal) named[static_cast<size_t>(c.signal)] = 1;
  for (const auto& a : c.args) markNamed(a, named);
}

}  // namespace

bool before(const Evidence& a, const Evidence& b) {
  return std::tie(a.source, a.line) < std::tie(b.source, b.line);
}

}  // namespace diagnoser_detail

void Diagnoser::State::gatherRunWide() {
  const auto& all = rules.rules();
  runWide.assign(all.size(), {});
  for (size_t ri = 0; ri < all.size(); ++ri) {
    const Rule& rule = *all[ri];
    runWide[ri].resize(rule.signals.size());
    for (size_t s = 0; s < rule.signals.size(); ++s) {
      if (!rule.signals[s].runWide) continue;
      RunWideHit& out = runWide[ri][s];
      for (const auto& [r, st] : ranks) {
        const SignalHit* h = hitOf(&st, ri, s);
        if (!h || !h->seen) continue;
        out.count += h->count;
        if (!out.first || before(h->evidence, out.first->evidence)) out.first = h;
      }
    }
  }
}

std::optional<Finding> Diagnoser::State::evaluate(size_t ruleIndex, int r) {
  const Rule& rule = *rules.rules()[ruleIndex];
  const RankState* own = ranks.count(r) ? &ranks.at(r) : nullptr;
  const RankState* shared = r >= 0 && ranks.count(-1) ? &ranks.at(-1) : nullptr;
  const Metrics* metrics = own && own->metrics.any ? &own->metrics
                           : shared                ? &shared->metrics
                                                   : nullptr;
  std::vector<SignalValue> values(rule.signals.size());
  bool own_ = false;  // some positive signal came from this rank's own lines
  for (size_t s = 0; s < rule.signals.size(); ++s) {
    const Signal& sig = rule.signals[s];
    SignalValue& v = values[s];
    if (!sig.metric.empty()) {
      if (metrics) v = evalMetric(sig, *metrics);
      if (v.value && own && metrics == &own->metrics && rule.positiveSignals[s]) own_ = true;
      continue;
    }
    const SignalHit* ownHit = hitOf(own, ruleIndex, s);
    const SignalHit* sharedHit = hitOf(shared, ruleIndex, s);
    const SignalHit* hit = nullptr;
    if (ownHit && ownHit->seen) hit = ownHit;
    else if (sharedHit && sharedHit->seen) hit = sharedHit;
    uint64_t count = (ownHit ? ownHit->count : 0) + (sharedHit ? sharedHit->count : 0);
    if (sig.runWide && r >= 0) {
      // A fact about the run counts wherever it was printed: the rank's own line first, then
      // a line without a rank, then the earliest other rank's.
      const RunWideHit& any = runWide[ruleIndex][s];
      if (!hit) hit = any.first;
      count = any.count;
    }
    if (!hit) continue;
    if (count < static_cast<uint64_t>(sig.minCount)) continue;
    if (hit == ownHit && rule.positiveSignals[s]) own_ = true;
    v.value = true;
    v.evidence.push_back(hit->evidence);
    v.captures = hit->captures;
  }
  if (!evalCondition(rule.condition, values)) return std::nullopt;
  // Lines without a rank (the launcher's, shared settings) support a rank's finding but do
  // not make one: a rank must have shown something of this failure itself.
  if (r >= 0 && !own_) return std::nullopt;
  Finding f;
  f.rule = rules.rules()[ruleIndex];
  size_t seen = 0;
  for (int s : rule.evidence) {
    const SignalValue& v = values[static_cast<size_t>(s)];
    if (!v.value) continue;
    ++seen;
    for (const auto& e : v.evidence) {
      bool dup = std::any_of(f.evidence.begin(), f.evidence.end(), [&](const Evidence& o) {
        return o.source == e.source && o.line == e.line;
      });
      if (!dup) f.evidence.push_back(e);
    }
    if (!v.observed.empty()) f.observed.push_back(v.observed);
    if (v.step && !f.step) f.step = v.step;
  }
  for (const auto& v : values) {
    if (!v.value) continue;
    for (const auto& [k, val] : v.captures) f.captures.emplace(k, val);
  }
  if (f.evidence.empty()) {
    // Only non-evidence signals fired (unusual rule); show the first line any signal saw.
    for (const auto& v : values)
      if (v.value && !v.evidence.empty()) {
        f.evidence.push_back(v.evidence.front());
        break;
      }
  }
  // The share of the evidence signals seen, out of those the log could have shown together:
  // the alternatives to the wording it did show do not count against it.
  std::vector<char> named(rule.signals.size(), 0), taken(rule.signals.size(), 0);
  markNamed(rule.condition, named);
  markTaken(rule.condition, values, taken);
  size_t possible = 0;
  for (int s : rule.evidence) {
    auto i = static_cast<size_t>(s);
    if (values[i].value || !named[i] || taken[i]) ++possible;
  }
  f.confidence = possible == 0 ? 1.0 : static_cast<double>(seen) / possible;
  if (r >= 0) f.ranks.push_back(r);
  return f;
}

Diagnosis Diagnoser::State::finish() {
  if (pendingOpen) {
    processLine(pending);
    pending.clear();
    pendingOpen = false;
  }
  tracker.flush(finished);
  takeFinished();
  Diagnosis out;
  out.sources = sources;
  out.lines = totalLines;
  out.linesOutsideRanks = linesOutsideRanks;

  gatherRunWide();
  std::vector<int> rankKeys;
  for (const auto& [r, st] : ranks)
    if (r >= 0) rankKeys.push_back(r);
  for (size_t ri = 0; ri < rules.rules().size(); ++ri) {
    if (rules.rules()[ri]->fallback) continue;
    std::vector<Finding> perRank;
    for (int r : rankKeys)
      if (auto f = evaluate(ri, r)) perRank.push_back(std::move(*f));
    if (perRank.empty()) {
      if (auto f = evaluate(ri, -1)) out.findings.push_back(std::move(*f));
      continue;
    }
    // The same failure on several ranks is one finding that lists them; its evidence comes
    // from the rank that showed it first.
    // Where a rank showed the failure: its first own line (a run-wide fact printed by
    // another rank is the same line for every rank, and says nothing about who came first).
    auto anchor = [](const Finding& f) -> const Evidence& {
      for (const auto& e : f.evidence)
        if (e.rank == f.ranks.front()) return e;
      return f.evidence.front();
    };
    auto first = std::min_element(perRank.begin(), perRank.end(), [&](const Finding& a, const Finding& b) {
      return before(anchor(a), anchor(b));
    });
    std::vector<int> allRanks;
    std::map<int, Evidence> anchors;
    for (const auto& f : perRank) {
      allRanks.push_back(f.ranks.front());
      anchors[f.ranks.front()] = anchor(f);
    }
    std::sort(allRanks.begin(), allRanks.end());
    Finding merged = std::move(*first);
    merged.ranks = std::move(allRanks);
    merged.rankEvidence = std::move(anchors);
    merged.count = static_cast<int>(perRank.size());
    out.findings.push_back(std::move(merged));
  }

  std::shared_ptr<const Rule> fallback;
  for (const auto& r : rules.rules())
    if (r->fallback) fallback = r;
  exceptions.explain(out.findings, rules, matcher, fallback);

  std::set<int> ranksSeen;
  for (const auto& [r, st] : ranks)
    if (r >= 0) ranksSeen.insert(r);
  out.incident = buildIncident(out.findings, launcher, ranksSeen);
  orderFindings(out.findings, out.incident);
  return out;
}

}  // namespace denpex::core
