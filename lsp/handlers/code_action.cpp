// textDocument/codeAction: the rule's source edit as a quick fix; codeAction/resolve.
#include <filesystem>

#include "core/fix_planner.h"
#include "lsp/findings.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

namespace {

bool clientSupports(const json& caps, std::initializer_list<const char*> path) {
  const json* node = &caps;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return false;
    node = &(*node)[key];
  }
  return node->is_boolean() && node->get<bool>();
}

json workspaceEdit(const core::FixPlan& plan, const Server& server) {
  json edits = toTextEdits(plan, server.encoding());
  std::string uri = pathToUri(fs::absolute(plan.path).lexically_normal().string());
  if (clientSupports(server.clientCapabilities(), {"workspace", "workspaceEdit", "documentChanges"})) {
    // Versioned when the file is open in the editor, so nothing is written over a newer buffer.
    json id = {{"uri", uri}, {"version", plan.version ? json(*plan.version) : json(nullptr)}};
    return {{"documentChanges", json::array({{{"textDocument", id}, {"edits", edits}}})}};
  }
  return {{"changes", {{uri, edits}}}};
}

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
    if (ref.finding->rule->id != rule) continue;
    if (ref.set == set && ref.index == index) return ref;
    if (!byLine && ref.finding->evidence.front().line == line) byLine = ref;
  }
  return byLine;
}

std::string noEditReason(const core::Finding& f) {
  const auto& spec = f.rule->edits.front();
  std::string what = spec.kind == core::EditSpec::Kind::kPythonKeyword ? spec.callees.front() + "(...) call" : spec.path;
  if (f.userFrame) return "no " + what + " found in " + fs::path(f.userFrame->file).filename().string() + " or the workspace";
  return "no " + what + " found in the workspace";
}

}  // namespace

void registerCodeActions(Server& server) {
  server.onRequest("textDocument/codeAction", [&server](const json& params) -> json {
    std::string uri = member(member(params, "textDocument"), "uri").get<std::string>();
    const json& range = member(params, "range");
    auto doc = server.document(uri);
    json actions = json::array();
    if (!doc) return actions;
    bool disabledSupport = clientSupports(server.clientCapabilities(), {"textDocument", "codeAction", "disabledSupport"});
    std::vector<std::pair<FindingRef, json>> targets;  // finding, the client's diagnostic (or null)
    const json context = params.value("context", json::object());
    if (context.contains("only") && context["only"].is_array()) {
      bool wantsQuickfix = false;
      for (const auto& k : context["only"])
        if (k.is_string() && (k == "quickfix" || std::string("quickfix").rfind(k.get<std::string>() + ".", 0) == 0)) wantsQuickfix = true;
      if (!wantsQuickfix) return actions;
    }
    if (context.contains("diagnostics") && context["diagnostics"].is_array()) {
      for (const auto& d : context["diagnostics"])
        if (auto ref = findingOf(*doc, d)) targets.emplace_back(*ref, d);
    }
    if (targets.empty()) {
      auto first = positionFromJson(member(range, "start")).line;
      auto last = positionFromJson(member(range, "end")).line;
      for (const auto& ref : findingsOnLines(*doc, first, last)) targets.emplace_back(ref, nullptr);
    }
    auto sources = server.sources();
    for (const auto& [ref, diagnostic] : targets) {
      const core::Finding& f = *ref.finding;
      if (f.rule->edits.empty()) continue;
      auto plans = core::planFixes(f, *sources);
      bool preferred = false;
      for (const auto& plan : plans) {
        json action = {{"title", plan.title}, {"kind", "quickfix"}};
        if (!diagnostic.is_null()) action["diagnostics"] = json::array({diagnostic});
        if (plan.applicable) {
          action["edit"] = workspaceEdit(plan, server);
          if (!preferred) action["isPreferred"] = preferred = true;
        } else if (disabledSupport) {
          action["disabled"] = {{"reason", plan.reason}};
        } else {
          continue;
        }
        actions.push_back(action);
      }
      if (plans.empty() && disabledSupport) {
        actions.push_back({{"title", f.rule->edits.front().title.empty() ? "Fix " + f.rule->title : f.rule->edits.front().title},
                           {"kind", "quickfix"},
                           {"disabled", {{"reason", noEditReason(f)}}}});
      }
    }
    return actions;
  });
  // Every action is complete when sent; resolving one returns it unchanged.
  server.onRequest("codeAction/resolve", [](const json& params) -> json { return params; });
}

}  // namespace denpex::lsp
