// Planning source fixes for a finding: which files, which edit kinds, in what order (see
// planner.h).
#include "core/fix/planner.h"

#include <algorithm>
#include <cstdlib>

#include "core/base/text.h"
#include "core/fix/edit_support.h"
#include "core/fix/python_calls.h"

namespace denpex::core {
namespace {

using fix_detail::planJson;
using fix_detail::planPythonCall;
using text::endsWith;

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

}  // namespace denpex::core
