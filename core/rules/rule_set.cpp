// The rule model's own behaviour: names of its enums, errors, and the rule set with its override
// order (a later rule replaces the one with its id, in place). Loading YAML is rule_loader.cpp.
#include <algorithm>
#include <map>

#include "core/rules/rule.h"

namespace denpex::core {

const char* toString(Severity s) {
  switch (s) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "info";
  }
  return "error";
}

const char* toString(Role r) {
  switch (r) {
    case Role::kRoot: return "root";
    case Role::kSymptom: return "symptom";
    case Role::kCollateral: return "collateral";
  }
  return "root";
}

const char* toString(MetricTest t) {
  switch (t) {
    case MetricTest::kNonfinite: return "nonfinite";
    case MetricTest::kStableBeforeNonfinite: return "stable-before-nonfinite";
    case MetricTest::kGrowsBeforeNonfinite: return "grows-before-nonfinite";
    case MetricTest::kFallsToMinimum: return "falls-to-minimum";
  }
  return "nonfinite";
}

std::string RuleError::format() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  return out + ": " + message;
}

std::string editValueText(const EditSpec& spec, EditSpec::Kind in) {
  if (spec.type == EditSpec::ValueType::kString) return "\"" + spec.value + "\"";
  if (spec.type != EditSpec::ValueType::kBool) return spec.value;
  bool on = spec.value == "true";
  if (in == EditSpec::Kind::kPythonKeyword) return on ? "True" : "False";
  return on ? "true" : "false";
}

std::string editSetting(const EditSpec& spec) {
  if (spec.kind == EditSpec::Kind::kPythonDropFloat16Cast) return "float32 weights";
  if (spec.kind == EditSpec::Kind::kPythonKeyword) return spec.keyword + "=" + editValueText(spec, spec.kind);
  return spec.path + "=" + editValueText(spec, spec.kind);
}

int Rule::signalIndex(const std::string& name) const {
  for (size_t i = 0; i < signals.size(); ++i)
    if (signals[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<RuleError> RuleSet::add(const std::vector<RuleSource>& sources, RuleOrigin origin) {
  return add(parseRuleFiles(sources), origin);
}

std::vector<RuleError> RuleSet::add(std::vector<ParsedRuleFile> files, RuleOrigin origin) {
  std::vector<RuleError> errors;
  std::map<std::string, std::string> batch;  // id -> file, for the rules of this call
  for (auto& source : files) {
    errors.insert(errors.end(), source.errors.begin(), source.errors.end());
    auto& rule = source.rule;
    if (!rule) continue;
    auto [first, fresh] = batch.emplace(rule->id, source.path);
    if (!fresh) {
      // Two files of one folder claiming one id: which one wins would depend on file order.
      errors.push_back({source.path, 0, "duplicate rule id '" + rule->id + "' (also defined in " + first->second + "); this file is skipped"});
      continue;
    }
    if (origin == RuleOrigin::kShipped) {
      if (!rule->overrides.empty()) {
        errors.push_back({source.path, 0, "a shipped rule cannot override another ('overrides: " + rule->overrides + "')"});
        continue;
      }
      put(std::move(rule.value()), RuleOrigin::kShipped);
      continue;
    }
    const std::string target = rule->overrides;  // a copy: the rule is moved into the set below
    if (!target.empty()) {
      auto shipped = origin_.find(target);
      if (shipped == origin_.end()) {
        errors.push_back({source.path, 0, "'overrides: " + target + "' names no shipped rule; this file is skipped"});
        continue;
      }
      if (shipped->second != RuleOrigin::kShipped) {
        const Rule* other = find(target);
        errors.push_back({source.path, 0, "'" + target + "' is already overridden by " + (other ? other->file : std::string("another rule")) +
                                              "; this file is skipped"});
        continue;
      }
      if (rule->id != target && origin_.count(rule->id)) {
        errors.push_back({source.path, 0, "rule id '" + rule->id + "' is already taken; this file is skipped"});
        continue;
      }
      overridden_.push_back(target + " (by " + source.path + ")");
      put(std::move(rule.value()), RuleOrigin::kUser, target);
      continue;
    }
    auto taken = origin_.find(rule->id);
    if (taken != origin_.end()) {
      const Rule* other = find(rule->id);
      if (taken->second == RuleOrigin::kShipped)
        errors.push_back({source.path, 0, "rule id '" + rule->id +
                                              "' is a shipped rule's: a user rule replaces it only when it says so with "
                                              "'overrides: " + rule->id + "'; this file is skipped"});
      else
        errors.push_back({source.path, 0, "duplicate rule id '" + rule->id + "' (also defined in " +
                                              (other ? other->file : std::string("another folder")) + "); this file is skipped"});
      continue;
    }
    put(std::move(rule.value()), RuleOrigin::kUser);
  }
  return errors;
}

void RuleSet::put(Rule rule, RuleOrigin origin, const std::string& replaces) {
  const std::string old = replaces.empty() ? rule.id : replaces;
  auto shared = std::make_shared<const Rule>(std::move(rule));
  auto same = std::find_if(rules_.begin(), rules_.end(), [&](const auto& r) { return r->id == old; });
  if (same != rules_.end()) *same = shared;
  else rules_.push_back(shared);
  origin_.erase(old);
  origin_[shared->id] = origin;
}

void RuleSet::addParsed(std::vector<Rule> rules) {
  for (auto& rule : rules) put(std::move(rule), RuleOrigin::kShipped);
}

const Rule* RuleSet::find(const std::string& id) const {
  for (const auto& r : rules_)
    if (r->id == id) return r.get();
  return nullptr;
}

}  // namespace denpex::core
