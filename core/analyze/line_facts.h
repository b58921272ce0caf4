// The half of reading a log line that depends only on the line itself (and on the line before
// it, for a message a terminal or a web page wrapped): its parse, the rule patterns it matches,
// the metrics it prints. Pure and thread-safe, so a caller may compute the facts of many lines
// ahead, on other threads, and hand them to one Diagnoser in order (Diagnoser::addFacts); the
// result is the same as feeding the text (Diagnoser::addText), byte for byte.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/parse/log_line.h"
#include "core/parse/metrics.h"
#include "core/rules/matcher.h"
#include "core/rules/prefilter.h"

namespace denpex::core {

struct LineFacts {
  ParsedLine line;
  std::vector<Matcher::Hit> hits;  // in the line's own message
  // Hits that cross the break between the line before and this one: shown on the line before.
  struct Wrapped {
    Matcher::Hit hit;
    uint32_t begin = 0, end = 0;  // raw byte span on the line before
    std::string shown;            // the evidence text: the line before with this message appended
  };
  std::vector<Wrapped> wrapped;
  MetricSample metrics;
  bool launcher = false;  // LauncherTracker::concerns(message)
  bool traceback = false;  // TracebackTracker::startsRecord(body), or a library's notice of a logged exception
  // The world size the line states ("WORLD_SIZE=8", "world size: 8"), read on lines without a
  // rank and rank 0's (the launcher's and the first rank's); 0 when none.
  int worldSize = 0;
};

// `previous`: the line before in the same input when its message was not empty, else null.
// `defaultRank` is given to a line that names no rank (a per-rank log file), unless it is -1.
LineFacts analyzeLine(const Matcher& matcher, std::string_view raw, uint32_t source, uint64_t lineNo,
                      int defaultRank, const ParsedLine* previous);

// Every line's clean text has its secrets masked (see secrets.h) before it is matched or kept.
//
// The facts of every line of `text`, into `out` (whose elements' memory is reused), which starts at a line start in input `source` and whose
// first line is number `firstLineNo`. A last line without '\n' counts (the end of an input).
// `before` is the line before the first one in the same input when it had a message (else null).
// With a prefilter (and the calling thread's scratch), one Vectorscan pass over the block picks
// the patterns each line may match; the facts are the same as without.
void analyzeLines(const Matcher& matcher, std::string_view text, uint32_t source, uint64_t firstLineNo, int defaultRank,
                  const ParsedLine* before, std::vector<LineFacts>& out, const Prefilter* prefilter = nullptr,
                  Prefilter::Scratch* scratch = nullptr);

// What the line prefilter looks for besides the patterns, so that the one pass also tells which
// lines need a closer look: the launcher's phrases (lines the launcher must read), the words
// secrets come with (lines to mask: secretTriggers(), without case), the notices of a logged
// exception, and the words of a stated world size (without case).
const std::vector<PrefilterLiteral>& lineLiterals();

// The prefilter analyzeLines works best with: the matcher's patterns and lineLiterals(). Loaded from `saved` (one
// saved at build time for the shipped rules) when that was made for these patterns, else
// compiled; `portable` as in Prefilter's constructor.
std::unique_ptr<Prefilter> makeLinePrefilter(const Matcher& matcher, std::string_view saved = {}, bool portable = false);

// Whether `next` looks like the rest of `prev`, wrapped by a terminal or a web page.
bool continuesLine(const ParsedLine& prev, const ParsedLine& next);

}  // namespace denpex::core
