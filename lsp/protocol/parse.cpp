// simdjson for big message bodies, nlohmann for the rest (see parse.h).
#include "lsp/protocol/parse.h"

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace denpex::lsp {
namespace {

// Bodies from this size on are worth simdjson's set-up; strings from this size on are unescaped
// here, straight from the message, so that simdjson's own string buffer is never written (its
// pages then cost no memory): a 100 MB text is held once by the message and once as a string.
constexpr size_t kFastFrom = 256 * 1024;

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

// A big string found while converting: where it goes in the result, and its token's contents.
struct BigString {
  json::json_pointer at;
  std::string_view contents;
};

using simdjson::ondemand::json_type;

bool convert(simdjson::ondemand::value v, json& out, int depth, const json::json_pointer& at, std::vector<BigString>& bigs) {
  if (depth > static_cast<int>(kMaxMessageDepth)) return false;  // deeper input goes to the depth check before nlohmann
  json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  switch (type) {
    case json_type::object: {
      simdjson::ondemand::object object;
      if (v.get_object().get(object) != simdjson::SUCCESS) return false;
      out = json::object();
      for (auto field : object) {
        std::string_view key;
        simdjson::ondemand::value value;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS || field.value().get(value) != simdjson::SUCCESS) return false;
        std::string name(key);
        if (!convert(value, out[name], depth + 1, at / name, bigs)) return false;
      }
      return true;
    }
    case json_type::array: {
      simdjson::ondemand::array array;
      if (v.get_array().get(array) != simdjson::SUCCESS) return false;
      out = json::array();
      for (auto item : array) {
        simdjson::ondemand::value value;
        if (item.get(value) != simdjson::SUCCESS) return false;
        out.push_back(json());
        if (!convert(value, out.back(), depth + 1, at / (out.size() - 1), bigs)) return false;
      }
      return true;
    }
    case json_type::string: {
      std::string_view raw = v.raw_json_token();
      while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
        raw.remove_suffix(1);
      if (raw.size() >= kFastFrom && raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') {
        bigs.push_back({at, raw.substr(1, raw.size() - 2)});  // unescaped once the walk is over
        out = std::string();
        return true;
      }
      std::string_view s;
      if (v.get_string().get(s) != simdjson::SUCCESS) return false;
      out = std::string(s);
      return true;
    }
    case json_type::number: {
      simdjson::ondemand::number_type kind;
      if (v.get_number_type().get(kind) != simdjson::SUCCESS) return false;
      if (kind == simdjson::ondemand::number_type::signed_integer) {
        int64_t n = 0;
        if (v.get_int64().get(n) != simdjson::SUCCESS) return false;
        out = n;
      } else if (kind == simdjson::ondemand::number_type::unsigned_integer) {
        uint64_t n = 0;
        if (v.get_uint64().get(n) != simdjson::SUCCESS) return false;
        out = n;
      } else {
        double d = 0;
        if (v.get_double().get(d) != simdjson::SUCCESS) return false;
        out = d;
      }
      return true;
    }
    case json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b) != simdjson::SUCCESS) return false;
      out = b;
      return true;
    }
    case json_type::null:
      out = nullptr;
      return true;
  }
  return false;
}

std::optional<json> parseFast(std::string& body) {
  // simdjson reads a few bytes past the end: the transport leaves room for them (a copy of the
  // string happens only when it did not).
  size_t size = body.size();
  body.reserve(size + simdjson::SIMDJSON_PADDING);
  json out;
  std::vector<BigString> bigs;
  {
    // A parser per message: its buffers go when the message is read.
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    if (parser.iterate(body.data(), size, body.capacity()).get(doc) != simdjson::SUCCESS) return std::nullopt;
    simdjson::ondemand::value root;
    if (doc.get_value().get(root) != simdjson::SUCCESS || !convert(root, out, 0, json::json_pointer(), bigs))
      return std::nullopt;
  }
  if (bigs.empty()) return out;
  // The biggest string becomes the message's own buffer, unescaped in place and moved: a 100 MB
  // document text is never copied (and keeps the room the transport gave it to grow). Others,
  // if any, are copied first, while the message is still intact.
  size_t biggest = 0;
  for (size_t k = 1; k < bigs.size(); ++k)
    if (bigs[k].contents.size() > bigs[biggest].contents.size()) biggest = k;
  for (size_t k = 0; k < bigs.size(); ++k) {
    if (k == biggest) continue;
    std::string copy(bigs[k].contents.size(), '\0');
    auto n = unescapeTo(copy.data(), bigs[k].contents);
    if (!n) return std::nullopt;
    copy.resize(*n);
    out[bigs[k].at] = std::move(copy);
  }
  std::string_view contents = bigs[biggest].contents;
  if (!unescapeTo(nullptr, contents)) return std::nullopt;  // checked before the message is overwritten
  auto n = unescapeTo(body.data(), contents);
  body.resize(*n);
  out[bigs[biggest].at] = std::move(body);
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

json parseMessage(std::string& body) {
  if (body.size() >= kFastFrom) {
    if (auto fast = parseFast(body)) return std::move(*fast);
  }
  // nlohmann's parser has no depth limit, and copying or printing a deep value recurses.
  if (size_t depth = jsonDepth(body); depth > kMaxMessageDepth)
    throw MessageTooDeep("the message nests " + std::to_string(depth) + " levels deep; the limit is " +
                         std::to_string(kMaxMessageDepth));
  return json::parse(body);
}

}  // namespace denpex::lsp
