// Renderers: a Diagnosis (and the fix plans made for it) as terminal text, Markdown, JSON and
// SARIF 2.1.0, and a rule's encyclopedia entry as Markdown. The JSON schema is documented in
// docs/json-output.md and versioned by its "version" field; LSP conversions live in lsp/.
// Pure functions of their arguments; safe to call from any thread.
#pragma once

#include <string>
#include <vector>

#include "core/analyze/diagnosis.h"
#include "core/fix/planner.h"
#include "core/rules/rule.h"

namespace denpex::core {

constexpr const char* kVersion = "0.1.0";
constexpr int kJsonSchemaVersion = 1;

// The rank list in short form: "0-3, 5".
std::string ranksText(const std::vector<int>& ranks);

// The incident's rank table as Markdown (hovers, reports); empty for a single-process log.
std::string rankTableMarkdown(const Incident& incident);

// Where each rule's documentation page lives, relative to denpex's documentation folder (docs/
// in its source, beside the server in the editor extension): rules/<category>/<id>.md. The
// project has no public address yet, so no output names a web page.
std::string ruleDocPath(const Rule& rule);

struct ReportInput {
  const Diagnosis& diagnosis;
  // plans[i] are the fix plans for diagnosis.findings[i]; may be empty (no fixes planned).
  const std::vector<std::vector<FixPlan>>& plans;
};

struct TextOptions {
  bool color = false;   // ANSI colours, only when writing to a terminal
  bool showDiff = false;  // --fix: print each applicable plan as a unified diff
};

std::string renderText(const ReportInput& in, const TextOptions& options);
std::string renderMarkdown(const ReportInput& in);
std::string renderJson(const ReportInput& in);
std::string renderSarif(const ReportInput& in);

// The full entry of a rule: every section the encyclopedia has.
std::string explainMarkdown(const Rule& rule);
// The shorter form used in hovers: verdict, root cause, mechanism, confirm, fix, verify, related,
// for `d.findings[finding]` (its role comes from the diagnosis's incident).
std::string hoverMarkdown(const Diagnosis& d, size_t finding);

}  // namespace denpex::core
