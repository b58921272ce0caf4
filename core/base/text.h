// Small text helpers that every stage of the pipeline needs: ASCII classes, trimming, reading
// decimal digits and finding line boundaries. Byte-based and locale-free: training logs are
// bytes, and `std::isdigit` on a negative char is undefined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace denpex::core::text {

// FNV-1a, 64 bits, over `s`, continuing from `h`: the same value on every platform and build.
constexpr uint64_t kFnvOffset = 1469598103934665603ull;
inline uint64_t fnv1a(std::string_view s, uint64_t h = kFnvOffset) {
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool isLower(char c) { return c >= 'a' && c <= 'z'; }
inline bool isAlnum(char c) { return isDigit(c) || isAlpha(c); }
inline bool isIdent(char c) { return isAlnum(c) || c == '_'; }
inline bool isXDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
inline char toLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

inline bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
inline bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Without spaces and tabs at both ends (and a '\r' at the end).
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}
// Without spaces and tabs at the end.
inline std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// True when s[at, at+n) are all decimal digits (false when the range runs past the end).
inline bool digitsAt(std::string_view s, size_t at, size_t n) {
  if (at > s.size() || n > s.size() - at) return false;
  for (size_t i = 0; i < n; ++i)
    if (!isDigit(s[at + i])) return false;
  return true;
}

// Reads at most `maxDigits` decimal digits at s[i...] into `value`; returns how many were read
// (0: no digit there, and `value` is 0).
inline size_t readInt(std::string_view s, size_t i, long long& value, size_t maxDigits = 9) {
  size_t j = i;
  value = 0;
  while (j < s.size() && isDigit(s[j]) && j - i < maxDigits) value = value * 10 + (s[j++] - '0');
  return j - i;
}

// The value of exactly `n` digits at s[at...]; the caller has checked them with digitsAt.
inline int fixedInt(std::string_view s, size_t at, size_t n) {
  int v = 0;
  for (size_t i = 0; i < n; ++i) v = v * 10 + (s[at + i] - '0');
  return v;
}

// Line boundaries around a byte offset of a text.
inline size_t lineBegin(std::string_view text, size_t offset) {
  size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}
inline size_t lineEnd(std::string_view text, size_t offset) {
  size_t nl = text.find('\n', offset);
  return nl == std::string_view::npos ? text.size() : nl;
}
// The 1-based line number of a byte offset.
inline int lineNumber(std::string_view text, size_t offset) {
  int n = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++n;
  return n;
}

// How many times `c` occurs in `s`: sixteen bytes a compare where SSE2 is there (every x86-64),
// for counting the lines of a block without a call per line. The matches are summed per byte
// lane (a compare gives -1 for each) and the lanes added up every 255 rounds, before one could
// wrap: no popcount, which a portable build does not have as an instruction.
inline uint64_t countByte(std::string_view s, char c) {
  uint64_t n = 0;
  size_t i = 0;
#if defined(__SSE2__) && defined(__x86_64__)
  const __m128i want = _mm_set1_epi8(c);
  const __m128i zero = _mm_setzero_si128();
  while (i + 16 <= s.size()) {
    __m128i lanes = zero;
    for (int round = 0; round < 255 && i + 16 <= s.size(); ++round, i += 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(v, want));
    }
    __m128i sums = _mm_sad_epu8(lanes, zero);  // two 64-bit sums of eight lanes each
    n += static_cast<uint64_t>(_mm_cvtsi128_si64(sums)) + static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < s.size(); ++i) n += s[i] == c;
  return n;
}

}  // namespace denpex::core::text
