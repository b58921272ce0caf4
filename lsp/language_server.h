// `denpex lsp`: the language server on stdin and stdout. The only entry point of lsp/ that the
// executable (tool/main.cpp) uses.
#pragma once

#include <string>
#include <vector>

namespace denpex::lsp {

// Runs the server until `exit` or the end of input; returns the exit code (0 after shutdown,
// 1 without, 2 for bad arguments). Logs go to stderr; stdout carries only the protocol.
int runLanguageServer(const std::vector<std::string>& args);

}  // namespace denpex::lsp
