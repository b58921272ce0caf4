// Finding: one failure the log shows, with the lines that show it. Plain values, copyable,
// no behaviour beyond naming themselves.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/parse/traceback.h"
#include "core/rules/rule.h"

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
  // The line printed no time of its own: `timestamp` is the last one its rank printed before
  // it (good for ordering, not to show as the time of this line).
  bool timeFromEarlierLine = false;
};

// A span of a source file: 0-based line, byte columns.
struct SourceSpan {
  uint64_t line = 0;
  uint32_t begin = 0, end = 0;
};

struct Finding {
  std::shared_ptr<const Rule> rule;
  std::vector<Evidence> evidence;  // evidence[0] is where the finding is shown; never empty
  std::vector<int> ranks;          // ranks that printed it, ascending; empty when unknown
  std::map<std::string, std::string> captures;
  std::vector<std::string> observed;  // the fingerprint as seen in this log, one fact a line
  std::optional<long long> step;      // the training step where the failure showed
  std::optional<Frame> userFrame;     // the user's innermost frame in its traceback
  std::string exceptionType;
  std::string exceptionMessage;
  std::string messageTemplate;  // fallback findings: the message with variable parts masked
  int count = 1;                // how many times the same failure was seen
  double confidence = 1.0;      // share of the evidence signals seen, alternatives to the wording seen left out
  std::map<int, Evidence> rankEvidence;  // each rank's first line of this failure
  // Checks on a script: where it casts the trained parameters to float16, in the file userFrame
  // names (an edit may undo the cast there). Never set for a log.
  std::optional<SourceSpan> float16Cast;
};

// The finding's name in one line: the rule's title, or for the fallback the exception itself.
std::string verdict(const Finding& finding);

// Replaces the variable parts of a message (numbers, hex addresses, quoted paths) with
// placeholders, so that the same failure on many ranks or steps groups together.
std::string maskMessage(std::string_view message);

}  // namespace denpex::core
