// Finds calls in Python source without running Python: enough of the tokenizer (strings of
// every prefix and quote style, comments, brackets) to find `name.Dotted(` and split its
// arguments at top level. All offsets are bytes into the source text. Pure; safe from any thread.
#pragma once

#include <cstddef>
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

// Calls whose dotted name is one of `callees` or ends with "." + one of them. In source order.
std::vector<PythonCall> findPythonCalls(std::string_view source, const std::vector<std::string>& callees);

}  // namespace denpex::core
