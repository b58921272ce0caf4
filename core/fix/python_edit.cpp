// Python edits: set `keyword=value` in a call, keeping the call's own layout; remove a float16
// cast of the trained weights.
#include <re2/re2.h>

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

std::optional<FixPlan> planDropFloat16Cast(const EditSpec& spec, const SourceFile& file, const SourceSpan& cast) {
  FixPlan plan;
  const std::string& s = file.text;
  plan.path = file.path;
  plan.line = static_cast<int>(cast.line) + 1;
  plan.originalText = s;
  plan.version = file.version;
  plan.outside = file.outside;
  const std::string where = baseName(file.path) + ":" + std::to_string(plan.line);
  plan.title = "Keep " + editSetting(spec) + " and let autocast compute in float16: remove the float16 cast (" + where + ")";
  // The line the check saw, found again in this text (the editor's buffer may have moved on).
  size_t begin = 0;
  for (uint64_t l = 0; l < cast.line && begin != std::string::npos; ++l) {
    begin = s.find('\n', begin);
    if (begin != std::string::npos) ++begin;
  }
  if (begin == std::string::npos || begin > s.size()) {
    plan.reason = "line " + std::to_string(plan.line) + " is no longer in " + baseName(file.path);
    return plan;
  }
  size_t end = lineEnd(s, begin);
  std::string_view line = std::string_view(s).substr(begin, end - begin);
  if (cast.end > line.size() || cast.begin >= cast.end) {
    plan.reason = "line " + std::to_string(plan.line) + " of " + baseName(file.path) + " changed since it was checked";
    return plan;
  }
  std::string_view segment = line.substr(cast.begin, cast.end - cast.begin);
  if (segment.find("torch_dtype") != std::string_view::npos) return std::nullopt;
  // Without autocast (or a Trainer's fp16=True, which is autocast) the float16 compute goes with
  // the cast: the run would train in float32, slower and larger, a choice for the user to make.
  static const RE2& autocast = *new RE2(R"((?m)^[^#\n]*(?:\bautocast\s*\(|\bfp16\s*=\s*True\b))");
  if (!RE2::PartialMatch(s, autocast)) {
    plan.reason = "no autocast in " + baseName(file.path) + ": without the cast it would train in float32; run the forward "
                  "pass under torch.autocast(\"cuda\", dtype=torch.float16) and remove the cast, or train in bfloat16";
    return plan;
  }
  static const RE2& half = *new RE2(R"((\s*\.\s*half\s*\(\s*\)))");
  static const RE2& to = *new RE2(R"((\s*\.\s*to\s*\(\s*(?:dtype\s*=\s*)?torch\s*\.\s*(?:float16|half)\s*\)))");
  // The check's span may stop inside the cast (`.to(torch.float16` before its parenthesis): the
  // cast is looked for from the span's start to the end of the line, and must start in the span.
  std::string_view tail = line.substr(cast.begin);
  re2::StringPiece found;
  bool matched = RE2::PartialMatch(tail, half, &found) || RE2::PartialMatch(tail, to, &found);
  if (!matched || static_cast<size_t>(found.data() - tail.data()) >= segment.size()) {
    plan.reason = "the float16 cast at " + where + " is not a plain .half() or .to(torch.float16): remove float16 from it by hand";
    return plan;
  }
  const size_t from = begin + cast.begin + static_cast<size_t>(found.data() - tail.data());
  const size_t to_ = from + found.size();
  // `model.half()` or `model = model.half()` alone on its line: without the cast the line does
  // nothing, so it goes whole.
  static const RE2& alone = *new RE2(R"(^\s*([A-Za-z_][\w.]*)\s*(?:=\s*([A-Za-z_][\w.]*)\s*)?$)");
  std::string rest = std::string(line.substr(0, from - begin)) + std::string(line.substr(to_ - begin));
  std::string lhs, rhs;
  size_t hash = rest.find('#');
  std::string code = hash == std::string::npos ? rest : rest.substr(0, hash);
  if (RE2::FullMatch(code, alone, &lhs, &rhs) && (rhs.empty() || rhs == lhs)) {
    size_t next = end < s.size() ? end + 1 : end;
    plan.edits.push_back({begin, next, ""});
  } else {
    plan.edits.push_back({from, to_, ""});
  }
  plan.applicable = true;
  return plan;
}

}  // namespace denpex::core::fix_detail
