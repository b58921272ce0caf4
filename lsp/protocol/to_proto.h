// Core values -> LSP JSON: the only place where diagnoses, findings, fix plans, hovers, links,
// lenses and the server's capabilities take their wire shape. Handlers call these and never
// spell an LSP field themselves. Pure functions of their arguments.
//
// Positions: LSP's `character` counts UTF-16 code units unless the client and server agreed on
// `positionEncoding: "utf-8"`; the conversion itself lives in core/parse/log_text (LineIndex).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/analyze/diagnosis.h"
#include "core/fix/planner.h"
#include "core/parse/log_text.h"
#include "lsp/protocol/types.h"
#include "lsp/protocol/uri.h"

namespace denpex::lsp {

json toJson(core::TextPosition p);
json toRange(core::TextPosition start, core::TextPosition end);
// The empty range at the start of a line.
json lineStartRange(uint32_t line);

// The text of a line of the document diagnosed, by its 0-based number, without its '\n' (and a
// '\r' before it); empty past the end. A LineIndex's lines, or, for a log streamed from disk and
// never held whole, the evidence lines read again (io::readLinesAt).
using LineTexts = std::function<std::string_view(size_t line)>;
LineTexts lineTextsOf(const core::LineIndex& index);  // `index` must outlive the result

// The range of an evidence line in the document: its matched span, or the whole line when the
// evidence has no span.
json evidenceRange(const LineTexts& lines, const core::Evidence& e, core::PositionEncoding enc);
json evidenceRange(const core::LineIndex& index, const core::Evidence& e, core::PositionEncoding enc);

struct ConvertOptions {
  core::PositionEncoding encoding = core::PositionEncoding::kUtf16;
  std::string documentUri;
  int version = 0;
  // When a diagnosis spans several files (a folder of per-rank logs): the URI of each input,
  // indexed by Evidence::source. Evidence in another file links there by line.
  std::vector<std::string> sourceUris;
  uint32_t documentSource = 0;  // which input the document is
  // The file: URI of denpex's documentation folder, ending in '/' (rules' pages are linked from
  // their diagnostics); empty when the server has none beside it.
  std::string docsUri;
  // The URI of the file a traceback frame names, or nullopt (the server's one frame resolver).
  std::function<std::optional<std::string>(const std::string& framePath)> frameUri;
};

// One finding as an LSP Diagnostic on the document it was found in.
json toDiagnostic(const core::Diagnosis& d, size_t finding, const LineTexts& lines, const ConvertOptions& options);
json toDiagnostic(const core::Diagnosis& d, size_t finding, const core::LineIndex& lines, const ConvertOptions& options);

// The diagnostics of every finding whose first evidence line is in the document: collateral
// failures link to the initiating one and say so, the initiating one links to them and names
// the rank that failed first; the same rule on the same line is shown once (`seen`, shared
// across calls for one document). Each diagnostic's data carries `set` (document, selection,
// folder) so a code action can find its finding again.
json toDiagnostics(const core::Diagnosis& d, const LineTexts& lines, const ConvertOptions& options, const char* set,
                   std::vector<std::pair<std::string, uint64_t>>& seen);
json toDiagnostics(const core::Diagnosis& d, const core::LineIndex& lines, const ConvertOptions& options,
                   const char* set, std::vector<std::pair<std::string, uint64_t>>& seen);

// textDocument/publishDiagnostics params; `version` is the document version diagnosed.
json publishDiagnosticsParams(const std::string& uri, std::optional<int> version, json diagnostics);

// Fix plans as LSP text edits in the file they change.
json toTextEdits(const core::FixPlan& plan, core::PositionEncoding enc);
// A WorkspaceEdit for one plan: versioned documentChanges when the client supports them (so
// nothing is written over a newer buffer), else plain changes.
// With `confirmFrom` (the URI of the document the fix is offered on, when the client supports
// change annotations), an edit to any other file carries an annotation that needs confirmation.
json toWorkspaceEdit(const core::FixPlan& plan, core::PositionEncoding enc, bool documentChanges,
                     const std::string& confirmFrom = "");
// A quickfix CodeAction: with an edit, or disabled with a reason when `edit` is null.
json toCodeAction(const std::string& title, const json& diagnostic, const json& edit, bool preferred,
                  const std::string& disabledReason);

json toHover(const std::string& markdown, json range);
json toDocumentLink(json range, const std::string& target, const std::string& tooltip);
json toCodeLens(uint32_t line, const std::string& title, const std::string& command, const json& arguments);

// The initialize result: what this server can do.
json initializeResult(core::PositionEncoding enc, const std::vector<std::string>& commands);

}  // namespace denpex::lsp
