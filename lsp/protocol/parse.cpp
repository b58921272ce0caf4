// Big strings read here, everything else by nlohmann's parser (see parse.h).
#include "lsp/protocol/parse.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

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

// Unescapes the contents of a JSON string token (between its quotes) to `dst`, which may be the
// token's own bytes or any place before them (the output is never longer than the input, and
// each byte is written only after the bytes it came from were read). Returns the length, or
// nullopt on a bad escape or a lone surrogate (nlohmann's parser then reports the error).
// With a null `dst`, only checks and measures.
std::optional<size_t> unescapeTo(char* dst, std::string_view in) {
  size_t n = 0, i = 0;
  auto put = [&](char c) {
    if (dst) dst[n] = c;
    ++n;
  };
  while (i < in.size()) {
    const void* hit = std::memchr(in.data() + i, '\\', in.size() - i);
    size_t bs = hit ? static_cast<size_t>(static_cast<const char*>(hit) - in.data()) : in.size();
    if (dst) std::memmove(dst + n, in.data() + i, bs - i);
    n += bs - i;
    if (bs == in.size()) break;
    if (bs + 1 >= in.size()) return std::nullopt;
    char e = in[bs + 1];
    i = bs + 2;
    switch (e) {
      case '"': put('"'); break;
      case '\\': put('\\'); break;
      case '/': put('/'); break;
      case 'b': put('\b'); break;
      case 'f': put('\f'); break;
      case 'n': put('\n'); break;
      case 'r': put('\r'); break;
      case 't': put('\t'); break;
      case 'u': {
        uint32_t cp = 0;
        if (!readHex4(in, i, cp)) return std::nullopt;
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t low = 0;
          if (i + 2 > in.size() || in[i] != '\\' || in[i + 1] != 'u' || !readHex4(in, i + 2, low) || low < 0xDC00 ||
              low > 0xDFFF)
            return std::nullopt;
          i += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return std::nullopt;
        }
        // At most 4 bytes from at least 6 ("\uXXXX"): still behind the reading position.
        std::string utf8;
        appendUtf8(cp, utf8);
        for (char c : utf8) put(c);
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return n;
}

// Whether a string token's raw bytes are what JSON allows between quotes: UTF-8 (no overlong
// forms, no surrogates, nothing past U+10FFFF) and no control character. nlohmann's parser
// checks the same of the strings it reads; the big ones are checked here instead.
bool validStringBytes(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      // A byte under 0x20 (the classic "has a byte less than n" test) or from 0x80 on.
      if ((((w - kOnes * 0x20) & ~w) | w) & kHighs) {
        // fall through: one byte at a time until the next clean word
      } else {
        i += 8;
        continue;
      }
    }
    unsigned char c = p[i];
    if (c < 0x20) return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
      return i + k < n && p[i + k] >= lo && p[i + k] <= hi;
    };
    size_t len;
    if (c >= 0xC2 && c <= 0xDF) len = cont(1) ? 2 : 0;
    else if (c == 0xE0) len = cont(1, 0xA0) && cont(2) ? 3 : 0;
    else if (c == 0xED) len = cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
    else if (c >= 0xE1 && c <= 0xEF) len = cont(1) && cont(2) ? 3 : 0;
    else if (c == 0xF0) len = cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    else if (c >= 0xF1 && c <= 0xF3) len = cont(1) && cont(2) && cont(3) ? 4 : 0;
    else if (c == 0xF4) len = cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
    else len = 0;
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// Where a string token that starts at `open` (its quote) ends: the next quote not escaped by
// an odd run of backslashes. npos when it never ends.
size_t stringEnd(std::string_view body, size_t open) {
  size_t from = open + 1;
  while (from < body.size()) {
    const void* q = std::memchr(body.data() + from, '"', body.size() - from);
    if (!q) return std::string_view::npos;
    size_t at = static_cast<size_t>(static_cast<const char*>(q) - body.data());
    size_t slashes = 0;
    while (at - slashes > open + 1 && body[at - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return at;
    from = at + 1;
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
std::optional<json> parseFast(std::string& body, size_t bigFrom) {
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
    size_t close = stringEnd(all, open);
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
  for (auto big : bigs)
    if (!validStringBytes(big) || !unescapeTo(nullptr, big)) return std::nullopt;
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
    copy.resize(*unescapeTo(copy.data(), bigs[k]));
    *slots[k] = std::move(copy);
  }
  size_t n = *unescapeTo(body.data(), bigs[biggest]);
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

json parseMessage(std::string& body, size_t bigFrom) {
  if (body.size() >= bigFrom) {
    if (auto fast = parseFast(body, bigFrom)) return std::move(*fast);
  }
  // nlohmann's parser has no depth limit, and copying or printing a deep value recurses.
  if (size_t depth = jsonDepth(body); depth > kMaxMessageDepth)
    throw MessageTooDeep("the message nests " + std::to_string(depth) + " levels deep; the limit is " +
                         std::to_string(kMaxMessageDepth));
  return json::parse(body);
}

}  // namespace denpex::lsp
