// Big strings read here, everything else by nlohmann's parser (see parse.h).
#include "lsp/protocol/parse.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace denpex::lsp {
namespace {

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool readHex4(std::string_view s, size_t at, uint32_t& v) {
  if (at + 4 > s.size()) return false;
  v = 0;
  for (size_t k = 0; k < 4; ++k) {
    int d = hexDigit(s[at + k]);
    if (d < 0) return false;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  return true;
}

void appendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The length of the JSON escape at s[i] (a backslash): 2, 6, or 12 for a surrogate pair; 0 for
// one JSON refuses (an unknown letter, bad hex digits, a lone surrogate).
size_t escapeLength(std::string_view s, size_t i) {
  if (i + 1 >= s.size()) return 0;
  switch (s[i + 1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
      return 2;
    case 'u': {
      uint32_t cp = 0, low = 0;
      if (!readHex4(s, i + 2, cp)) return 0;
      if (cp >= 0xDC00 && cp <= 0xDFFF) return 0;
      if (cp < 0xD800 || cp > 0xDBFF) return 6;
      if (i + 8 > s.size() || s[i + 6] != '\\' || s[i + 7] != 'u' || !readHex4(s, i + 8, low) || low < 0xDC00 || low > 0xDFFF)
        return 0;
      return 12;
    }
    default:
      return 0;
  }
}

}  // namespace

size_t unescapeTo(char* dst, std::string_view in) {
  size_t n = 0, i = 0;
  while (i < in.size()) {
    const void* hit = std::memchr(in.data() + i, '\\', in.size() - i);
    size_t bs = hit ? static_cast<size_t>(static_cast<const char*>(hit) - in.data()) : in.size();
    std::memmove(dst + n, in.data() + i, bs - i);
    n += bs - i;
    if (bs + 1 >= in.size()) break;  // (a checked token never ends in a lone backslash)
    // 2, 6 or 12 in a checked token. Text not yet checked (a message read as it arrives) may
    // hold what JSON refuses: such a pair of bytes is kept as it is, so that the output is never
    // longer than the input whatever the bytes.
    const size_t len = escapeLength(in, bs);
    if (len == 0) {
      dst[n++] = in[bs];
      dst[n++] = in[bs + 1];
      i = bs + 2;
      continue;
    }
    i = bs + len;
    switch (char e = in[bs + 1]) {
      case 'b': dst[n++] = '\b'; break;
      case 'f': dst[n++] = '\f'; break;
      case 'n': dst[n++] = '\n'; break;
      case 'r': dst[n++] = '\r'; break;
      case 't': dst[n++] = '\t'; break;
      case 'u': {
        uint32_t cp = 0, low = 0;
        readHex4(in, bs + 2, cp);
        if (cp >= 0xD800 && cp <= 0xDBFF && readHex4(in, bs + 8, low)) cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        // At most 4 bytes from at least 6 ("\uXXXX"): still behind the reading position.
        std::string utf8;
        appendUtf8(cp, utf8);
        for (char c : utf8) dst[n++] = c;
        break;
      }
      default:  // '"', '\\' and '/' stand for themselves
        dst[n++] = e;
    }
  }
  return n;
}

namespace {

// The length of the UTF-8 sequence at p[i] (a byte from 0x80 on), or 0 when it is not well
// formed: no overlong forms, no surrogates, nothing past U+10FFFF, nothing cut short.
size_t utf8Length(const unsigned char* p, size_t n, size_t i) {
  const unsigned char c = p[i];
  auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return i + k < n && p[i + k] >= lo && p[i + k] <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
  if (c >= 0xE1 && c <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

// Where the string token that starts at `open` (its quote) ends, when it is one JSON allows:
// UTF-8 without control characters between its quotes, and escapes JSON allows. npos
// when it is not, or never ends. One pass over its bytes, sixteen at a time between the ones
// that need a look (a quote, a backslash, a control character, a byte outside ASCII): a big
// text is read once here and once more to unescape it, and on this machine's memory each pass
// over 100 MB costs about 20 ms.
size_t validStringEnd(std::string_view body, size_t open) {
  const auto* p = reinterpret_cast<const unsigned char*>(body.data());
  const size_t n = body.size();
  size_t i = open + 1;
  while (i < n) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), limit = _mm_set1_epi8(0x1F);
    while (i + 16 <= n) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      // A signed compare: bytes from 0x80 on are negative, so "not over 0x1F" flags them with
      // the control characters.
      int plain = _mm_movemask_epi8(_mm_cmpgt_epi8(v, limit));
      int marks = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)));
      int look = (~plain & 0xFFFF) | marks;
      if (look == 0) {
        i += 16;
        continue;
      }
      i += static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(look)));
      break;
    }
    if (i >= n) break;
#endif
    const unsigned char c = p[i];
    if (c == '"') return i;
    size_t used = 1;
    if (c == '\\') used = escapeLength(body, i);
    else if (c < 0x20) used = 0;
    else if (c >= 0x80) used = utf8Length(p, n, i);
    if (used == 0) return std::string_view::npos;
    i += used;
  }
  return std::string_view::npos;
}

// The marker a big string leaves in the small remainder: a string nlohmann reads as NUL then
// the big string's number. A message whose own small strings hold "\u0000" is not taken apart.
std::string marker(size_t k) { return "\"\\u0000" + std::to_string(k) + "\""; }

// The strings of `v` that are markers, by number; false when one is missing or repeated.
bool findMarkers(json& v, std::vector<json*>& found, int depth) {
  if (depth > static_cast<int>(kMaxMessageDepth)) return false;
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() < 2 || s[0] != '\0') return true;
    size_t k = 0;
    for (size_t i = 1; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9' || k > found.size()) return false;
      k = k * 10 + static_cast<size_t>(s[i] - '0');
    }
    if (k >= found.size() || found[k]) return false;
    found[k] = &v;
    return true;
  }
  if (v.is_object() || v.is_array()) {
    for (auto& item : v)
      if (!findMarkers(item, found, depth + 1)) return false;
  }
  return true;
}

// A big body: its big string tokens are taken out, each leaving a marker; nlohmann's parser
// reads the small remainder; each big string is checked, unescaped and put where its marker
// is. nullopt for anything unusual (malformed text above all): the caller then parses the whole
// body with nlohmann's parser, whose errors are the ones reported.
std::optional<json> parseFast(std::string& body, size_t bigFrom, size_t* takenFrom) {
  std::string_view all(body);
  std::string rest;  // the body without its big strings
  std::vector<std::string_view> bigs;  // their tokens' contents, in order
  size_t copied = 0, at = 0;
  auto keep = [&](size_t upTo) {
    std::string_view piece = all.substr(copied, upTo - copied);
    if (piece.find("\\u0000") != std::string_view::npos) return false;  // could read as a marker
    rest.append(piece);
    return true;
  };
  while (at < all.size()) {
    const void* q = std::memchr(all.data() + at, '"', all.size() - at);
    if (!q) break;
    size_t open = static_cast<size_t>(static_cast<const char*>(q) - all.data());
    // Every string is checked on the way (a small one nlohmann's parser would refuse is refused
    // here first: either way the whole body then goes to nlohmann's parser).
    size_t close = validStringEnd(all, open);
    if (close == std::string_view::npos) return std::nullopt;
    if (close - open - 1 >= bigFrom) {
      if (!keep(open)) return std::nullopt;
      rest += marker(bigs.size());
      bigs.push_back(all.substr(open + 1, close - open - 1));
      copied = close + 1;
    }
    at = close + 1;
  }
  if (bigs.empty() || !keep(all.size())) return std::nullopt;
  if (jsonDepth(rest) > kMaxMessageDepth) return std::nullopt;
  json out = json::parse(rest, nullptr, false);
  if (out.is_discarded()) return std::nullopt;
  std::vector<json*> slots(bigs.size(), nullptr);
  if (!findMarkers(out, slots, 0)) return std::nullopt;
  for (json* slot : slots)
    if (!slot) return std::nullopt;
  // The biggest string becomes the message's own buffer, unescaped in place and moved: a 100 MB
  // document text is never copied (and keeps the room the transport gave it to grow). Others,
  // if any, are copied first, while the message is still intact.
  size_t biggest = 0;
  for (size_t k = 1; k < bigs.size(); ++k)
    if (bigs[k].size() > bigs[biggest].size()) biggest = k;
  for (size_t k = 0; k < bigs.size(); ++k) {
    if (k == biggest) continue;
    std::string copy(bigs[k].size(), '\0');
    copy.resize(unescapeTo(copy.data(), bigs[k]));
    *slots[k] = std::move(copy);
  }
  if (takenFrom) *takenFrom = static_cast<size_t>(bigs[biggest].data() - body.data());
  size_t n = unescapeTo(body.data(), bigs[biggest]);
  body.resize(n);
  *slots[biggest] = std::move(body);
  return out;
}

}  // namespace

size_t jsonDepth(std::string_view text) {
  size_t depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest;
}

json parseMessage(std::string& body, size_t bigFrom, size_t* takenFrom) {
  if (takenFrom) *takenFrom = SIZE_MAX;
  if (body.size() >= bigFrom) {
    if (auto fast = parseFast(body, bigFrom, takenFrom)) return std::move(*fast);
  }
  // nlohmann's parser has no depth limit, and copying or printing a deep value recurses.
  if (size_t depth = jsonDepth(body); depth > kMaxMessageDepth)
    throw MessageTooDeep("the message nests " + std::to_string(depth) + " levels deep; the limit is " +
                         std::to_string(kMaxMessageDepth));
  return json::parse(body);
}

}  // namespace denpex::lsp
