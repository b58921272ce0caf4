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

bool calleeMatches(const std::string& name, const std::vector<std::string>& callees) {
  for (const auto& c : callees) {
    if (name == c) return true;
    if (name.size() > c.size() && name.compare(name.size() - c.size(), c.size(), c) == 0 &&
        name[name.size() - c.size() - 1] == '.')
      return true;
  }
  return false;
}

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

// --- imports -----------------------------------------------------------------------------------

namespace denpex::core {
namespace {

// A statement's tokens, without strings' contents or comments: enough to read imports,
// definitions and simple assignments.
struct Token {
  enum class Kind { kName, kOp, kString } kind;
  std::string text;
};

// Splits the source into simple statements at newlines outside brackets, ';' and the ':' of a
// compound statement's header (so `try: import x` and `if y: from a import b` are read).
std::vector<std::vector<Token>> statements(std::string_view s) {
  std::vector<std::vector<Token>> out(1);
  int depth = 0;
  size_t i = 0;
  auto end = [&] {
    if (!out.back().empty()) out.emplace_back();
  };
  while (i < s.size()) {
    size_t after = skipString(s, i);
    if (after != i) {
      out.back().push_back({Token::Kind::kString, {}});
      i = after;
      continue;
    }
    char c = s[i];
    if (c == '#') {
      i = skipComment(s, i);
      continue;
    }
    if (c == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
      i += 2;
      continue;
    }
    if (identStart(c)) {
      size_t j = i;
      while (j < s.size() && identChar(s[j])) ++j;
      out.back().push_back({Token::Kind::kName, std::string(s.substr(i, j - i))});
      i = j;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (depth == 0 && (c == '\n' || c == ';')) {
      end();
    } else if (depth == 0 && c == ':' && !out.back().empty() && out.back().front().kind == Token::Kind::kName) {
      static const std::set<std::string>& kCompound = *new std::set<std::string>{
          "if", "elif", "else", "try", "except", "finally", "with", "for", "while", "async"};
      if (kCompound.count(out.back().front().text)) {
        out.back().clear();  // the header binds nothing we read; what follows the ':' is a statement
      } else {
        out.back().push_back({Token::Kind::kOp, ":"});
      }
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      // '==', '<=', ... are kept as one token so that '=' alone means assignment.
      if ((c == '=' || c == '!' || c == '<' || c == '>') && i + 1 < s.size() && s[i + 1] == '=') {
        out.back().push_back({Token::Kind::kOp, std::string(s.substr(i, 2))});
        i += 2;
        continue;
      }
      out.back().push_back({Token::Kind::kOp, std::string(1, c)});
    }
    ++i;
  }
  return out;
}

bool isName(const std::vector<Token>& t, size_t i) { return i < t.size() && t[i].kind == Token::Kind::kName; }
bool isOp(const std::vector<Token>& t, size_t i, const char* op) {
  return i < t.size() && t[i].kind == Token::Kind::kOp && t[i].text == op;
}

// A dotted name starting at t[i]; advances i past it. Empty when t[i] is not a name.
std::string dottedAt(const std::vector<Token>& t, size_t& i) {
  std::string name;
  if (!isName(t, i)) return name;
  name = t[i++].text;
  while (isOp(t, i, ".") && isName(t, i + 1)) {
    name += "." + t[i + 1].text;
    i += 2;
  }
  return name;
}

void readStatement(const std::vector<Token>& t, PythonImports& out) {
  if (t.empty()) return;
  size_t i = 0;
  auto bind = [&](const std::string& name, const std::string& target) { out.bindings[name].insert(target); };
  const std::string& first = t[0].kind == Token::Kind::kName ? t[0].text : std::string();
  if (first == "import") {
    ++i;
    while (i < t.size()) {
      std::string module = dottedAt(t, i);
      if (module.empty()) return;
      if (isName(t, i) && t[i].text == "as" && isName(t, i + 1)) {
        bind(t[i + 1].text, module);
        i += 2;
      } else {
        std::string head = module.substr(0, module.find('.'));
        bind(head, head);  // `import a.b` binds `a`, which names the package a
      }
      if (!isOp(t, i, ",")) return;
      ++i;
    }
    return;
  }
  if (first == "from") {
    ++i;
    std::string dots;
    while (isOp(t, i, ".")) dots += t[i++].text;
    std::string module = dots;
    if (!(isName(t, i) && t[i].text == "import")) module += dottedAt(t, i);  // `from . import x` names no module
    if (!isName(t, i) || t[i].text != "import") return;
    ++i;
    if (isOp(t, i, "*")) {
      if (dots.empty()) out.starModules.push_back(module);
      return;
    }
    if (isOp(t, i, "(")) ++i;
    while (isName(t, i)) {
      std::string name = t[i++].text;
      std::string as = name;
      if (isName(t, i) && t[i].text == "as" && isName(t, i + 1)) {
        as = t[i + 1].text;
        i += 2;
      }
      // A relative import names a module of this project: never one of the APIs an edit targets.
      bind(as, dots.empty() ? module + "." + name : "<local>");
      if (!isOp(t, i, ",")) break;
      ++i;
    }
    return;
  }
  size_t at = (first == "async") ? 1 : 0;
  if (isName(t, at) && (t[at].text == "def" || t[at].text == "class") && isName(t, at + 1)) {
    bind(t[at + 1].text, "<local>");
    return;
  }
  // NAME = ..., NAME: T = ..., NAME += ...: the file's own, unless it is `NAME = a.b.C` alone.
  if (isName(t, 0) && t.size() >= 2 && t[1].kind == Token::Kind::kOp && t[1].text != "." && t[1].text != "(" &&
      t[1].text != "[" && t[1].text != "," && t[1].text != "==") {
    bool assigns = false;
    for (const auto& tok : t) assigns |= tok.kind == Token::Kind::kOp && tok.text == "=";
    if (!assigns) return;
    if (isOp(t, 1, "=")) {
      size_t j = 2;
      std::string rhs = dottedAt(t, j);
      if (!rhs.empty() && j == t.size() && rhs != t[0].text) {
        bind(t[0].text, "=" + rhs);
        return;
      }
    }
    bind(t[0].text, "<local>");
  }
}

std::optional<std::string> resolve(const PythonImports& imports, const std::string& dotted, int depth) {
  if (depth > 8) return std::nullopt;
  size_t dot = dotted.find('.');
  std::string head = dotted.substr(0, dot);
  std::string rest = dot == std::string::npos ? "" : dotted.substr(dot);
  auto it = imports.bindings.find(head);
  if (it == imports.bindings.end()) {
    if (imports.starModules.size() == 1) return imports.starModules.front() + "." + dotted;
    return std::nullopt;
  }
  std::optional<std::string> target;
  for (const auto& b : it->second) {
    std::optional<std::string> one;
    if (b == "<local>") return std::nullopt;
    if (b[0] == '=') one = resolve(imports, b.substr(1), depth + 1);
    else one = b;
    if (!one || (target && *target != *one)) return std::nullopt;
    target = one;
  }
  if (!target) return std::nullopt;
  return *target + rest;
}

}  // namespace

PythonImports findPythonImports(std::string_view source) {
  PythonImports out;
  for (const auto& statement : statements(source)) readStatement(statement, out);
  return out;
}

std::optional<std::string> resolvePythonName(const PythonImports& imports, const std::string& dotted) {
  return resolve(imports, dotted, 0);
}

}  // namespace denpex::core
