// JSON-RPC and LSP basics shared by every layer above the transport: the JSON type, the error
// codes, and LspError, the one way a handler answers a request with an error.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace denpex::lsp {

using json = nlohmann::json;

// JSON-RPC and LSP error codes.
namespace error {
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;
constexpr int kRequestCancelled = -32800;
}  // namespace error

// Thrown by handlers to answer a request with an error; caught by the dispatcher only.
struct LspError : std::runtime_error {
  LspError(int code, const std::string& message) : std::runtime_error(message), code(code) {}
  int code;
};

}  // namespace denpex::lsp
