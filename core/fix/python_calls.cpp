// A small Python scanner for finding calls and their arguments (see python_calls.h).
#include "core/fix/python_calls.h"

#include <cctype>

namespace denpex::core {
namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool identChar(char c) { return identStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

// If a string literal starts at s[i] (with any prefix such as r, b, f, rb), returns the offset
// just past it; otherwise returns i.
size_t skipString(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && j - i < 2 && std::string_view("rRbBfFuU").find(s[j]) != std::string_view::npos) ++j;
  if (j >= s.size() || (s[j] != '\'' && s[j] != '"')) return i;
  if (j > i && i > 0 && identChar(s[i - 1])) return i;  // "ar'x'" is not a prefixed string
  char q = s[j];
  bool raw = false;
  for (size_t k = i; k < j; ++k) raw |= (s[k] == 'r' || s[k] == 'R');
  bool triple = j + 2 < s.size() && s[j + 1] == q && s[j + 2] == q;
  size_t k = j + (triple ? 3 : 1);
  while (k < s.size()) {
    if (s[k] == '\\' && !raw) {
      k += 2;
      continue;
    }
    if (s[k] == '\\' && raw) {  // a raw string still cannot end on an escaped quote
      k += 2;
      continue;
    }
    if (!triple && s[k] == '\n') return k;  // unterminated: stop at the line's end
    if (s[k] == q) {
      if (!triple) return k + 1;
      if (k + 2 < s.size() && s[k + 1] == q && s[k + 2] == q) return k + 3;
    }
    ++k;
  }
  return s.size();
}

size_t skipComment(std::string_view s, size_t i) {
  while (i < s.size() && s[i] != '\n') ++i;
  return i;
}

bool calleeMatches(const std::string& name, const std::vector<std::string>& callees) {
  for (const auto& c : callees) {
    if (name == c) return true;
    if (name.size() > c.size() && name.compare(name.size() - c.size(), c.size(), c) == 0 &&
        name[name.size() - c.size() - 1] == '.')
      return true;
  }
  return false;
}

// Trims spaces, newlines and comments from both ends of s[begin, end).
void trimArgument(std::string_view s, size_t& begin, size_t& end) {
  while (true) {
    while (begin < end && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
    if (begin < end && s[begin] == '#') {
      begin = std::min(skipComment(s, begin), end);
      continue;
    }
    break;
  }
  // A comment may follow the argument on its line: find the last code character.
  size_t lastCode = begin;
  size_t i = begin;
  while (i < end) {
    size_t after = skipString(s, i);
    if (after != i) {
      lastCode = std::min(after, end);
      i = after;
      continue;
    }
    if (s[i] == '#') {
      i = skipComment(s, i);
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(s[i]))) lastCode = i + 1;
    ++i;
  }
  end = std::max(begin, lastCode);
}

void classify(std::string_view s, CallArgument& arg) {
  arg.valueBegin = arg.begin;
  arg.valueEnd = arg.end;
  if (arg.begin < arg.end && s[arg.begin] == '*') {
    arg.star = true;
    return;
  }
  size_t i = arg.begin;
  if (i >= arg.end || !identStart(s[i])) return;
  while (i < arg.end && identChar(s[i])) ++i;
  size_t nameEnd = i;
  while (i < arg.end && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  if (i < arg.end && s[i] == '=' && !(i + 1 < arg.end && s[i + 1] == '=')) {
    arg.keyword = std::string(s.substr(arg.begin, nameEnd - arg.begin));
    ++i;
    while (i < arg.end && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    arg.valueBegin = i;
  }
}

// Parses the arguments of the call whose '(' is at `open`.
void parseArguments(std::string_view s, PythonCall& call) {
  size_t i = call.openParen + 1;
  size_t argStart = i;
  int depth = 0;
  auto finish = [&](size_t end, bool isComma) {
    CallArgument arg;
    arg.begin = argStart;
    arg.end = end;
    trimArgument(s, arg.begin, arg.end);
    if (arg.begin < arg.end) {
      classify(s, arg);
      call.args.push_back(arg);
      call.trailingComma = false;
      if (isComma) {
        call.trailingComma = true;
        call.trailingCommaAt = end;
      }
    }
  };
  while (i < s.size()) {
    size_t after = skipString(s, i);
    if (after != i) {
      i = after;
      continue;
    }
    char c = s[i];
    if (c == '#') {
      i = skipComment(s, i);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) {
        finish(i, false);
        call.closeParen = i;
        call.closed = true;
        return;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      finish(i, true);
      argStart = i + 1;
    }
    ++i;
  }
  call.closeParen = s.size();
}

}  // namespace

std::vector<PythonCall> findPythonCalls(std::string_view s, const std::vector<std::string>& callees) {
  std::vector<PythonCall> out;
  size_t i = 0;
  std::string name;
  size_t nameBegin = 0;
  bool afterDot = false;
  bool defining = false;  // the name follows `def` or `class`: a definition, not a call
  while (i < s.size()) {
    size_t after = skipString(s, i);
    if (after != i) {
      i = after;
      name.clear();
      continue;
    }
    char c = s[i];
    if (c == '#') {
      i = skipComment(s, i);
      continue;
    }
    if (identStart(c)) {
      size_t j = i;
      while (j < s.size() && identChar(s[j])) ++j;
      std::string_view word = s.substr(i, j - i);
      if (afterDot && !name.empty()) {
        name += ".";
        name += word;
      } else {
        defining = name == "def" || name == "class";
        name = std::string(word);
        nameBegin = i;
      }
      afterDot = false;
      i = j;
      continue;
    }
    if (c == '.' && !name.empty()) {
      afterDot = true;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (c == '(' && !name.empty() && !afterDot && !defining && calleeMatches(name, callees)) {
      PythonCall call;
      call.name = name;
      call.nameBegin = nameBegin;
      call.openParen = i;
      parseArguments(s, call);
      out.push_back(std::move(call));
    }
    name.clear();
    afterDot = false;
    ++i;
  }
  return out;
}

}  // namespace denpex::core
