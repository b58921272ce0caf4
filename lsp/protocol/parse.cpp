// simdjson for big message bodies, nlohmann for the rest (see parse.h).
#include "lsp/protocol/parse.h"

#include <simdjson.h>

#include <cstdint>
#include <optional>

namespace denpex::lsp {
namespace {

// Bodies from this size on are worth simdjson's set-up.
constexpr size_t kFastFrom = 256 * 1024;

// nlohmann JSON from a simdjson DOM element (strings are copied once, as they are).
bool convert(simdjson::dom::element e, json& out, int depth) {
  if (depth > 256) return false;  // nlohmann's own limit is higher; deeper input goes to it
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      simdjson::dom::object object;
      if (e.get(object) != simdjson::SUCCESS) return false;
      out = json::object();
      for (simdjson::dom::key_value_pair field : object) {
        json& slot = out[std::string(field.key)];
        if (!convert(field.value, slot, depth + 1)) return false;
      }
      return true;
    }
    case simdjson::dom::element_type::ARRAY: {
      simdjson::dom::array array;
      if (e.get(array) != simdjson::SUCCESS) return false;
      out = json::array();
      for (simdjson::dom::element item : array) {
        out.push_back(json());
        if (!convert(item, out.back(), depth + 1)) return false;
      }
      return true;
    }
    case simdjson::dom::element_type::STRING: {
      std::string_view text;
      if (e.get(text) != simdjson::SUCCESS) return false;
      std::string copy;
      // A big string is a document's text: room to grow by half, so that a log that then grows
      // is appended to in place (pages not yet written cost no memory).
      if (text.size() >= kFastFrom) copy.reserve(text.size() + text.size() / 2);
      copy.assign(text);
      out = std::move(copy);
      return true;
    }
    case simdjson::dom::element_type::INT64: {
      int64_t v = 0;
      if (e.get(v) != simdjson::SUCCESS) return false;
      out = v;
      return true;
    }
    case simdjson::dom::element_type::UINT64: {
      uint64_t v = 0;
      if (e.get(v) != simdjson::SUCCESS) return false;
      out = v;
      return true;
    }
    case simdjson::dom::element_type::DOUBLE: {
      double v = 0;
      if (e.get(v) != simdjson::SUCCESS) return false;
      out = v;
      return true;
    }
    case simdjson::dom::element_type::BOOL: {
      bool v = false;
      if (e.get(v) != simdjson::SUCCESS) return false;
      out = v;
      return true;
    }
    case simdjson::dom::element_type::NULL_VALUE:
      out = nullptr;
      return true;
  }
  return false;
}

std::optional<json> parseFast(std::string& body) {
  // simdjson reads a few bytes past the end: give the string that padding instead of copying it.
  size_t size = body.size();
  body.reserve(size + simdjson::SIMDJSON_PADDING);
  // A parser per message: its buffers (the size of the message) go when the message is read.
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body.data(), size, false).get(root) != simdjson::SUCCESS) return std::nullopt;
  json out;
  if (!convert(root, out, 0)) return std::nullopt;
  return out;
}

}  // namespace

json parseMessage(std::string& body) {
  if (body.size() >= kFastFrom) {
    if (auto fast = parseFast(body)) return std::move(*fast);
  }
  return json::parse(body);
}

}  // namespace denpex::lsp
