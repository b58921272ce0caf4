// Core values as LSP JSON (see to_proto.h).
#include "lsp/protocol/to_proto.h"

#include <algorithm>
#include <filesystem>

#include "core/render/report.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

json toJson(core::TextPosition p) { return {{"line", p.line}, {"character", p.character}}; }

json toRange(core::TextPosition start, core::TextPosition end) { return {{"start", toJson(start)}, {"end", toJson(end)}}; }

json lineStartRange(uint32_t line) { return toRange({line, 0}, {line, 0}); }

LineTexts lineTextsOf(const core::LineIndex& index) {
  return [&index](size_t line) { return index.lineText(line); };
}

json evidenceRange(const core::LineIndex& index, const core::Evidence& e, core::PositionEncoding enc) {
  return evidenceRange(lineTextsOf(index), e, enc);
}

json evidenceRange(const LineTexts& lines, const core::Evidence& e, core::PositionEncoding enc) {
  size_t line = static_cast<size_t>(e.line);
  std::string_view text = lines(line);
  size_t begin = std::min<size_t>(e.begin, text.size());
  size_t end = std::min<size_t>(e.end, text.size());
  if (end <= begin) {
    begin = 0;
    end = text.size();
  }
  auto column = [&](size_t byte) {
    return enc == core::PositionEncoding::kUtf16 ? core::utf16Column(text, byte) : static_cast<uint32_t>(byte);
  };
  return toRange({static_cast<uint32_t>(line), column(begin)}, {static_cast<uint32_t>(line), column(end)});
}

namespace {

// Evidence in this document gets its exact range; evidence in another input its line.
std::optional<json> locate(const core::Evidence& e, const LineTexts& lines, const ConvertOptions& o) {
  if (e.source == o.documentSource) return json{{"uri", o.documentUri}, {"range", evidenceRange(lines, e, o.encoding)}};
  if (e.source < o.sourceUris.size())
    return json{{"uri", o.sourceUris[e.source]}, {"range", lineStartRange(static_cast<uint32_t>(e.line))}};
  return std::nullopt;
}

json related(const json& location, const std::string& message) { return {{"location", location}, {"message", message}}; }

}  // namespace

json toDiagnostic(const core::Diagnosis& d, size_t index, const core::LineIndex& lines, const ConvertOptions& o) {
  return toDiagnostic(d, index, lineTextsOf(lines), o);
}

json toDiagnostic(const core::Diagnosis& d, size_t index, const LineTexts& lines, const ConvertOptions& o) {
  const core::Finding& f = d.findings[index];
  const core::Rule& r = *f.rule;
  const core::Evidence& anchor = f.evidence.front();
  // Collateral failures and symptoms inform; the root cause is what is wrong.
  int severity = d.role(index) != core::Role::kRoot ? 3
                 : r.severity == core::Severity::kError ? 1
                 : r.severity == core::Severity::kWarning ? 2
                                                          : 3;
  std::string message = core::verdict(f);
  if (!f.observed.empty()) message += ": " + f.observed.back();
  if (!f.ranks.empty()) message += " (rank" + std::string(f.ranks.size() > 1 ? "s " : " ") + core::ranksText(f.ranks) + ")";
  json info = json::array();
  // The same failure on the other ranks.
  for (const auto& [rank, e] : f.rankEvidence) {
    if (e.source == anchor.source && e.line == anchor.line) continue;
    if (auto loc = locate(e, lines, o)) info.push_back(related(*loc, "rank " + std::to_string(rank) + ": " + e.text));
  }
  for (size_t k = 1; k < f.evidence.size(); ++k) {
    const core::Evidence& e = f.evidence[k];
    if (auto loc = locate(e, lines, o)) info.push_back(related(*loc, e.signal + ": " + e.text));
  }
  if (f.userFrame && o.frameUri) {
    if (auto uri = o.frameUri(f.userFrame->file)) {
      uint32_t line = f.userFrame->line > 0 ? static_cast<uint32_t>(f.userFrame->line - 1) : 0;
      info.push_back(related(json{{"uri", *uri}, {"range", lineStartRange(line)}},
                             "your code: " + fs::path(f.userFrame->file).filename().string() + ":" +
                                 std::to_string(f.userFrame->line)));
    }
  }
  json diag = {{"range", evidenceRange(lines, anchor, o.encoding)},
               {"severity", severity},
               {"code", r.id},
               {"source", "denpex"},
               {"message", message},
               // Clients may send ranges back in other units (Neovim 0.7 uses bytes): code actions
               // find the finding through this, never through the range.
               {"data", {{"rule", r.id}, {"index", index}, {"line", anchor.line}, {"version", o.version}}}};
  if (!info.empty()) diag["relatedInformation"] = info;
  if (!o.docsUri.empty()) diag["codeDescription"] = {{"href", o.docsUri + core::ruleDocPath(r)}};
  return diag;
}

json toDiagnostics(const core::Diagnosis& d, const core::LineIndex& lines, const ConvertOptions& o, const char* set,
                   std::vector<std::pair<std::string, uint64_t>>& seen) {
  return toDiagnostics(d, lineTextsOf(lines), o, set, seen);
}

json toDiagnostics(const core::Diagnosis& d, const LineTexts& lines, const ConvertOptions& o, const char* set,
                   std::vector<std::pair<std::string, uint64_t>>& seen) {
  json out = json::array();
  const auto& initiating = d.incident.initiatingFinding;
  auto link = [&](json& diag, size_t to, const std::string& message) {
    auto loc = locate(d.findings[to].evidence.front(), lines, o);
    if (!loc) return;
    if (!diag.contains("relatedInformation")) diag["relatedInformation"] = json::array();
    diag["relatedInformation"].push_back(related(*loc, message));
  };
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const core::Finding& f = d.findings[i];
    if (f.evidence.front().source != o.documentSource) continue;
    std::pair<std::string, uint64_t> key{f.rule->id, f.evidence.front().line};
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    json diag = toDiagnostic(d, i, lines, o);
    diag["data"]["set"] = set;
    bool collateral = d.role(i) == core::Role::kCollateral;
    if (initiating && *initiating != i && collateral) {
      link(diag, *initiating, "initiating failure: " + core::verdict(d.findings[*initiating]));
      std::string why = d.collateralReason(i);
      diag["message"] = diag["message"].get<std::string>() + " [collateral: " +
                        (why.empty() ? "follows from the initiating failure" : why) + "]";
    }
    if (initiating && *initiating == i) {
      for (size_t g = 0; g < d.findings.size(); ++g)
        if (g != i && d.role(g) == core::Role::kCollateral) link(diag, g, "collateral: " + core::verdict(d.findings[g]));
      if (d.incident.initiatingRank)
        diag["message"] = diag["message"].get<std::string>() + " [rank " + std::to_string(*d.incident.initiatingRank) +
                          " failed first]";
    }
    out.push_back(std::move(diag));
  }
  return out;
}

json publishDiagnosticsParams(const std::string& uri, std::optional<int> version, json diagnostics) {
  json params = {{"uri", uri}, {"diagnostics", std::move(diagnostics)}};
  if (version) params["version"] = *version;
  return params;
}

json toTextEdits(const core::FixPlan& plan, core::PositionEncoding enc) {
  core::LineIndex index(plan.originalText);
  json edits = json::array();
  for (const auto& e : plan.edits)
    edits.push_back({{"range", toRange(index.toPosition(e.begin, enc), index.toPosition(e.end, enc))}, {"newText", e.newText}});
  return edits;
}

json toWorkspaceEdit(const core::FixPlan& plan, core::PositionEncoding enc, bool documentChanges, const std::string& confirmFrom) {
  json edits = toTextEdits(plan, enc);
  std::error_code ec;
  fs::path abs = fs::absolute(plan.path, ec);
  std::string uri = pathToUri((ec ? fs::path(plan.path) : abs).lexically_normal().string());
  if (documentChanges) {
    // Versioned when the file is open in the editor, so nothing is written over a newer buffer.
    json id = {{"uri", uri}, {"version", plan.version ? json(*plan.version) : json(nullptr)}};
    json edit = {{"documentChanges", json::array({{{"textDocument", id}, {"edits", edits}}})}};
    if (!confirmFrom.empty() && uri != confirmFrom) {
      // An edit to another file than the one the user is looking at (a fix offered on a log
      // edits train.py): the client shows it for review before applying it.
      const std::string annotation = "denpex.fix";
      for (auto& e : edit["documentChanges"][0]["edits"]) e["annotationId"] = annotation;
      edit["changeAnnotations"] = {{annotation,
                                    {{"label", "Edit " + fs::path(plan.path).filename().string()},
                                     {"description", "a denpex fix: " + plan.title},
                                     {"needsConfirmation", true}}}};
    }
    return edit;
  }
  return {{"changes", {{uri, edits}}}};
}

json toCodeAction(const std::string& title, const json& diagnostic, const json& edit, bool preferred,
                  const std::string& disabledReason) {
  json action = {{"title", title}, {"kind", "quickfix"}};
  if (!diagnostic.is_null()) action["diagnostics"] = json::array({diagnostic});
  if (!edit.is_null()) {
    action["edit"] = edit;
    if (preferred) action["isPreferred"] = true;
  } else {
    action["disabled"] = {{"reason", disabledReason}};
  }
  return action;
}

json toHover(const std::string& markdown, json range) {
  return {{"contents", {{"kind", "markdown"}, {"value", markdown}}}, {"range", std::move(range)}};
}

json toDocumentLink(json range, const std::string& target, const std::string& tooltip) {
  return {{"range", std::move(range)}, {"target", target}, {"tooltip", tooltip}};
}

json toCodeLens(uint32_t line, const std::string& title, const std::string& command, const json& arguments) {
  return {{"range", lineStartRange(line)}, {"command", {{"title", title}, {"command", command}, {"arguments", arguments}}}};
}

json initializeResult(core::PositionEncoding enc, const std::vector<std::string>& commands) {
  json capabilities = {
      {"positionEncoding", enc == core::PositionEncoding::kUtf8 ? "utf-8" : "utf-16"},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}}},  // incremental
      {"hoverProvider", true},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}, {"resolveProvider", true}}},
      {"executeCommandProvider", {{"commands", commands}, {"workDoneProgress", true}}},
      {"documentLinkProvider", {{"resolveProvider", false}}},
      {"codeLensProvider", {{"resolveProvider", false}}},
      {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
  };
  return json{{"capabilities", capabilities}, {"serverInfo", {{"name", "denpex"}, {"version", core::kVersion}}}};
}

}  // namespace denpex::lsp
