// Python keyword edits: set `keyword=value` in a call, keeping the call's own layout.
#include <algorithm>

#include "core/base/text.h"
#include "core/fix/edit_support.h"

namespace denpex::core::fix_detail {

using text::lineBegin;
using text::lineEnd;
using text::lineNumber;

FixPlan planPythonCall(const EditSpec& spec, const SourceFile& file, const PythonCall& call) {
  FixPlan plan;
  const std::string& s = file.text;
  plan.path = file.path;
  plan.line = lineNumber(s, call.nameBegin);
  plan.originalText = s;
  plan.version = file.version;
  plan.outside = file.outside;
  const std::string where = baseName(file.path) + ":" + std::to_string(plan.line);
  const std::string target = call.name + "(...)";
  const std::string value = editValueText(spec, EditSpec::Kind::kPythonKeyword);
  plan.title = formatTitle(spec, target, "", where);
  if (!call.closed) {
    plan.reason = "the " + call.name + "( call at line " + std::to_string(plan.line) + " is not closed";
    return plan;
  }
  const CallArgument* present = nullptr;
  size_t positional = 0;
  bool star = false;
  for (const auto& arg : call.args) {
    if (arg.star) {
      star = true;
      continue;
    }
    if (arg.keyword.empty()) {
      if (spec.position && positional == static_cast<size_t>(*spec.position)) present = &arg;
      ++positional;
    } else if (arg.keyword == spec.keyword) {
      present = &arg;
    }
  }
  if (present) {
    std::string_view current = std::string_view(s).substr(present->valueBegin, present->valueEnd - present->valueBegin);
    plan.title = formatTitle(spec, target, current, where);
    if (!spec.minSafe) {
      // A setting without a safe range (a bool, a string): safe when it already says exactly
      // that (a string in either kind of quotes).
      bool same = current == value ||
                  (spec.type == EditSpec::ValueType::kString && current == "'" + spec.value + "'");
      if (same) {
        plan.alreadySafe = true;
        plan.reason = call.name + "(...) already has " + spec.keyword + "=" + std::string(current);
        return plan;
      }
      plan.edits.push_back({present->valueBegin, present->valueEnd, value});
      plan.applicable = true;
      return plan;
    }
    auto number = numericLiteral(current);
    if (!number) {
      plan.reason = spec.keyword + " is set from `" + std::string(current) + "`, not a literal: make sure it is at least " +
                    value + " where that value comes from";
      return plan;
    }
    if (*number >= *spec.minSafe) {
      plan.alreadySafe = true;
      plan.reason = call.name + "(...) already has " + spec.keyword + "=" + std::string(current) + ", which is safe";
      return plan;
    }
    plan.edits.push_back({present->valueBegin, present->valueEnd, value});
    plan.applicable = true;
    return plan;
  }
  if (spec.onlyIfPresent) {
    plan.reason = call.name + "(...) has no " + spec.keyword + " to change";
    return plan;
  }
  if (star) {
    plan.reason = call.name + "(...) passes **kwargs, which may set " + spec.keyword + ": set it to " + value +
                  " where those arguments are built";
    return plan;
  }
  std::string kw = spec.keyword + "=" + value;
  if (call.args.empty()) {
    plan.edits.push_back({call.openParen + 1, call.openParen + 1, kw});
  } else {
    const CallArgument& last = call.args.back();
    bool multiline = lineNumber(s, last.end) != lineNumber(s, call.closeParen);
    if (multiline) {
      std::string indent = indentOf(s, last.begin);
      if (call.trailingComma) {
        size_t eol = lineEnd(s, call.trailingCommaAt);
        plan.edits.push_back({eol, eol, "\n" + indent + kw + ","});
      } else {
        size_t eol = lineEnd(s, last.end);
        plan.edits.push_back({last.end, last.end, ","});
        plan.edits.push_back({eol, eol, "\n" + indent + kw});
      }
    } else if (call.trailingComma) {
      plan.edits.push_back({call.trailingCommaAt + 1, call.trailingCommaAt + 1, " " + kw});
    } else {
      plan.edits.push_back({last.end, last.end, ", " + kw});
    }
  }
  plan.applicable = true;
  return plan;
}

}  // namespace denpex::core::fix_detail
