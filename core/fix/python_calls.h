// Finds calls in Python source without running Python: enough of the tokenizer (strings of
// every prefix and quote style, comments, brackets) to find `name.Dotted(` and split its
// arguments at top level. All offsets are bytes into the source text. Pure; safe from any thread.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace denpex::core {

struct CallArgument {
  size_t begin = 0, end = 0;  // the argument's text, trimmed of spaces and comments
  std::string keyword;        // empty for a positional argument
  size_t valueBegin = 0, valueEnd = 0;
  bool star = false;          // *args or **kwargs
};

struct PythonCall {
  std::string name;           // dotted, as written: "torch.optim.AdamW"
  size_t nameBegin = 0;
  size_t openParen = 0;       // offset of '('
  size_t closeParen = 0;      // offset of ')'; the text size when the call is not closed
  bool closed = false;
  bool trailingComma = false; // a ',' after the last argument
  size_t trailingCommaAt = 0;
  std::vector<CallArgument> args;
};

// Whether a call's dotted name is one of `callees` or ends with "." + one of them.
bool calleeMatches(const std::string& name, const std::vector<std::string>& callees);
// The calls that calleeMatches `callees`. In source order.
std::vector<PythonCall> findPythonCalls(std::string_view source, const std::vector<std::string>& callees);

// What the names of a Python file are bound to, read from its statements without running it:
// `import a.b as c`, `from a.b import C as D`, `from a import (B, C)`, `from a import *`,
// `def`/`class` (the file's own), and assignments (`X = a.b.C` an alias, anything else the
// file's own). Statements anywhere count (inside functions, `try:` blocks, after `if ...:`).
struct PythonImports {
  // name -> what it was bound to, each binding once: "torch.optim" (a module or a name in
  // one), "=a.b" (an alias of a dotted name in this file), "<local>" (the file's own).
  std::map<std::string, std::set<std::string>> bindings;
  std::vector<std::string> starModules;  // `from M import *`
};
PythonImports findPythonImports(std::string_view source);

// The fully qualified name that `dotted`, as written in the file, refers to through its
// bindings ("optim.AdamW" -> "torch.optim.AdamW" after `from torch import optim`). nullopt when
// it is the file's own, unbound (a builtin, or from a star import that is not the only one), or
// bound to different things in different places.
std::optional<std::string> resolvePythonName(const PythonImports& imports, const std::string& dotted);

}  // namespace denpex::core
