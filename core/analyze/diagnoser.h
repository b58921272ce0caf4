// Diagnoser: lines in, findings out.
//
// Not thread-safe: one thread at a time feeds it (io's parallel feed hands it from worker to
// worker under a lock). `rules` and `matcher` must outlive it and are only read, so one compiled
// rule set can serve many diagnosers on many threads. Call finish() once at the end, or
// snapshot() any number of times for the diagnosis so far.
//
// Streams: feed it text in chunks of any size (or line by line) and call finish(). It keeps
// per-rank state (each signal's first hit, a short window of metric samples, open tracebacks,
// one record per distinct exception), never the log itself, so memory does not grow with the
// log's length. Scanning never fails: an odd line is just a line.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analyze/diagnosis.h"
#include "core/analyze/line_facts.h"
#include "core/rules/matcher.h"
#include "core/rules/rule.h"

namespace denpex::core {

class Diagnoser {
 public:
  struct Options {
    size_t metricWindow = 32;        // grad-norm samples kept before the loss turns non-finite
    size_t maxExceptionGroups = 256; // distinct exceptions remembered; later ones are counted only
  };

  Diagnoser(const RuleSet& rules, const Matcher& matcher, Options options);
  Diagnoser(const RuleSet& rules, const Matcher& matcher) : Diagnoser(rules, matcher, Options{}) {}
  ~Diagnoser();

  // Starts a new input; line numbers restart at 0. Lines of this input that carry no rank of
  // their own get `defaultRank` (a per-rank log file), unless it is -1.
  void beginSource(std::string name, int defaultRank = -1);
  // Names input `index` afresh (a text diagnosed before the name of its document was known).
  void renameSource(uint32_t index, std::string name);
  // Feeds bytes; lines may be split across calls.
  void addText(std::string_view chunk);
  // Feeds one complete line (without its '\n').
  void addLine(std::string_view line);
  // Feeds lines whose facts were computed ahead (analyzeLines, perhaps on other threads), in
  // order: the next line expected is number nextLineNo() of input currentSource(). Call it after
  // beginSource() or after text that ended with '\n'.
  void addFacts(std::vector<LineFacts>& lines);
  uint32_t currentSource() const;
  // The index the next beginSource() gives its input.
  uint32_t nextSource() const;
  int currentDefaultRank() const;
  uint64_t nextLineNo() const;
  // The last line fed when it had a message (a wrapped message may continue on the next line),
  // else null. Valid until the next call that feeds text.
  const ParsedLine* previousLine() const;
  // Whether the text fed so far ends inside a line (addText keeps that part until its '\n').
  bool hasPartialLine() const;
  Diagnosis finish();
  // The diagnosis of everything fed so far (a partial last line included), leaving the
  // diagnoser ready for more text: a log that grows is diagnosed by feeding only what was
  // appended. Costs a copy of the per-rank state, never of the log.
  Diagnosis snapshot() const;
  uint64_t linesSeen() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Convenience for whole texts already in memory.
Diagnosis diagnoseText(const RuleSet& rules, const Matcher& matcher, std::string_view text,
                       std::string sourceName = "<input>");

}  // namespace denpex::core
