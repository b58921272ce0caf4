// Protocol types and conversions: the only place where core values become LSP JSON.
//
// Positions: LSP's `character` counts UTF-16 code units unless the client and server agreed on
// `positionEncoding: "utf-8"`; the conversion itself lives in core/log_text (LineIndex).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/diagnoser.h"
#include "core/fix_planner.h"
#include "core/log_text.h"

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

// file:// URIs <-> paths (percent-encoding as VS Code writes it). A URI of another scheme maps
// to an empty path.
std::string uriToPath(const std::string& uri);
std::string pathToUri(const std::string& path);

// Reads a required member of `params`, throwing InvalidParams with a clear message.
const json& member(const json& params, const char* name);

json toJson(core::TextPosition p);
core::TextPosition positionFromJson(const json& j);

// The range of an evidence line in the document: its matched span, or the whole line when the
// evidence has no span.
json evidenceRange(const core::LineIndex& index, const core::Evidence& e, core::PositionEncoding enc);

struct ConvertOptions {
  core::PositionEncoding encoding = core::PositionEncoding::kUtf16;
  std::string documentUri;
  int version = 0;
  std::vector<std::string> workspaceRoots;  // to turn relative traceback paths into URIs
  // When a diagnosis spans several files (a folder of per-rank logs): the URI of each input,
  // indexed by Evidence::source. Evidence in another file links there by line.
  std::vector<std::string> sourceUris;
  uint32_t documentSource = 0;  // which input the document is
};

// A finding as an LSP Diagnostic on the document it was found in. `index` indexes the
// finding in its diagnosis; `lineOffset` shifts lines (a diagnosed selection starts mid-file).
json toDiagnostic(const core::Finding& f, size_t index, const core::LineIndex& lines, const ConvertOptions& options);

// Fix plans as LSP text edits in the file they change.
json toTextEdits(const core::FixPlan& plan, core::PositionEncoding enc);

}  // namespace denpex::lsp
