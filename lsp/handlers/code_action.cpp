// textDocument/codeAction: the rule's source edit as a quick fix, or a disabled action with the
// reason no edit applies.
#include "core/fix/planner.h"
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/protocol/to_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

namespace {

// The finding a diagnostic sent back by the client stands for, through its `data`.
std::optional<FindingRef> findingOf(const DocumentView& doc, const json& diagnostic) {
  if (!diagnostic.is_object() || !diagnostic.contains("data") || !diagnostic["data"].is_object()) return std::nullopt;
  const json& data = diagnostic["data"];
  std::string rule = data.value("rule", "");
  std::string set = data.value("set", "document");
  size_t index = data.value("index", static_cast<size_t>(-1));
  uint64_t line = data.value("line", static_cast<uint64_t>(-1));
  std::optional<FindingRef> byLine;
  for (const auto& ref : allFindings(doc)) {
    if (ref.finding().rule->id != rule) continue;
    if (ref.set == set && ref.index == index) return ref;
    if (!byLine && ref.finding().evidence.front().line == line) byLine = ref;
  }
  return byLine;
}

bool wantsQuickfix(const json& context) {
  if (!context.contains("only") || !context["only"].is_array()) return true;
  for (const auto& k : context["only"])
    if (k.is_string() && (k == "quickfix" || std::string("quickfix").rfind(k.get<std::string>() + ".", 0) == 0)) return true;
  return false;
}

}  // namespace

json codeAction(Server& server, const json& params) {
  std::string uri = documentUri(params);
  Range range = rangeFromJson(member(params, "range"));
  auto doc = server.documents().view(uri);
  json actions = json::array();
  if (!doc) return actions;
  const json context = params.value("context", json::object());
  if (!wantsQuickfix(context)) return actions;
  bool disabledSupport = server.clientSupports({"textDocument", "codeAction", "disabledSupport"});
  bool documentChanges = server.clientSupports({"workspace", "workspaceEdit", "documentChanges"});
  // Clients that support change annotations say so with an object (LSP 3.16).
  const json& caps = server.clientCapabilities();
  bool annotations = caps.contains("workspace") && caps["workspace"].is_object() && caps["workspace"].contains("workspaceEdit") &&
                     caps["workspace"]["workspaceEdit"].is_object() && caps["workspace"]["workspaceEdit"].contains("changeAnnotationSupport");
  std::vector<std::pair<FindingRef, json>> targets;  // finding, the client's diagnostic (or null)
  if (context.contains("diagnostics") && context["diagnostics"].is_array()) {
    for (const auto& d : context["diagnostics"])
      if (auto ref = findingOf(*doc, d)) targets.emplace_back(*ref, d);
  }
  if (targets.empty())
    for (const auto& ref : findingsOnLines(*doc, range.start.line, range.end.line)) targets.emplace_back(ref, nullptr);
  auto sources = server.sources();
  for (const auto& [ref, diagnostic] : targets) {
    const core::Finding& f = ref.finding();
    if (f.rule->edits.empty()) continue;
    auto plans = core::planFixes(f, *sources);
    confineToWorkspace(plans);
    bool preferred = true;
    for (const auto& plan : plans) {
      if (plan.applicable) {
        actions.push_back(toCodeAction(plan.title, diagnostic, toWorkspaceEdit(plan, server.encoding(), documentChanges, annotations ? uri : ""),
                                         preferred, ""));
        preferred = false;
      } else if (disabledSupport) {
        actions.push_back(toCodeAction(plan.title, diagnostic, nullptr, false, plan.reason));
      }
    }
    if (plans.empty() && disabledSupport)
      actions.push_back(toCodeAction("Fix " + f.rule->title, nullptr, nullptr, false,
                                     "the log names none of your files (no traceback frame in your code)"));
  }
  return actions;
}

}  // namespace denpex::lsp::handlers
