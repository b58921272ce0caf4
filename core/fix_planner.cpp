// Source edits for findings: Python keyword arguments and JSON config keys (see fix_planner.h).
#include "core/fix_planner.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include "core/log_text.h"
#include "core/python_calls.h"

namespace denpex::core {
namespace {

std::string baseName(const std::string& path) {
  size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int lineNumber(std::string_view text, size_t offset) {
  return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size())), '\n')) + 1;
}

size_t lineBegin(std::string_view text, size_t offset) {
  size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

size_t lineEnd(std::string_view text, size_t offset) {
  size_t nl = text.find('\n', offset);
  return nl == std::string_view::npos ? text.size() : nl;
}

std::string indentOf(std::string_view text, size_t offset) {
  size_t b = lineBegin(text, offset);
  size_t e = b;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
  return std::string(text.substr(b, e - b));
}

// A Python or JSON numeric literal (underscores allowed, as Python does).
std::optional<double> numericLiteral(std::string_view text) {
  std::string clean;
  for (char c : text)
    if (c != '_') clean += c;
  if (clean.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(clean.c_str(), &end);
  if (end != clean.c_str() + clean.size()) return std::nullopt;
  return v;
}

std::string formatTitle(const EditSpec& spec, const std::string& callee, const std::string& where) {
  std::string t = spec.title;
  if (t.empty()) {
    std::string key = spec.kind == EditSpec::Kind::kPythonKeyword ? spec.keyword : spec.path;
    t = "Set " + key + "=" + spec.value + " in {callee}";
  }
  size_t p = t.find("{callee}");
  if (p != std::string::npos) t.replace(p, 8, callee);
  return t + " (" + where + ")";
}

// --- Python keyword edits ------------------------------------------------------------------

FixPlan planPythonCall(const EditSpec& spec, const SourceFile& file, const PythonCall& call) {
  FixPlan plan;
  const std::string& s = file.text;
  plan.path = file.path;
  plan.line = lineNumber(s, call.nameBegin);
  plan.originalText = s;
  plan.version = file.version;
  plan.title = formatTitle(spec, call.name + "(...)", baseName(file.path) + ":" + std::to_string(plan.line));
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
    std::string_view value = std::string_view(s).substr(present->valueBegin, present->valueEnd - present->valueBegin);
    if (!spec.minSafe) {
      // A non-numeric setting (True, a string): safe when it already says exactly that.
      if (value == spec.value) {
        plan.alreadySafe = true;
        plan.reason = call.name + "(...) already has " + spec.keyword + "=" + std::string(value);
        return plan;
      }
      plan.edits.push_back({present->valueBegin, present->valueEnd, spec.value});
      plan.applicable = true;
      return plan;
    }
    auto number = numericLiteral(value);
    if (!number) {
      plan.reason = spec.keyword + " is set from `" + std::string(value) + "`, not a literal: make sure it is at least " +
                    spec.value + " where that value comes from";
      return plan;
    }
    if (spec.minSafe && *number >= *spec.minSafe) {
      plan.alreadySafe = true;
      plan.reason = call.name + "(...) already has " + spec.keyword + "=" + std::string(value) + ", which is safe";
      return plan;
    }
    plan.edits.push_back({present->valueBegin, present->valueEnd, spec.value});
    plan.applicable = true;
    return plan;
  }
  if (star) {
    plan.reason = call.name + "(...) passes **kwargs, which may set " + spec.keyword + ": set it to " + spec.value +
                  " where those arguments are built";
    return plan;
  }
  std::string kw = spec.keyword + "=" + spec.value;
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

// --- JSON key edits ------------------------------------------------------------------------

struct JsonNode {
  enum class Kind { kObject, kArray, kString, kOther } kind = Kind::kOther;
  size_t begin = 0, end = 0;
  std::vector<std::pair<std::string, std::unique_ptr<JsonNode>>> members;
  std::string text;  // decoded string value (escapes left as written)
};

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

std::optional<FixPlan> planJson(const EditSpec& spec, const SourceFile& file) {
  auto root = JsonSpans(file.text).parse();
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
  size_t at = existing ? existing->begin : parent->begin;
  plan.line = lineNumber(file.text, at);
  plan.title = formatTitle(spec, spec.path, baseName(file.path) + ":" + std::to_string(plan.line));
  if (existing) {
    auto number = existing->kind == JsonNode::Kind::kOther ? numericLiteral(existing->text) : std::nullopt;
    std::string shown(file.text.substr(existing->begin, existing->end - existing->begin));
    if (!number) {
      plan.reason = spec.path + " is " + shown + ", not a number: make sure the value it resolves to is at least " + spec.value;
      return plan;
    }
    if (spec.minSafe && *number >= *spec.minSafe) {
      plan.alreadySafe = true;
      plan.reason = spec.path + " is already " + shown + ", which is safe";
      return plan;
    }
    plan.edits.push_back({existing->begin, existing->end, spec.value});
  } else if (parent->members.empty()) {
    plan.edits.push_back({parent->begin + 1, parent->begin + 1, "\"" + key + "\": " + spec.value});
  } else {
    const JsonNode& last = *parent->members.back().second;
    bool multiline = lineNumber(file.text, last.end) != lineNumber(file.text, parent->begin);
    std::string sep = multiline ? ",\n" + indentOf(file.text, last.begin) : ", ";
    // Start the member at the key of the last member's line, so indentation matches.
    plan.edits.push_back({last.end, last.end, sep + "\"" + key + "\": " + spec.value});
  }
  plan.applicable = true;
  return plan;
}

bool mentionsAny(const std::string& text, const std::vector<std::string>& callees) {
  for (const auto& c : callees) {
    size_t dot = c.rfind('.');
    std::string last = dot == std::string::npos ? c : c.substr(dot + 1);
    if (text.find(last + "(") != std::string::npos || text.find(last + " (") != std::string::npos) return true;
  }
  return false;
}

void planFile(const EditSpec& spec, const SourceFile& file, std::vector<FixPlan>& out) {
  if (spec.kind == EditSpec::Kind::kPythonKeyword) {
    if (!endsWith(file.path, ".py") || !mentionsAny(file.text, spec.callees)) return;
    for (const auto& call : findPythonCalls(file.text, spec.callees)) out.push_back(planPythonCall(spec, file, call));
  } else {
    if (!endsWith(file.path, ".json")) return;
    if (auto plan = planJson(spec, file)) out.push_back(std::move(*plan));
  }
}

}  // namespace

std::vector<FixPlan> planFixes(const Finding& finding, SourceProvider& sources) {
  std::vector<FixPlan> out;
  if (!finding.rule || finding.rule->edits.empty()) return out;
  const auto& specs = finding.rule->edits;
  if (finding.userFrame) {
    if (auto file = sources.open(finding.userFrame->file)) {
      for (const auto& spec : specs) planFile(spec, *file, out);
      // Nearest call to the frame's line first: the traceback points near the optimizer.
      int target = finding.userFrame->line;
      std::stable_sort(out.begin(), out.end(), [&](const FixPlan& a, const FixPlan& b) {
        return std::abs(a.line - target) < std::abs(b.line - target);
      });
      if (!out.empty()) return out;
    }
  }
  for (const auto& path : sources.candidates()) {
    auto file = sources.open(path);
    if (!file) continue;
    for (const auto& spec : specs) planFile(spec, *file, out);
  }
  return out;
}

std::string applyEdits(std::string_view text, const std::vector<TextEdit>& edits) {
  std::string out;
  size_t at = 0;
  for (const auto& e : edits) {
    out.append(text.substr(at, e.begin - at));
    out += e.newText;
    at = e.end;
  }
  out.append(text.substr(std::min(at, text.size())));
  return out;
}

std::string unifiedDiff(const std::string& path, std::string_view text, const std::vector<TextEdit>& edits) {
  if (edits.empty()) return "";
  LineIndex index(text);
  // Regions of whole old lines touched by edits, merged when they share a line.
  struct Region {
    size_t first, last;  // old lines, 0-based inclusive
    std::vector<TextEdit> edits;
  };
  std::vector<Region> regions;
  for (const auto& e : edits) {
    size_t first = index.lineOf(e.begin);
    size_t last = index.lineOf(e.end > e.begin ? e.end - 1 : e.end);
    last = std::max(first, last);
    if (!regions.empty() && first <= regions.back().last) {
      regions.back().last = std::max(regions.back().last, last);
      regions.back().edits.push_back(e);
    } else {
      regions.push_back({first, last, {e}});
    }
  }
  auto lineWithEol = [&](size_t line) { return std::string(index.lineText(line)); };
  size_t total = index.lineCount();
  if (!text.empty() && text.back() == '\n') --total;  // the empty line after the final newline
  const size_t context = 3;
  std::string out = "--- a/" + path + "\n+++ b/" + path + "\n";
  size_t r = 0;
  while (r < regions.size()) {
    // Group regions whose context overlaps into one hunk.
    size_t r2 = r;
    while (r2 + 1 < regions.size() && regions[r2 + 1].first <= regions[r2].last + 2 * context + 1) ++r2;
    size_t hunkFirst = regions[r].first >= context ? regions[r].first - context : 0;
    size_t hunkLast = std::min(total == 0 ? 0 : total - 1, regions[r2].last + context);
    std::string body;
    size_t oldCount = 0, newCount = 0;
    size_t line = hunkFirst;
    for (size_t k = r; k <= r2; ++k) {
      for (; line < regions[k].first; ++line, ++oldCount, ++newCount) body += " " + lineWithEol(line) + "\n";
      size_t b = index.lineStart(regions[k].first);
      size_t e = index.lineStart(regions[k].last) + index.lineText(regions[k].last).size();
      std::vector<TextEdit> local;
      for (auto ed : regions[k].edits) {
        ed.begin -= b;
        ed.end -= b;
        local.push_back(ed);
      }
      std::string replaced = applyEdits(text.substr(b, e - b), local);
      for (; line <= regions[k].last; ++line, ++oldCount) body += "-" + lineWithEol(line) + "\n";
      size_t start = 0;
      while (true) {
        size_t nl = replaced.find('\n', start);
        body += "+" + replaced.substr(start, nl == std::string::npos ? std::string::npos : nl - start) + "\n";
        ++newCount;
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
    for (; line <= hunkLast; ++line, ++oldCount, ++newCount) body += " " + lineWithEol(line) + "\n";
    out += "@@ -" + std::to_string(hunkFirst + 1) + "," + std::to_string(oldCount) + " +" +
           std::to_string(hunkFirst + 1) + "," + std::to_string(newCount) + " @@\n" + body;
    r = r2 + 1;
  }
  return out;
}

}  // namespace denpex::core
