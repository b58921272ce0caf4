// Diagnoser: lines in, findings out.
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

#include "core/incident.h"
#include "core/log_parser.h"
#include "core/matcher.h"
#include "core/rule.h"

namespace denpex::core {

struct Evidence {
  uint32_t source = 0;
  uint64_t line = 0;        // 0-based
  uint32_t begin = 0;       // byte columns in the original (raw) line
  uint32_t end = 0;
  std::string signal;       // the rule signal that put it here
  std::string text;         // the cleaned line, cut to a readable length
  int rank = -1;
  std::string timestamp;
};

struct Finding {
  std::shared_ptr<const Rule> rule;
  std::vector<Evidence> evidence;  // evidence[0] is where the finding is shown
  std::vector<int> ranks;          // ranks that printed it, ascending; empty when unknown
  std::map<std::string, std::string> captures;
  std::vector<std::string> observed;  // the fingerprint as seen in this log, one fact a line
  std::optional<long long> step;      // the training step where the failure showed
  std::optional<Frame> userFrame;     // the user's innermost frame in its traceback
  std::string exceptionType;
  std::string exceptionMessage;
  std::string messageTemplate;  // fallback findings: the message with variable parts masked
  int count = 1;                // how many times the same failure was seen
  double confidence = 1.0;      // share of the rule's evidence signals that were seen
  std::map<int, Evidence> rankEvidence;  // each rank's first line of this failure
  bool initiating = false;               // the incident's initiating failure
  std::string collateralReason;          // set when the incident finds it only follows another rank

  // The rule's role, unless the incident showed this finding to be collateral.
  Role role() const { return collateralReason.empty() ? rule->role : Role::kCollateral; }
};

struct Diagnosis {
  std::vector<std::string> sources;  // names of the inputs, indexed by Evidence::source
  std::vector<Finding> findings;     // the initiating failure first, then root causes, symptoms, collateral
  uint64_t lines = 0;
  Incident incident;                 // across ranks; empty for a single-process log
};

// Replaces the variable parts of a message (numbers, hex addresses, quoted paths) with
// placeholders, so that the same failure on many ranks or steps groups together.
std::string maskMessage(std::string_view message);

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
  // Feeds bytes; lines may be split across calls.
  void addText(std::string_view chunk);
  // Feeds one complete line (without its '\n').
  void addLine(std::string_view line);
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
