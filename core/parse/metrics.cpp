// Metric samples printed by training loops (see metrics.h).
#include "core/parse/metrics.h"

#include <algorithm>
#include <charconv>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cctype>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/base/text.h"

namespace denpex::core {
namespace {

using text::isDigit;
using text::isIdent;

enum class Field { kStep, kLoss, kGradNorm, kLr, kLossScale };

struct Key {
  std::string_view text;  // lower case
  Field field;
};

constexpr std::array<Key, 18> kKeys{{
    {"loss scale", Field::kLossScale},
    {"loss_scale", Field::kLossScale},
    {"loss total", Field::kLoss},  // HiFi-GAN and its many vocoder forks: "Gen Loss Total : nan"
    {"train/loss", Field::kLoss},
    {"train_loss", Field::kLoss},
    {"training_loss", Field::kLoss},
    {"loss", Field::kLoss},
    {"grad_norm", Field::kGradNorm},
    {"grad norm", Field::kGradNorm},
    {"grad-norm", Field::kGradNorm},
    {"gnorm", Field::kGradNorm},
    {"total_norm", Field::kGradNorm},
    {"learning_rate", Field::kLr},
    {"learning rate", Field::kLr},
    {"lr", Field::kLr},
    {"global_step", Field::kStep},
    {"iteration", Field::kStep},
    {"step", Field::kStep},
}};

char lowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

// Whether s[at...] starts with `word` (lower case), ignoring the case of s.
bool startsWithLower(std::string_view s, size_t at, std::string_view word) {
  if (at > s.size() || s.size() - at < word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (lowerAscii(s[at + k]) != word[k]) return false;
  return true;
}

// A plain decimal number at the start of `w` ("-1.5e-03", ".5", "42"): its length (0 when `w`
// starts with anything else: hexadecimal, nan, inf, no digit) and, where Clinger's fast path
// gives it exactly, its value. That path takes at most 15 significant digits and a power of ten
// up to 22, both exact doubles, so one multiplication or division rounds once, as from_chars
// does; it is nearly every number a training loop prints, read in the same pass that measures it.
struct PlainDecimal {
  size_t length = 0;
  bool exact = false;
  double value = 0;
};
PlainDecimal plainDecimal(std::string_view w) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  PlainDecimal out;
  size_t k = 0;
  bool negative = false;
  if (k < w.size() && (w[k] == '-' || w[k] == '+')) negative = w[k++] == '-';
  uint64_t mantissa = 0;
  int significant = 0, scale = 0;  // significant digits read; digits after the point
  size_t digits = 0;
  auto take = [&](char c) {
    if (mantissa == 0 && c == '0') return;  // a leading zero is no significant digit
    ++significant;
    if (significant <= 15) mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
  };
  while (k < w.size() && isDigit(w[k])) take(w[k++]), ++digits;
  if (digits == 1 && k < w.size() && (w[k] == 'x' || w[k] == 'X') && w[k - 1] == '0') return out;  // 0x...: hexadecimal
  if (k < w.size() && w[k] == '.') {
    ++k;
    while (k < w.size() && isDigit(w[k])) take(w[k++]), ++digits, ++scale;
  }
  if (digits == 0) return out;
  int exponent = 0;
  bool exponentExact = true;
  if (k < w.size() && (w[k] == 'e' || w[k] == 'E')) {
    size_t e = k + 1;
    bool minus = false;
    if (e < w.size() && (w[e] == '-' || w[e] == '+')) minus = w[e++] == '-';
    size_t d = e;
    while (d < w.size() && isDigit(w[d])) {
      if (exponent < 1000) exponent = exponent * 10 + (w[d] - '0');
      else exponentExact = false;
      ++d;
    }
    if (d > e) {
      k = d;
      if (minus) exponent = -exponent;
    } else {
      exponent = 0;
    }
  }
  out.length = k;
  int power = exponent - scale;
  if (significant > 15 || !exponentExact) return out;
  const double m = static_cast<double>(mantissa);
  if (mantissa == 0) out.value = 0;
  else if (power >= 0 && power <= 22) out.value = m * kPow10[power];
  else if (power < 0 && power >= -22) out.value = m / kPow10[-power];
  else return out;
  out.value = negative ? -out.value : out.value;
  out.exact = true;
  return out;
}

// Parses a number (nan and inf included) at s[i...]; returns the bytes consumed or 0. Reads
// at most 64 bytes, as strtod would from a copy of them.
size_t readNumber(std::string_view s, size_t i, double& value) {
  size_t j = i;
  if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
  if (j >= s.size()) return 0;
  const bool special = !(isDigit(s[j]) || s[j] == '.') && (startsWithLower(s, j, "nan") || startsWithLower(s, j, "inf"));
  if (!special && !(isDigit(s[j]) || s[j] == '.')) return 0;
  std::string_view window = s.substr(i, 64);
  // The common case, a plain decimal, without a copy: read exactly where it is, or by from_chars,
  // which rounds as strtod does.
  if (!special) {
    PlainDecimal plain = plainDecimal(window);
    if (plain.exact) {
      value = plain.value;
      return plain.length;
    }
    if (size_t n = plain.length) {
      size_t skip = window[0] == '+' ? 1 : 0;
      auto [end, ec] = std::from_chars(window.data() + skip, window.data() + n, value);
      if (ec == std::errc() && end == window.data() + n) return n;
    }
  }
  // strtod needs a terminated string: copy the window to the stack.
  char copy[65];
  std::memcpy(copy, window.data(), window.size());
  copy[window.size()] = '\0';
  char* end = nullptr;
  value = std::strtod(copy, &end);
  size_t used = static_cast<size_t>(end - copy);
  if (used == 0) return 0;
  if (special && i + used < s.size() && text::isAlpha(s[i + used])) {
    // "infinity" is a number, "info" is not.
    if (!startsWithLower(s, i + used, "inity")) return 0;
    used += 5;
  }
  return used;
}

bool evalWordBefore(std::string_view s, size_t keyPos) {
  // "val loss", "eval loss", "validation loss", "test loss" are not training losses.
  size_t end = keyPos;
  while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '_')) --end;
  size_t begin = end;
  while (begin > 0 && text::isAlpha(s[begin - 1])) --begin;  // the "C" locale's isalpha, inline
  if (end - begin > 10) return false;
  char word[11] = {};
  for (size_t k = begin; k < end; ++k) word[k - begin] = lowerAscii(s[k]);
  std::string_view w(word, end - begin);
  return w == "val" || w == "eval" || w == "validation" || w == "valid" || w == "test" || w == "dev";
}

// For each first letter, the indices of the keys that start with it, in kKeys order.
constexpr uint8_t kNoKey = 0xff;
constexpr std::array<std::array<uint8_t, 8>, 256> kKeysByFirst = [] {
  std::array<std::array<uint8_t, 8>, 256> t{};
  for (auto& row : t) row.fill(kNoKey);
  std::array<size_t, 256> used{};
  for (size_t k = 0; k < kKeys.size(); ++k) {
    auto c = static_cast<unsigned char>(kKeys[k].text[0]);
    t[c][used[c]++] = static_cast<uint8_t>(k);
  }
  return t;
}();

// The letters a key can start with, as a table (one look-up per byte of every line).
constexpr std::array<bool, 256> kKeyStart = [] {
  std::array<bool, 256> t{};
  for (char c : {'l', 't', 'g', 's', 'i', 'L', 'T', 'G', 'S', 'I'}) t[static_cast<unsigned char>(c)] = true;
  return t;
}();

// Whether a key may start at s[at]: its byte can begin one, and the byte before it (if any) does
// not continue a word, a path or a hyphenated name ("val_loss", "train/loss", "pre-step").
bool keyMayStartAt(std::string_view s, size_t at) {
  if (!kKeyStart[static_cast<unsigned char>(s[at])]) return false;
  return at == 0 || !(isIdent(s[at - 1]) || s[at - 1] == '/' || s[at - 1] == '-');
}

#if defined(__SSE2__)
// Which bytes of `v` are in [lo, lo + n) as unsigned bytes: shifted to signed order, one compare.
__m128i bytesInRange(__m128i v, char lo, char n) {
  return _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(0x80 - static_cast<unsigned char>(lo)))),
                        _mm_set1_epi8(static_cast<char>(-128 + n)));
}
#endif

// The first position from `at` where a key may start (keyMayStartAt; s.size() when none):
// sixteen bytes at a time where SSE2 is there (every x86-64), testing each byte and the one
// before it together, so that letters inside words cost nothing.
size_t nextKeyStart(std::string_view s, size_t at) {
  if (at == 0 && !s.empty()) {
    if (keyMayStartAt(s, 0)) return 0;
    at = 1;
  }
#if defined(__SSE2__)
  const __m128i caseBit = _mm_set1_epi8(0x20);
  while (at + 16 <= s.size()) {
    // OR 0x20 folds exactly 'L' onto 'l' (and so on) for these five letters, and the upper case
    // letters onto the lower case ones.
    __m128i cur = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + at));
    __m128i c = _mm_or_si128(cur, caseBit);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('l')), _mm_cmpeq_epi8(c, _mm_set1_epi8('t'))),
                             _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('g')), _mm_cmpeq_epi8(c, _mm_set1_epi8('s'))));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(c, _mm_set1_epi8('i')));
    if (_mm_movemask_epi8(m)) {
      __m128i prev = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + at - 1));  // at >= 1 here
      __m128i word = _mm_or_si128(bytesInRange(_mm_or_si128(prev, caseBit), 'a', 26), bytesInRange(prev, '0', 10));
      word = _mm_or_si128(word, _mm_or_si128(_mm_cmpeq_epi8(prev, _mm_set1_epi8('_')),
                                             _mm_or_si128(_mm_cmpeq_epi8(prev, _mm_set1_epi8('/')),
                                                          _mm_cmpeq_epi8(prev, _mm_set1_epi8('-')))));
      int mask = _mm_movemask_epi8(_mm_andnot_si128(word, m));
      if (mask) return at + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
    at += 16;
  }
#endif
  while (at < s.size() && !keyMayStartAt(s, at)) ++at;
  return at;
}

}  // namespace

#if defined(__SSE2__)
// Each key's bytes, padded to 16, and the bits of its length: one compare tests a key at once.
struct KeyVector {
  alignas(16) char bytes[16] = {};
  int lengthBits = 0;
};
constexpr std::array<KeyVector, kKeys.size()> kKeyVectors = [] {
  std::array<KeyVector, kKeys.size()> out{};
  for (size_t k = 0; k < kKeys.size(); ++k) {
    for (size_t i = 0; i < kKeys[k].text.size(); ++i) out[k].bytes[i] = kKeys[k].text[i];
    out[k].lengthBits = (1 << kKeys[k].text.size()) - 1;
  }
  return out;
}();
static_assert(std::all_of(kKeys.begin(), kKeys.end(), [](const Key& k) { return k.text.size() <= 15; }));
#endif

// Whether the key `k` starts at s[at], without case: sixteen bytes at once (upper-case letters
// folded to lower case alone, so '_' and ' ' stay themselves). Near the end of the line the
// bytes left are copied into a zeroed block of sixteen: no key holds a zero byte, so a key
// longer than what is left never matches.
class KeyTester {
 public:
  KeyTester(std::string_view s, size_t at) : s_(s), at_(at) {
#if defined(__SSE2__)
    const char* from = s.data() + at;
    alignas(16) char tail[16] = {};
    if (s.size() - at < 16) {
      std::memcpy(tail, from, s.size() - at);
      from = tail;
    }
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
    folded_ = _mm_or_si128(v, _mm_and_si128(bytesInRange(v, 'A', 26), _mm_set1_epi8(0x20)));
#endif
  }
  bool startsWith(uint8_t k) const {
#if defined(__SSE2__)
    const KeyVector& key = kKeyVectors[k];
    int same = _mm_movemask_epi8(_mm_cmpeq_epi8(folded_, _mm_load_si128(reinterpret_cast<const __m128i*>(key.bytes))));
    return (same & key.lengthBits) == key.lengthBits;
#else
    return startsWithLower(s_, at_, kKeys[k].text);
#endif
  }

 private:
  [[maybe_unused]] std::string_view s_;
  [[maybe_unused]] size_t at_;
#if defined(__SSE2__)
  __m128i folded_;
#endif
};

MetricSample extractMetrics(std::string_view message) {
  MetricSample sample;
  if (message.size() > 4096) message = message.substr(0, 4096);
  const std::string_view s = message;
  // One pass: at each word start that can begin a key, try the keys (longest first), read the
  // value after the first one that fits, and record it unless that field was already set.
  for (size_t at = nextKeyStart(s, 0); at < s.size(); at = nextKeyStart(s, at + 1)) {
    char first = lowerAscii(s[at]);
    const KeyTester tester(s, at);
    for (uint8_t k : kKeysByFirst[static_cast<unsigned char>(first)]) {
      if (k == kNoKey) break;
      const Key& key = kKeys[k];
      if (!tester.startsWith(k)) continue;
      size_t after = at + key.text.size();
      if (after < s.size() && (isIdent(s[after]) || s[after] == '/')) continue;
      if (key.field == Field::kLoss && evalWordBefore(s, at)) continue;
      size_t i = after;
      // Quotes and spaces around the separator (a byte compare: string_view::find is a call).
      auto skipQuotesAndSpaces = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\'' || s[i] == '"')) ++i;
      };
      skipQuotesAndSpaces();
      // ':' and '=' in most loggers; '|' in tables of one key and value per row ("| loss | nan |",
      // OpenAI's logger in baselines and the diffusion codebases).
      if (i < s.size() && (s[i] == ':' || s[i] == '=' || s[i] == '|')) ++i;
      else if (i < s.size() && (s[i] | 0x20) == 'i' && startsWithLower(s, i, "is ")) i += 3;  // "loss is nan at step 2"
      skipQuotesAndSpaces();
      if (i < s.size() && (s[i] | 0x20) == 't' && startsWithLower(s, i, "tensor(")) i += 7;
      double value = 0;
      size_t used = readNumber(message, i, value);
      if (used == 0) continue;
      switch (key.field) {
        case Field::kStep:
          // A step past what a long long holds (1e63 in a fuzzed line) is no step: casting it is undefined.
          if (!sample.step && value >= 0 && value < 9.0e18) sample.step = static_cast<long long>(value);
          break;
        case Field::kLoss:
          if (!sample.loss) sample.loss = value;
          break;
        case Field::kGradNorm:
          if (!sample.gradNorm) sample.gradNorm = value;
          break;
        case Field::kLr:
          if (!sample.lr) sample.lr = value;
          break;
        case Field::kLossScale:
          if (!sample.lossScale) sample.lossScale = value;
          break;
      }
      at = i + used - 1;
      break;
    }
  }
  return sample;
}

}  // namespace denpex::core
