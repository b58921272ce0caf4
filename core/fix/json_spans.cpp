// JSON with byte spans (see json_spans.h).
#include "core/fix/json_spans.h"

#include <cctype>

namespace denpex::core {
namespace {

class JsonSpans {
 public:
  explicit JsonSpans(std::string_view s) : s_(s) {}
  std::unique_ptr<JsonNode> parse() {
    auto n = value(0);
    return n;
  }

 private:
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool str(std::string& out) {
    if (i_ >= s_.size() || s_[i_] != '"') return false;
    size_t j = i_ + 1;
    while (j < s_.size() && s_[j] != '"') j += s_[j] == '\\' ? 2 : 1;
    if (j >= s_.size()) return false;
    out = std::string(s_.substr(i_ + 1, j - i_ - 1));
    i_ = j + 1;
    return true;
  }
  std::unique_ptr<JsonNode> value(int depth) {
    if (depth > 64) return nullptr;
    ws();
    if (i_ >= s_.size()) return nullptr;
    auto n = std::make_unique<JsonNode>();
    n->begin = i_;
    char c = s_[i_];
    if (c == '{' || c == '[') {
      bool object = c == '{';
      n->kind = object ? JsonNode::Kind::kObject : JsonNode::Kind::kArray;
      ++i_;
      ws();
      if (i_ < s_.size() && s_[i_] == (object ? '}' : ']')) {
        n->end = ++i_;
        return n;
      }
      while (true) {
        std::string key;
        if (object) {
          ws();
          if (!str(key)) return nullptr;
          ws();
          if (i_ >= s_.size() || s_[i_] != ':') return nullptr;
          ++i_;
        }
        auto child = value(depth + 1);
        if (!child) return nullptr;
        n->members.emplace_back(key, std::move(child));
        ws();
        if (i_ >= s_.size()) return nullptr;
        if (s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (s_[i_] == (object ? '}' : ']')) {
          n->end = ++i_;
          return n;
        }
        return nullptr;
      }
    }
    if (c == '"') {
      n->kind = JsonNode::Kind::kString;
      if (!str(n->text)) return nullptr;
      n->end = i_;
      return n;
    }
    while (i_ < s_.size() && std::string_view(",}] \t\r\n").find(s_[i_]) == std::string_view::npos) ++i_;
    n->end = i_;
    n->text = std::string(s_.substr(n->begin, n->end - n->begin));
    return n->end > n->begin ? std::move(n) : nullptr;
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

std::unique_ptr<JsonNode> parseJsonSpans(std::string_view text) { return JsonSpans(text).parse(); }

const JsonNode* jsonAt(const JsonNode* node, const std::string& path) {
  size_t start = 0;
  while (node && start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (node->kind != JsonNode::Kind::kObject) return nullptr;
    const JsonNode* next = nullptr;
    for (const auto& [k, child] : node->members)
      if (k == key) next = child.get();
    node = next;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

}  // namespace denpex::core
