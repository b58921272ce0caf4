// Log text: the one place that knows how a byte offset becomes a position.
//
// Positions in LSP are (line, character) where "character" is counted in UTF-16 code units by
// default, or in UTF-8 bytes when the client negotiated `positionEncoding: utf-8`. Everything
// else in denpex counts bytes; conversions happen here and nowhere else.
//
// Training logs are also full of terminal noise: ANSI colour escapes and carriage-return
// progress bars (tqdm redraws a line many times with '\r'). `cleanLine` removes that noise and
// keeps, for every byte of the clean text, the offset of the byte it came from, so that a match
// found in the clean text can be shown on the original line.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace denpex::core {

enum class PositionEncoding { kUtf8, kUtf16 };

struct TextPosition {
  uint32_t line = 0;       // 0-based
  uint32_t character = 0;  // code units of the chosen encoding, 0-based
  bool operator==(const TextPosition&) const = default;
};

// Column conversions within one line. Invalid UTF-8 bytes count as one code unit each in both
// encodings, so a position is never lost on a binary-ish line.
uint32_t utf16Column(std::string_view line, size_t byteColumn);
size_t byteColumnFromUtf16(std::string_view line, uint32_t utf16Column);

// An index of line starts over a whole text. The text must outlive the index.
// Lines end at '\n'; a '\r' before it belongs to the line's content but not to its columns that
// callers usually care about (see `lineText`, which drops it).
// Immutable once made, and cheap to copy: indexes made from one another share their starts.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  // The index of `text`, made from `before` (the index of the text before one edit): bytes
  // [begin, begin + removed) of the old text were replaced by `inserted` bytes. Costs the lines
  // after the edit, not a scan of the whole text; text added at the end (a log that grows) costs
  // its own lines only, written after `before`'s starts in their shared array while no other
  // index has written there. With nothing removed or inserted, `text` holds the same bytes
  // elsewhere and the starts are shared as they are.
  LineIndex(std::string_view text, const LineIndex& before, size_t begin, size_t removed, size_t inserted);

  size_t lineCount() const { return count_; }
  std::string_view text() const { return text_; }
  // Byte offset where `line` begins; `text.size()` for a line past the end.
  size_t lineStart(size_t line) const;
  // The line's text without its '\n' (and without a trailing '\r').
  std::string_view lineText(size_t line) const;
  // The line containing byte `offset` (offsets past the end map to the last line).
  size_t lineOf(size_t offset) const;

  TextPosition toPosition(size_t offset, PositionEncoding enc) const;
  // Clamps: a character past the end of its line maps to the line's end, a line past the end
  // maps to the end of the text.
  size_t toOffset(TextPosition pos, PositionEncoding enc) const;

 private:
  struct Starts;
  // Takes `starts` as this index's own, with room for more.
  void own(std::vector<size_t>&& starts);

  std::string_view text_;
  std::shared_ptr<Starts> shared_;  // may hold more starts than this index's, added by later ones
  const size_t* starts_ = nullptr;  // shared_'s array
  size_t count_ = 0;
};

// A line with ANSI escapes removed and carriage-return redraws collapsed to the last non-empty
// segment, and every byte that is not part of well-formed UTF-8 replaced by U+FFFD (so every
// output format can print it; the three bytes of each replacement map to the byte they replace).
// `origin[i]` is the byte offset in the raw line of clean byte i, with one extra entry
// (the raw offset just past the last kept byte) so that end offsets map too. Most lines have no
// terminal noise: then `origin` stays empty and offsets map to themselves.
struct CleanLine {
  // The clean bytes. A line that needed no cleaning is a view of the raw line itself (valid while
  // the caller's text is: see cleanLineInto); otherwise, and in every copy, they are `owned`.
  std::string_view text;
  std::vector<uint32_t> origin;
  std::string owned;

  CleanLine() = default;
  CleanLine(const CleanLine& o) : origin(o.origin), owned(o.text) { text = owned; }
  CleanLine& operator=(const CleanLine& o) {
    if (this != &o) {
      origin = o.origin;
      owned.assign(o.text.data(), o.text.size());
      text = owned;
    }
    return *this;
  }
  CleanLine(CleanLine&& o) noexcept { *this = std::move(o); }
  CleanLine& operator=(CleanLine&& o) noexcept {
    if (this != &o) {
      bool inOwned = o.text.data() == o.owned.data();
      origin = std::move(o.origin);
      owned = std::move(o.owned);
      text = inOwned ? std::string_view(owned) : o.text;
      o.text = {};
    }
    return *this;
  }
  // Makes the bytes its own (before they are changed, or to outlive the raw text).
  void own() {
    if (text.data() == owned.data() && text.size() == owned.size()) return;
    owned.assign(text.data(), text.size());
    text = owned;
  }

  uint32_t toRaw(size_t cleanOffset) const {
    if (origin.empty()) return static_cast<uint32_t>(std::min(cleanOffset, text.size()));
    return origin[cleanOffset < origin.size() ? cleanOffset : origin.size() - 1];
  }
  // For the end of a span: just past the raw byte of the span's last clean byte, so that an
  // escape sequence after the span is not included.
  uint32_t toRawEnd(size_t cleanEnd) const {
    if (cleanEnd == 0 || origin.size() < 2) return toRaw(cleanEnd);
    size_t last = std::min(cleanEnd, origin.size() - 1) - 1;
    return origin[last] + 1;
  }
};

// Owns its bytes.
CleanLine cleanLine(std::string_view raw);
// The same into `out`, reusing its memory (a caller cleaning many lines allocates once). A line
// with nothing to clean is not copied: `out.text` is then a view of `raw`.
void cleanLineInto(std::string_view raw, CleanLine& out);

// Removes clean bytes [pos, pos + n) and keeps every remaining byte's raw offset.
void eraseClean(CleanLine& line, size_t pos, size_t n);

}  // namespace denpex::core
