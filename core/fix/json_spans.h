// JSON with byte spans: enough of a JSON parser to find a key's value in a config file and
// say where it is written, so that an edit changes that value and nothing else. Pure; gives up
// (nullptr) on anything that is not JSON or nests deeper than 64 levels.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace denpex::core {

struct JsonNode {
  enum class Kind { kObject, kArray, kString, kOther } kind = Kind::kOther;
  size_t begin = 0, end = 0;  // byte span of the value in the text
  std::vector<std::pair<std::string, std::unique_ptr<JsonNode>>> members;  // keys empty in arrays
  std::string text;  // a string's content (escapes left as written), or a scalar's text
};

// The text's top-level value; nullptr when the text is not JSON.
std::unique_ptr<JsonNode> parseJsonSpans(std::string_view text);

// The node at a dotted path of object keys below `node` ("optimizer.params.eps"); nullptr
// when a key is missing or a step is not an object.
const JsonNode* jsonAt(const JsonNode* node, const std::string& path);

}  // namespace denpex::core
