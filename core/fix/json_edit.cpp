// JSON key edits: set a dotted key of a config file (a DeepSpeed config's optimizer.params.eps).
#include <re2/re2.h>

#include "core/base/text.h"
#include "core/fix/edit_support.h"
#include "core/fix/json_spans.h"

namespace denpex::core::fix_detail {

using text::lineNumber;

std::optional<FixPlan> planJson(const EditSpec& spec, const SourceFile& file) {
  auto root = parseJsonSpans(file.text);
  if (!root) return std::nullopt;
  if (!spec.whenPath.empty()) {
    const JsonNode* when = jsonAt(root.get(), spec.whenPath);
    if (!when || when->kind != JsonNode::Kind::kString) return std::nullopt;
    RE2 re(spec.whenMatch);
    if (!spec.whenMatch.empty() && !RE2::PartialMatch(when->text, re)) return std::nullopt;
  }
  size_t dot = spec.path.rfind('.');
  std::string parentPath = dot == std::string::npos ? "" : spec.path.substr(0, dot);
  std::string key = dot == std::string::npos ? spec.path : spec.path.substr(dot + 1);
  const JsonNode* parent = parentPath.empty() ? root.get() : jsonAt(root.get(), parentPath);
  if (!parent || parent->kind != JsonNode::Kind::kObject) return std::nullopt;
  FixPlan plan;
  plan.path = file.path;
  plan.originalText = file.text;
  plan.version = file.version;
  const JsonNode* existing = jsonAt(parent, key);
  if (!existing && spec.onlyIfPresent) return std::nullopt;
  size_t at = existing ? existing->begin : parent->begin;
  plan.line = lineNumber(file.text, at);
  plan.outside = file.outside;
  const std::string where = baseName(file.path) + ":" + std::to_string(plan.line);
  const std::string value = editValueText(spec, EditSpec::Kind::kJsonKey);
  plan.title = formatTitle(spec, "", "", where);
  if (existing) {
    std::string shown(file.text.substr(existing->begin, existing->end - existing->begin));
    plan.title = formatTitle(spec, "", shown, where);
    if (!spec.minSafe) {
      if (shown == value) {
        plan.alreadySafe = true;
        plan.reason = spec.path + " is already " + shown;
        return plan;
      }
    } else {
      auto number = existing->kind == JsonNode::Kind::kOther ? numericLiteral(existing->text) : std::nullopt;
      if (!number) {
        plan.reason = spec.path + " is " + shown + ", not a number: make sure the value it resolves to is at least " + value;
        return plan;
      }
      if (*number >= *spec.minSafe) {
        plan.alreadySafe = true;
        plan.reason = spec.path + " is already " + shown + ", which is safe";
        return plan;
      }
    }
    plan.edits.push_back({existing->begin, existing->end, value});
  } else if (parent->members.empty()) {
    plan.edits.push_back({parent->begin + 1, parent->begin + 1, "\"" + key + "\": " + value});
  } else {
    const JsonNode& last = *parent->members.back().second;
    bool multiline = lineNumber(file.text, last.end) != lineNumber(file.text, parent->begin);
    std::string sep = multiline ? ",\n" + indentOf(file.text, last.begin) : ", ";
    // Start the member at the key of the last member's line, so indentation matches.
    plan.edits.push_back({last.end, last.end, sep + "\"" + key + "\": " + value});
  }
  plan.applicable = true;
  return plan;
}

}  // namespace denpex::core::fix_detail
