// Streaming diagnosis: per-rank signal state, metric windows and exception groups, turned into
// ordered findings at the end (see diagnoser.h).
#include "core/analyze/diagnoser.h"

#include "core/analyze/exception_groups.h"
#include "core/analyze/metric_signals.h"
#include "core/base/text.h"
#include "core/analyze/order.h"
#include "core/parse/launcher.h"
#include "core/parse/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <set>
#include <tuple>

namespace denpex::core {
namespace {

constexpr size_t kEvidenceTextMax = 400;

struct SignalHit {
  bool seen = false;
  Evidence evidence;
  std::vector<std::pair<std::string, std::string>> captures;
  uint64_t count = 0;
};

// The ranks one diagnosis keeps apart; the lines of any further rank are read as lines without
// a rank (docs/limits.md). Each rank costs a few kilobytes until its lines hit signals.
constexpr size_t kMaxRanks = 8192;

struct RankState {
  // [rule][signal], made when the rank's first line hits a signal of that rule: most ranks of a
  // big job hit a few signals of a few rules.
  std::vector<std::vector<SignalHit>> hits;
  Metrics metrics;
  std::string lastTimestamp;
};

bool evalCondition(const Condition& c, const std::vector<SignalValue>& values) {
  switch (c.op) {
    case Condition::Op::kSignal: return values[static_cast<size_t>(c.signal)].value;
    case Condition::Op::kNot: return !evalCondition(c.args[0], values);
    case Condition::Op::kAnd: return evalCondition(c.args[0], values) && evalCondition(c.args[1], values);
    case Condition::Op::kOr: return evalCondition(c.args[0], values) || evalCondition(c.args[1], values);
  }
  return false;
}

bool before(const Evidence& a, const Evidence& b) {
  return std::tie(a.source, a.line) < std::tie(b.source, b.line);
}

}  // namespace

struct Diagnoser::State {
  const RuleSet& rules;
  const Matcher& matcher;
  Options options;
  std::vector<std::string> sources;
  std::vector<int> sourceRanks;  // default rank per input, -1 for none
  LauncherTracker launcher;
  uint32_t source = 0;
  uint64_t lineNo = 0;
  uint64_t totalLines = 0;
  std::string pending;       // the start of a line whose '\n' has not come yet
  bool pendingOpen = false;  // a line has begun (pending may be empty: an empty start is a start)
  std::map<int, RankState> ranks;
  size_t rankCount = 0;           // ranks >= 0 in `ranks`
  uint64_t linesOutsideRanks = 0;  // lines of ranks past the world size or kMaxRanks, kept without a rank
  int worldSize = 0;               // the largest world size the log stated; 0 when none
  ExceptionGroups exceptions;
  TracebackTracker tracker;
  std::vector<Traceback> finished;  // scratch: tracebacks the tracker just finished
  // The previous line of the current input, for messages a terminal or a web page wrapped.
  ParsedLine previous;
  bool hasPrevious = false;
  // The rank of the line before (std::map nodes never move). A copy of the state (snapshot)
  // starts without it, so that it never points into the state it was copied from.
  struct RankCache {
    RankState* state = nullptr;
    int key = 0;
    RankCache() = default;
    RankCache(const RankCache&) {}
    RankCache& operator=(const RankCache&) {
      state = nullptr;
      return *this;
    }
  } lastRank;

  State(const RuleSet& r, const Matcher& m, Options o)
      : rules(r), matcher(m), options(o), exceptions(o.maxExceptionGroups) {}

  void takeFinished() {
    for (auto& tb : finished) exceptions.add(std::move(tb));
    finished.clear();
  }

  RankState& rank(int r) {
    if (lastRank.state && lastRank.key == r) return *lastRank.state;  // consecutive lines mostly share a rank
    lastRank.key = r;
    lastRank.state = &rankSlow(r);
    return *lastRank.state;
  }

  RankState& rankSlow(int r) {
    auto it = ranks.find(r);
    if (it != ranks.end()) return it->second;
    if (r >= 0) ++rankCount;
    return ranks[r];
  }

  // The rank a line is kept under: its own, unless the table is full and it is a new one.
  int admit(int r) {
    if (r < 0) return r;
    // A rank at or past the world size the log stated is no rank of this run.
    if (worldSize > 0 && r >= worldSize) {
      ++linesOutsideRanks;
      return -1;
    }
    if ((lastRank.state && lastRank.key == r) || rankCount < kMaxRanks || ranks.count(r)) return r;
    ++linesOutsideRanks;
    return -1;
  }

  static const SignalHit* hitOf(const RankState* st, size_t rule, size_t signal) {
    if (!st || rule >= st->hits.size() || signal >= st->hits[rule].size()) return nullptr;
    return &st->hits[rule][signal];
  }

  void addMetrics(const ParsedLine& line, RankState& st, const MetricSample& s) {
    Metrics& m = st.metrics;
    m.any = true;
    if (s.loss || s.gradNorm) ++m.counter;
    long long step = s.step ? *s.step : m.counter;
    // Fills a sample in place: its strings keep their memory, so a metric line in steady state
    // allocates nothing.
    auto fill = [&](Sample& out, double v) {
      out.step = step;
      out.value = v;
      out.source = line.source;
      out.line = line.lineNo;
      out.text.assign(line.clean.text.substr(0, kEvidenceTextMax));
      out.rawEnd = line.clean.toRawEnd(line.clean.text.size());
      out.rank = line.rank;
      out.timestamp = line.timestamp.empty() ? st.lastTimestamp : line.timestamp;
      out.timeFromEarlierLine = line.timestamp.empty() && !st.lastTimestamp.empty();
    };
    auto fillOptional = [&](std::optional<Sample>& out, double v) {
      if (!out) out.emplace();
      fill(*out, v);
    };
    const std::optional<double>* fields[kMetricCount] = {&s.loss, &s.gradNorm, &s.lr, &s.lossScale};
    for (int id = 0; id < kMetricCount; ++id) {
      if (*fields[id] && !std::isfinite(**fields[id]) && !m.firstNonfinite[id]) fillOptional(m.firstNonfinite[id], **fields[id]);
    }
    if (s.gradNorm && !m.firstNonfinite[kLoss] && std::isfinite(*s.gradNorm)) {
      // A window of the last samples: the oldest one's memory is reused for the newest.
      auto& window = m.gradWindow ? *m.gradWindow : m.gradWindow.emplace();
      if (window.size() >= options.metricWindow && !window.empty()) {
        window.push_back(std::move(window.front()));
        window.pop_front();
      } else {
        window.emplace_back();
      }
      fill(window.back(), *s.gradNorm);
      while (window.size() > options.metricWindow) window.pop_front();
    }
    if (s.lossScale && std::isfinite(*s.lossScale)) {
      double v = *s.lossScale;
      if (!m.firstScale) fillOptional(m.firstScale, v);
      if (m.lastScale && v < m.lastScale->value) ++m.scaleDecreases;
      if (!m.minScale || v < m.minScale->value) fillOptional(m.minScale, v);
      fillOptional(m.lastScale, v);
    }
  }

  // The stateful half of reading a line (see LineFacts for the pure half).
  void processLine(std::string_view raw) {
    const ParsedLine* prev = hasPrevious ? &previous : nullptr;
    int defaultRank = source < sourceRanks.size() ? sourceRanks[source] : -1;
    LineFacts facts = analyzeLine(matcher, raw, source, lineNo, defaultRank, prev);
    apply(facts);
  }

  void apply(LineFacts& facts) {
    ParsedLine& line = facts.line;
    if (facts.worldSize > worldSize) worldSize = facts.worldSize;
    line.rank = admit(line.rank);
    lineNo = line.lineNo + 1;
    ++totalLines;
    if (facts.launcher || launcher.isReading()) launcher.add(line);
    RankState& st = rank(line.rank);
    if (!line.timestamp.empty()) st.lastTimestamp = line.timestamp;
    // The tracker reads a line that may start a record, and every line of a rank whose
    // traceback is open; to it, other lines are no-ops.
    if (facts.traceback || tracker.hasOpen(line.source, line.rank)) {
      tracker.add(line, finished);
      if (!finished.empty()) takeFinished();
    }
    if (line.message().empty()) {
      hasPrevious = false;
      return;
    }
    for (auto& hit : facts.hits)
      record(st, line, hit, line.clean.toRaw(line.messageBegin + hit.begin), line.clean.toRawEnd(line.messageBegin + hit.end),
             line.clean.text);
    for (auto& wrapped : facts.wrapped)
      record(rank(previous.rank), previous, wrapped.hit, wrapped.begin, wrapped.end, wrapped.shown);
    if (!facts.metrics.empty()) addMetrics(line, st, facts.metrics);
    previous = line;  // a copy: the facts' memory goes back to be reused
    hasPrevious = true;
  }

  void record(RankState& st, const ParsedLine& line, Matcher::Hit& hit, uint32_t begin, uint32_t end, std::string_view text) {
    if (st.hits.empty()) st.hits.resize(rules.rules().size());
    auto& ruleHits = st.hits[hit.rule];
    if (ruleHits.empty()) ruleHits.resize(rules.rules()[hit.rule]->signals.size());
    SignalHit& h = ruleHits[static_cast<size_t>(hit.signal)];
    ++h.count;
    if (h.seen) return;
    h.seen = true;
    Evidence& e = h.evidence;
    e.source = line.source;
    e.line = line.lineNo;
    e.begin = begin;
    e.end = end;
    e.signal = rules.rules()[hit.rule]->signals[static_cast<size_t>(hit.signal)].name;
    e.text = std::string(text.substr(0, kEvidenceTextMax));
    e.rank = line.rank;
    e.timestamp = line.timestamp.empty() ? st.lastTimestamp : line.timestamp;
    e.timeFromEarlierLine = line.timestamp.empty() && !st.lastTimestamp.empty();
    h.captures = std::move(hit.captures);
  }

  // A run-wide signal's earliest hit on any rank, and its count over all of them.
  struct RunWideHit {
    const SignalHit* first = nullptr;
    uint64_t count = 0;
  };
  // [rule][signal], filled by finish() for the signals that declare `scope: run`.
  std::vector<std::vector<RunWideHit>> runWide;

  void gatherRunWide() {
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

  // Evaluates one rule for one rank (or, with rank -1, for the lines that carry no rank).
  std::optional<Finding> evaluate(size_t ruleIndex, int r) {
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
    f.confidence = rule.evidence.empty() ? 1.0 : static_cast<double>(seen) / rule.evidence.size();
    if (r >= 0) f.ranks.push_back(r);
    return f;
  }

  Diagnosis finish() {
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
};

Diagnoser::Diagnoser(const RuleSet& rules, const Matcher& matcher, Options options)
    : state_(std::make_unique<State>(rules, matcher, options)) {}

Diagnoser::~Diagnoser() = default;

void Diagnoser::beginSource(std::string name, int defaultRank) {
  if (state_->pendingOpen) {
    state_->processLine(state_->pending);
    state_->pending.clear();
    state_->pendingOpen = false;
  }
  state_->sources.push_back(std::move(name));
  state_->sourceRanks.resize(state_->sources.size() - 1, -1);
  state_->sourceRanks.push_back(defaultRank);
  state_->source = static_cast<uint32_t>(state_->sources.size() - 1);
  state_->lineNo = 0;
  state_->hasPrevious = false;
}

void Diagnoser::addText(std::string_view chunk) {
  State& st = *state_;
  if (st.sources.empty()) st.sources.push_back("<input>");
  size_t start = 0;
  // A partial line is kept up to kMaxLineBytes: the rest of a longer one is skipped.
  auto keep = [&](std::string_view part) {
    if (st.pending.size() < kMaxLineBytes) st.pending.append(part.substr(0, kMaxLineBytes - st.pending.size()));
  };
  while (start < chunk.size()) {
    size_t nl = chunk.find('\n', start);
    if (nl == std::string_view::npos) {
      keep(chunk.substr(start));
      st.pendingOpen = true;
      return;
    }
    if (!st.pendingOpen) {
      st.processLine(chunk.substr(start, nl - start));
    } else {
      keep(chunk.substr(start, nl - start));
      st.processLine(st.pending);
      st.pending.clear();
      st.pendingOpen = false;
    }
    start = nl + 1;
  }
}

void Diagnoser::addLine(std::string_view line) {
  if (state_->sources.empty()) state_->sources.push_back("<input>");
  state_->processLine(line);
}

void Diagnoser::addFacts(std::vector<LineFacts>& lines) {
  if (state_->sources.empty()) state_->sources.push_back("<input>");
  for (auto& facts : lines) state_->apply(facts);
}

uint32_t Diagnoser::currentSource() const { return state_->source; }

int Diagnoser::currentDefaultRank() const {
  return state_->source < state_->sourceRanks.size() ? state_->sourceRanks[state_->source] : -1;
}

uint64_t Diagnoser::nextLineNo() const { return state_->lineNo; }

const ParsedLine* Diagnoser::previousLine() const { return state_->hasPrevious ? &state_->previous : nullptr; }

bool Diagnoser::hasPartialLine() const { return state_->pendingOpen; }

Diagnosis Diagnoser::finish() { return state_->finish(); }

Diagnosis Diagnoser::snapshot() const {
  State copy(*state_);
  return copy.finish();
}

uint64_t Diagnoser::linesSeen() const { return state_->totalLines; }

Diagnosis diagnoseText(const RuleSet& rules, const Matcher& matcher, std::string_view text,
                       std::string sourceName) {
  Diagnoser d(rules, matcher);
  d.beginSource(std::move(sourceName));
  d.addText(text);
  return d.finish();
}

}  // namespace denpex::core
