// What the rule loader's parts share (rule_loader.cpp, edit_loader.cpp): reading YAML fields
// with errors that name their line, and loading an edit. Internal to core/rules.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/rules/rule.h"

namespace denpex::core::rules_detail {

// Thrown inside the loader only, turned into a RuleError at its boundary.
struct LoadError {
  int line;
  std::string message;
};

int lineOf(const YAML::Node& node);
std::string scalar(const YAML::Node& node, const std::string& field);
std::vector<std::string> stringList(const YAML::Node& node, const std::string& field);
void checkKeys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& what);
std::optional<double> parseDouble(const std::string& text);

// An edit of a rule file (edit_loader.cpp): checked against what it may write, since it ends
// up in someone's source.
EditSpec loadEdit(const YAML::Node& node, const std::string& file, std::vector<RuleError>& warnings);

}  // namespace denpex::core::rules_detail
