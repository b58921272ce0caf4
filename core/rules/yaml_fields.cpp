// Reading YAML fields for the rule loader (see yaml_fields.h).
#include "core/rules/yaml_fields.h"

namespace denpex::core::rules_detail {

int lineOf(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

std::string scalar(const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar()) throw LoadError{lineOf(node), "'" + field + "' must be a string"};
  return node.as<std::string>();
}

std::vector<std::string> stringList(const YAML::Node& node, const std::string& field) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.as<std::string>());
    return out;
  }
  if (!node.IsSequence()) throw LoadError{lineOf(node), "'" + field + "' must be a list of strings"};
  for (const auto& item : node) out.push_back(scalar(item, field));
  return out;
}

void checkKeys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& what) {
  for (const auto& kv : map) {
    std::string key = kv.first.as<std::string>();
    if (!allowed.count(key)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw LoadError{lineOf(kv.first), "unknown field '" + key + "' in " + what + " (expected one of: " + list + ")"};
    }
  }
}

std::optional<double> parseDouble(const std::string& text) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (...) {
  }
  return std::nullopt;
}

}  // namespace denpex::core::rules_detail
