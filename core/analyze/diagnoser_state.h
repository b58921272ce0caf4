// The diagnoser's state (see diagnoser.h), shared by diagnoser.cpp (reading lines into it) and
// diagnoser_verdict.cpp (turning it into findings at the end). Internal to core/analyze.
#pragma once

#include "core/analyze/diagnoser.h"

#include "core/analyze/exception_groups.h"
#include "core/analyze/metric_signals.h"
#include "core/parse/launcher.h"
#include "core/parse/metrics.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace denpex::core {
namespace diagnoser_detail {

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

bool evalCondition(const Condition& c, const std::vector<SignalValue>& values);
// Whether evidence `a` comes first in the input.
bool before(const Evidence& a, const Evidence& b);

}  // namespace diagnoser_detail

using namespace diagnoser_detail;

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
  // While a block of facts is applied it is the block's own line (previousRef): copying every
  // line (its text, its raw offsets) cost more than any other step of apply. keepPrevious()
  // copies the last one when the block is done, before its facts' memory goes back for reuse.
  ParsedLine previous;
  const ParsedLine* previousRef = nullptr;
  bool hasPrevious = false;
  const ParsedLine& previousLine() const { return previousRef ? *previousRef : previous; }
  void keepPrevious() {
    if (!previousRef) return;
    previous = *previousRef;
    previousRef = nullptr;
  }
  // Each rank's state by its number, for ranks below kIndexedRanks (and -1, at slot 0). The
  // lines of a multi-rank log interleave their ranks, so the rank of the line before was seldom
  // this line's, and searching the map for nearly every line was most of what apply cost (apply
  // runs one block at a time, whatever the number of cores). std::map nodes never move. A copy of
  // the state (snapshot) starts with an empty index, so that it never points into the state it
  // was copied from.
  static constexpr int kIndexedRanks = 4096;
  struct RankIndex {
    std::vector<RankState*> slots;
    RankIndex() = default;
    RankIndex(const RankIndex&) {}
    RankIndex& operator=(const RankIndex&) {
      slots.clear();
      return *this;
    }
  } rankIndex;

  State(const RuleSet& r, const Matcher& m, Options o)
      : rules(r), matcher(m), options(o), exceptions(o.maxExceptionGroups) {}

  void takeFinished() {
    // An exception Python reported and went on from is no failure of the run.
    for (auto& tb : finished)
      if (!tb.ignored) exceptions.add(std::move(tb));
    finished.clear();
  }

  RankState& rank(int r) {
    if (r < -1 || r >= kIndexedRanks) return rankSlow(r);
    auto slot = static_cast<size_t>(r + 1);
    if (slot >= rankIndex.slots.size()) rankIndex.slots.resize(std::max<size_t>(slot + 1, 2 * rankIndex.slots.size()), nullptr);
    RankState*& state = rankIndex.slots[slot];
    if (!state) state = &rankSlow(r);
    return *state;
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
    if (rankCount < kMaxRanks || ranks.count(r)) return r;
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
      if (!m.firstScale) m.firstScale = v;
      if (m.lastScale && v < *m.lastScale) ++m.scaleDecreases;
      if (!m.minScale || v < m.minScale->value) fillOptional(m.minScale, v);
      m.lastScale = v;
    }
  }

  // The stateful half of reading a line (see LineFacts for the pure half).
  void processLine(std::string_view raw) {
    const ParsedLine* prev = hasPrevious ? &previousLine() : nullptr;
    int defaultRank = source < sourceRanks.size() ? sourceRanks[source] : -1;
    LineFacts facts = analyzeLine(matcher, raw, source, lineNo, defaultRank, prev);
    apply(facts);
    keepPrevious();
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
      previousRef = nullptr;
      return;
    }
    for (auto& hit : facts.hits)
      record(st, line, hit, line.clean.toRaw(line.messageBegin + hit.begin), line.clean.toRawEnd(line.messageBegin + hit.end),
             line.clean.text);
    for (auto& wrapped : facts.wrapped)
      record(rank(previousLine().rank), previousLine(), wrapped.hit, wrapped.begin, wrapped.end, wrapped.shown);
    if (!facts.metrics.empty()) addMetrics(line, st, facts.metrics);
    previousRef = &line;  // the caller calls keepPrevious() before these facts go
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

  void gatherRunWide();
  // Evaluates one rule for one rank (or, with rank -1, for the lines that carry no rank).
  std::optional<Finding> evaluate(size_t ruleIndex, int r);
  Diagnosis finish();
};

}  // namespace denpex::core
