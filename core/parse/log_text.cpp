// Line index, column conversions and terminal-noise cleaning (see log_text.h).
#include "core/parse/log_text.h"

#include <string.h>  // memrchr

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <atomic>

namespace denpex::core {
namespace {

// Length of the UTF-8 sequence starting at s[i], or 1 for an invalid or truncated one.
size_t sequenceLength(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (i + len > s.size()) return 1;
  for (size_t k = 1; k < len; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  }
  return len;
}

std::string_view dropCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

uint32_t utf16Column(std::string_view line, size_t byteColumn) {
  byteColumn = std::min(byteColumn, line.size());
  uint32_t units = 0;
  for (size_t i = 0; i < byteColumn;) {
    size_t len = sequenceLength(line, i);
    units += len == 4 ? 2 : 1;  // code points above U+FFFF take a surrogate pair
    i += len;
  }
  return units;
}

size_t byteColumnFromUtf16(std::string_view line, uint32_t utf16Col) {
  uint32_t units = 0;
  size_t i = 0;
  while (i < line.size() && units < utf16Col) {
    size_t len = sequenceLength(line, i);
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return i;
}

namespace {

// Appends the start of every line that begins after a '\n' in text[from, to), shifted by `base`.
void addStarts(std::string_view text, size_t from, size_t to, std::vector<size_t>& starts) {
  for (const char* p = text.data() + from, *end = text.data() + to; p < end; ++p) {
    p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!p) break;
    starts.push_back(static_cast<size_t>(p - text.data()) + 1);
  }
}

}  // namespace

// The starts of indexes made from one another. Written once up to `used`; an index made by an
// append writes past `used` and moves it on, so the starts an older index reads never change.
struct LineIndex::Starts {
  std::unique_ptr<size_t[]> data;
  size_t capacity = 0;
  std::atomic<size_t> used{0};
};

void LineIndex::own(std::vector<size_t>&& starts) {
  shared_ = std::make_shared<Starts>();
  // Room to grow by half again: untouched, the room costs address space only.
  shared_->capacity = starts.size() + starts.size() / 2 + 1024;
  shared_->data.reset(new size_t[shared_->capacity]);
  std::copy(starts.begin(), starts.end(), shared_->data.get());
  shared_->used.store(starts.size(), std::memory_order_release);
  starts_ = shared_->data.get();
  count_ = starts.size();
}

LineIndex::LineIndex(std::string_view text) : text_(text) {
  std::vector<size_t> starts;
  starts.reserve(text.size() / 64 + 1);
  starts.push_back(0);
  addStarts(text, 0, text.size(), starts);
  own(std::move(starts));
}

LineIndex::LineIndex(std::string_view text, const LineIndex& before, size_t begin, size_t removed, size_t inserted)
    : text_(text) {
  const size_t* first = before.starts_;
  const size_t* last = before.starts_ + before.count_;
  if (removed == 0 && inserted == 0) {
    shared_ = before.shared_;
    starts_ = before.starts_;
    count_ = before.count_;
    return;
  }
  if (removed == 0 && begin == before.text_.size() && before.shared_) {
    // Appended at the end: every start stays, the new text adds its own.
    std::vector<size_t> added;
    addStarts(text, begin, begin + inserted, added);
    Starts& s = *before.shared_;
    size_t expected = before.count_;
    if (added.size() <= s.capacity - before.count_ &&
        s.used.compare_exchange_strong(expected, before.count_ + added.size(), std::memory_order_acq_rel)) {
      std::copy(added.begin(), added.end(), s.data.get() + before.count_);
      shared_ = before.shared_;
      starts_ = s.data.get();
      count_ = before.count_ + added.size();
      return;
    }
    std::vector<size_t> starts;
    starts.reserve(before.count_ + added.size());
    starts.assign(first, last);
    starts.insert(starts.end(), added.begin(), added.end());
    own(std::move(starts));
    return;
  }
  // Lines that start at or before the edit keep their starts; the inserted text adds its own;
  // lines after the removed part move by what the edit added or took.
  size_t removedEnd = begin + removed;
  const size_t* keep = std::upper_bound(first, last, begin);
  std::vector<size_t> starts;
  starts.reserve(before.count_ + 16);
  starts.assign(first, keep);
  addStarts(text, begin, begin + inserted, starts);
  const size_t* after = std::upper_bound(first, last, removedEnd);
  for (const size_t* it = after; it != last; ++it) starts.push_back(*it - removed + inserted);
  own(std::move(starts));
}

size_t LineIndex::lineStart(size_t line) const {
  return line < count_ ? starts_[line] : text_.size();
}

std::string_view LineIndex::lineText(size_t line) const {
  if (line >= count_) return {};
  size_t begin = starts_[line];
  size_t end = line + 1 < count_ ? starts_[line + 1] - 1 : text_.size();
  return dropCr(text_.substr(begin, end - begin));
}

size_t LineIndex::lineOf(size_t offset) const {
  const size_t* it = std::upper_bound(starts_, starts_ + count_, offset);
  return static_cast<size_t>(it - starts_) - 1;
}

TextPosition LineIndex::toPosition(size_t offset, PositionEncoding enc) const {
  offset = std::min(offset, text_.size());
  size_t line = lineOf(offset);
  size_t col = offset - starts_[line];
  std::string_view text = lineText(line);
  uint32_t character = enc == PositionEncoding::kUtf16
                           ? utf16Column(text, col)
                           : static_cast<uint32_t>(std::min(col, text.size()));
  return {static_cast<uint32_t>(line), character};
}

size_t LineIndex::toOffset(TextPosition pos, PositionEncoding enc) const {
  if (pos.line >= count_) return text_.size();
  std::string_view text = lineText(pos.line);
  size_t col = enc == PositionEncoding::kUtf16 ? byteColumnFromUtf16(text, pos.character)
                                               : std::min<size_t>(pos.character, text.size());
  return starts_[pos.line] + col;
}

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), 0 when there is none there.
size_t wellFormedLength(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c == 0xE0) len = 3, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC) len = 3;
  else if (c == 0xED) len = 3, hi = 0x9F;
  else if (c >= 0xEE && c <= 0xEF) len = 3;
  else if (c == 0xF0) len = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) len = 4;
  else if (c == 0xF4) len = 4, hi = 0x8F;
  else return 0;
  if (i + len > s.size() || b(1) < lo || b(1) > hi) return 0;
  for (size_t k = 2; k < len; ++k)
    if ((b(k) & 0xC0) != 0x80) return 0;
  return len;
}

bool wellFormed(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t len = wellFormedLength(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// What a line holds that cleaning must see: terminal noise (ESC, CR, BS) and bytes outside
// ASCII (which may be ill-formed UTF-8). One pass, 16 bytes at a time.
struct Noise {
  bool terminal = false;
  bool nonAscii = false;
};
Noise scanNoise(std::string_view s) {
  Noise n;
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i esc = _mm_set1_epi8(0x1B), cr = _mm_set1_epi8('\r'), bs = _mm_set1_epi8('\b');
  for (; i + 16 <= s.size(); i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    __m128i t = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, esc), _mm_cmpeq_epi8(v, cr)), _mm_cmpeq_epi8(v, bs));
    n.terminal |= _mm_movemask_epi8(t) != 0;
    n.nonAscii |= _mm_movemask_epi8(v) != 0;
  }
#endif
  for (; i < s.size(); ++i) {
    char c = s[i];
    n.terminal |= c == 0x1B || c == '\r' || c == '\b';
    n.nonAscii |= (static_cast<unsigned char>(c) & 0x80) != 0;
  }
  return n;
}

// Where the run of plain bytes (ASCII other than ESC and BS) from `at` ends, at most `end`:
// sixteen bytes at a time as far as whole blocks go; the caller's byte loop finishes the rest.
size_t plainRunEnd(std::string_view raw, size_t at, size_t end) {
#if defined(__SSE2__)
  const __m128i esc = _mm_set1_epi8(0x1B), bs = _mm_set1_epi8('\b');
  while (at + 16 <= end) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(raw.data() + at));
    int stop = _mm_movemask_epi8(_mm_or_si128(v, _mm_or_si128(_mm_cmpeq_epi8(v, esc), _mm_cmpeq_epi8(v, bs))));
    if (stop) return at + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(stop)));
    at += 16;
  }
#endif
  return at;
}

// Appends the bytes of raw[begin, end) that are not part of an escape sequence; a byte that is
// not part of well-formed UTF-8 becomes U+FFFD (its three bytes all map to that byte).
void appendVisible(std::string_view raw, size_t begin, size_t end, CleanLine& out) {
  size_t i = begin;
  while (i < end) {
    unsigned char c = static_cast<unsigned char>(raw[i]);
    if (c == 0x1B && i + 1 < end) {
      char kind = raw[i + 1];
      size_t j = i + 2;
      if (kind == '[') {  // CSI: parameters, intermediates, one final byte
        while (j < end && static_cast<unsigned char>(raw[j]) >= 0x20 &&
               static_cast<unsigned char>(raw[j]) <= 0x3F)
          ++j;
        if (j < end) ++j;
      } else if (kind == ']') {  // OSC: up to BEL or ESC '\'
        while (j < end && raw[j] != '\a' && !(raw[j] == 0x1B && j + 1 < end && raw[j + 1] == '\\'))
          ++j;
        if (j < end) j += raw[j] == '\a' ? 1 : 2;
      }
      i = std::min(j, end);
      continue;
    }
    if (c == 0x1B || c == '\b') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      size_t len = wellFormedLength(raw.substr(0, end), i);
      if (len == 0) {
        out.owned += "\xEF\xBF\xBD";
        for (int k = 0; k < 3; ++k) out.origin.push_back(static_cast<uint32_t>(i));
        ++i;
        continue;
      }
      for (size_t k = 0; k < len; ++k) {
        out.owned.push_back(raw[i + k]);
        out.origin.push_back(static_cast<uint32_t>(i + k));
      }
      i += len;
      continue;
    }
    // A run of plain ASCII bytes goes over in one append, each byte mapped to its own offset.
    size_t run = plainRunEnd(raw, i + 1, end);
    while (run < end) {
      unsigned char d = static_cast<unsigned char>(raw[run]);
      if (d >= 0x80 || d == 0x1B || d == '\b') break;
      ++run;
    }
    out.owned.append(raw.data() + i, run - i);
    size_t at = out.origin.size();
    out.origin.resize(at + (run - i));
    uint32_t* o = out.origin.data() + at;
    size_t k = 0;
#if defined(__SSE2__)
    // Four offsets at a time (GCC does not vectorise this loop at -O2).
    __m128i next = _mm_add_epi32(_mm_set1_epi32(static_cast<int>(i)), _mm_setr_epi32(0, 1, 2, 3));
    for (; k + 4 <= run - i; k += 4) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + k), next);
      next = _mm_add_epi32(next, _mm_set1_epi32(4));
    }
#endif
    for (; k < run - i; ++k) o[k] = static_cast<uint32_t>(i + k);
    i = run;
  }
}

}  // namespace

CleanLine cleanLine(std::string_view raw) {
  CleanLine out;
  cleanLineInto(raw, out);
  out.own();
  return out;
}

void cleanLineInto(std::string_view raw, CleanLine& out) {
  out.origin.clear();
  size_t end = raw.size();
  while (end > 0 && (raw[end - 1] == '\r' || raw[end - 1] == '\n')) --end;
  // One vectorised pass: the usual line has no terminal noise and only ASCII.
  std::string_view body = raw.substr(0, end);
  Noise noise = scanNoise(body);
  bool noisy = noise.terminal || (noise.nonAscii && !wellFormed(body));
  if (!noisy) {
    out.text = raw.substr(0, end);  // nothing to clean: the raw bytes, not a copy
    return;
  }
  // A progress bar redraws with '\r': what the terminal finally shows is the last segment that
  // has visible text.
  size_t segEnd = end;
  while (true) {
    // memrchr: string_view::rfind compares one byte at a time.
    const void* crAt = segEnd == 0 ? nullptr : memrchr(raw.data(), '\r', segEnd);
    size_t cr = crAt ? static_cast<size_t>(static_cast<const char*>(crAt) - raw.data()) : std::string_view::npos;
    size_t segBegin = cr == std::string_view::npos ? 0 : cr + 1;
    out.owned.clear();
    out.origin.clear();
    appendVisible(raw, segBegin, segEnd, out);
    bool visible = std::any_of(out.owned.begin(), out.owned.end(),
                               [](char ch) { return ch != ' ' && ch != '\t'; });
    if (visible || cr == std::string_view::npos) {
      out.origin.push_back(static_cast<uint32_t>(segEnd));
      out.text = out.owned;
      return;
    }
    segEnd = cr;
  }
}

void eraseClean(CleanLine& line, size_t pos, size_t n) {
  if (pos >= line.text.size() || n == 0) return;
  n = std::min(n, line.text.size() - pos);
  if (line.origin.empty()) {
    // The identity mapping made explicit, with the extra entry for end offsets.
    line.origin.resize(line.text.size() + 1);
    for (size_t i = 0; i < line.origin.size(); ++i) line.origin[i] = static_cast<uint32_t>(i);
  }
  line.own();
  line.owned.erase(pos, n);
  line.text = line.owned;
  line.origin.erase(line.origin.begin() + static_cast<std::ptrdiff_t>(pos),
                    line.origin.begin() + static_cast<std::ptrdiff_t>(pos + n));
}

}  // namespace denpex::core
