// One line of a training log, independent of any rule: the launcher prefix (which rank or host
// printed it), a timestamp, and the message that follows. Parsing never fails: a line that fits
// no format is a plain message. Pure functions; safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/parse/log_text.h"

namespace denpex::core {

// The longest line denpex reads whole: the bytes of a longer line past this many are skipped
// (no failure message is longer; a stream that never ends its line cannot grow memory). Line
// numbers and columns stay those of the input.
constexpr size_t kMaxLineBytes = size_t{1} << 20;

// One line after cleaning. Offsets in `message*` are into `clean.text`.
struct ParsedLine {
  uint32_t source = 0;    // which input (file) the line came from
  uint64_t lineNo = 0;    // 0-based line number in that input
  CleanLine clean;
  int rank = -1;          // -1: the line carries no rank
  std::string host;       // set by launchers that prefix a host name
  std::string timestamp;  // as printed, empty when none
  size_t messageBegin = 0;
  size_t bodyBegin = 0;   // after a timestamp that opens the message ("Oct 16 02:07:00 Traceback ...")

  // What the line says after the launcher's prefix (the timestamp included).
  std::string_view message() const {
    return std::string_view(clean.text).substr(std::min(messageBegin, clean.text.size()));
  }
  // The message without a leading timestamp: where a traceback header or an exception line starts.
  std::string_view body() const { return std::string_view(clean.text).substr(std::min(bodyBegin, clean.text.size())); }
};

// Parses the launcher prefix and timestamp of one raw line. Paste noise is removed first (with
// every clean byte still mapped to its raw offset): a Markdown quote ("> ") and bold ("**") around
// a pasted error. A tqdm progress bar that another line was glued onto stays in the message;
// the timestamp and the body are read after it.
ParsedLine parseLine(std::string_view raw, uint32_t source, uint64_t lineNo);
// The same into `out`, reusing its memory; the clean text may be a view of `raw` (cleanLineInto),
// so `out` is valid while `raw` is. A copy of it owns its bytes.
void parseLineInto(std::string_view raw, uint32_t source, uint64_t lineNo, ParsedLine& out);

// Whether `message` is a tqdm progress bar and nothing else: "  5%|▍   | 200/4443 [11:11<25:23,
// 2.1s/it]", a description before it and a postfix in its brackets included ("Epoch 0:  12%|█▏ |
// 12/100 [00:01<00:08, 10.5it/s, loss=2.31]"). tqdm writes each bar whole, so a bar is never the
// rest of a line that a terminal wrapped.
bool isProgressBar(std::string_view message);

// Masks the secrets in the line's clean text (see secrets.h), keeping its length, so offsets and
// the mapping to raw columns stay right; the line then owns its text. Returns whether anything
// was masked.
bool maskLineSecrets(ParsedLine& line);

}  // namespace denpex::core
