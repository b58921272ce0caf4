// Planning source fixes for a finding: which files, which edit kinds, in what order (see
// planner.h).
#include "core/fix/planner.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "core/base/text.h"
#include "core/fix/edit_support.h"
#include "core/fix/python_calls.h"

namespace denpex::core {
namespace {

using fix_detail::baseName;
using fix_detail::planJson;
using fix_detail::planPythonCall;
using text::endsWith;
using text::lineNumber;

std::string lastName(const std::string& dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

// The callees' last names, the only ones worth scanning the file for.
std::vector<std::string> lastNames(const EditSpec& spec) {
  std::vector<std::string> out;
  for (const auto& c : spec.callees) {
    std::string last = lastName(c);
    if (std::find(out.begin(), out.end(), last) == out.end()) out.push_back(last);
  }
  return out;
}

bool mentionsAny(const std::string& text, const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (text.find(n + "(") != std::string::npos || text.find(n + " (") != std::string::npos) return true;
  return false;
}

std::string calleeList(const EditSpec& spec) {
  std::string out;
  for (size_t i = 0; i < spec.callees.size() && i < 3; ++i) out += (i ? ", " : "") + spec.callees[i];
  if (spec.callees.size() > 3) out += ", ...";
  return out;
}

void planPython(const EditSpec& spec, const SourceFile& file, std::vector<FixPlan>& out) {
  PythonImports imports = findPythonImports(file.text);
  // Calls written with a callee's own last name (AdamW, optim.AdamW) or a name imported as one
  // (`from torch.optim import AdamW as AW`).
  auto names = lastNames(spec);
  for (const auto& [name, targets] : imports.bindings) {
    auto resolved = resolvePythonName(imports, name);
    if (resolved && std::find(spec.callees.begin(), spec.callees.end(), *resolved) != spec.callees.end() &&
        std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  if (!mentionsAny(file.text, names)) return;
  auto calls = findPythonCalls(file.text, names);
  if (calls.empty()) return;
  size_t before = out.size();
  const PythonCall* unresolved = nullptr;
  for (const auto& call : calls) {
    auto resolved = resolvePythonName(imports, call.name);
    if (resolved && std::find(spec.callees.begin(), spec.callees.end(), *resolved) != spec.callees.end())
      out.push_back(planPythonCall(spec, file, call));
    else if (!unresolved)
      unresolved = &call;
  }
  if (out.size() == before && unresolved) {
    // A call with the right last name that is something else (Keras' Adam, the project's own):
    // say so, instead of editing it.
    FixPlan plan;
    plan.path = file.path;
    plan.line = lineNumber(file.text, unresolved->nameBegin);
    plan.outside = file.outside;
    plan.title = "Set " + editSetting(spec) + " in " + unresolved->name + "(...) (" + baseName(file.path) + ":" +
                 std::to_string(plan.line) + ")";
    auto resolved = resolvePythonName(imports, unresolved->name);
    plan.reason = unresolved->name + "(...) is " + (resolved ? *resolved : std::string("not imported from a known module")) +
                  ", not " + calleeList(spec) + ": not edited";
    out.push_back(std::move(plan));
  }
}

void planFile(const EditSpec& spec, const SourceFile& file, std::vector<FixPlan>& out) {
  if (spec.kind == EditSpec::Kind::kPythonDropFloat16Cast) return;  // only where the check found the cast
  if (spec.kind == EditSpec::Kind::kPythonKeyword) {
    if (endsWith(file.path, ".py")) planPython(spec, file, out);
  } else if (endsWith(file.path, ".json")) {
    if (auto plan = planJson(spec, file)) out.push_back(std::move(*plan));
  }
}

}  // namespace

std::vector<FixPlan> planFixes(const Finding& finding, SourceProvider& sources) {
  std::vector<FixPlan> out;
  if (!finding.rule || finding.rule->edits.empty()) return out;
  const auto& specs = finding.rule->edits;
  std::set<std::string> planned;
  if (finding.userFrame) {
    OpenedSource opened = sources.open(finding.userFrame->file);
    if (!opened.file) {
      FixPlan plan;
      plan.path = finding.userFrame->file;
      plan.line = finding.userFrame->line;
      plan.title = "Fix " + finding.rule->title;
      plan.reason = opened.problem.empty() ? "the file the traceback names was not found" : opened.problem;
      out.push_back(std::move(plan));
    } else {
      // The cast a check found, undone where that is the whole fix; then no other edit is offered.
      bool castUndone = false;
      for (const auto& spec : specs) {
        if (spec.kind != EditSpec::Kind::kPythonDropFloat16Cast || !finding.float16Cast || !endsWith(opened.file->path, ".py"))
          continue;
        if (auto plan = fix_detail::planDropFloat16Cast(spec, *opened.file, *finding.float16Cast)) {
          castUndone = castUndone || plan->applicable;
          out.push_back(std::move(*plan));
        }
      }
      if (!castUndone)
        for (const auto& spec : specs) planFile(spec, *opened.file, out);
      if (out.empty()) {
        // Say what was looked for, so the user knows the fix exists and where it would go.
        std::string wanted;
        for (const auto& spec : specs)
          if (spec.kind == EditSpec::Kind::kPythonKeyword) wanted += (wanted.empty() ? "" : " or ") + spec.callees.front() + "(...)";
        FixPlan plan;
        plan.path = opened.file->path;
        plan.line = finding.userFrame->line;
        plan.outside = opened.file->outside;
        plan.title = "Fix " + finding.rule->title;
        plan.reason = "no " + (wanted.empty() ? std::string("setting this fix applies to") : wanted + " call") + " in " +
                      baseName(opened.file->path);
        out.push_back(std::move(plan));
      }
      // Nearest call to the frame's line first: the traceback points near the optimizer.
      int target = finding.userFrame->line;
      std::stable_sort(out.begin(), out.end(), [&](const FixPlan& a, const FixPlan& b) {
        return std::abs(a.line - target) < std::abs(b.line - target);
      });
      planned.insert(opened.file->path);
    }
  }
  for (const auto& file : sources.namedFiles()) {
    if (!planned.insert(file.path).second) continue;
    for (const auto& spec : specs) planFile(spec, file, out);
  }
  return out;
}

}  // namespace denpex::core
