// workspace/executeCommand: denpex.diagnose (text from anywhere, or a document range),
// denpex.explain (a rule's entry) and denpex.rules (the loaded rules).
#include <filesystem>

#include "cli/disk_sources.h"
#include "core/report.h"
#include "lsp/server.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

namespace {

json diagnosisJson(const core::Diagnosis& d, Server& server) {
  std::vector<std::vector<core::FixPlan>> plans(d.findings.size());
  auto sources = server.sources();
  for (size_t i = 0; i < d.findings.size(); ++i) plans[i] = core::planFixes(d.findings[i], *sources);
  return json::parse(core::renderJson({d, plans}));
}

// A folder of per-rank logs: diagnosed as one run, the findings published on each file.
json diagnoseFolder(Server& server, const std::string& folder) {
  std::string path = folder.rfind("file://", 0) == 0 ? uriToPath(folder) : folder;
  std::error_code ec;
  if (path.empty() || !fs::is_directory(path, ec)) throw LspError(error::kInvalidParams, "not a folder: " + folder);
  auto bundle = server.rules();
  core::Diagnoser diagnoser(bundle->rules, *bundle->matcher);
  std::vector<std::string> texts, uris;
  std::string error;
  auto inputs = cli::feedFolder(path, diagnoser, error, &texts);
  if (inputs.empty()) throw LspError(error::kInvalidParams, !error.empty() ? error : "no log files in " + path);
  for (const auto& in : inputs) uris.push_back(pathToUri(fs::absolute(in.path, ec).lexically_normal().string()));
  core::Diagnosis d = diagnoser.finish();
  for (size_t s = 0; s < inputs.size(); ++s) {
    if (inputs[s].errorFile) continue;  // its lines are the error file's traceback, not the file's
    core::LineIndex index(texts[s]);
    ConvertOptions o;
    o.encoding = server.encoding();
    o.documentUri = uris[s];
    o.workspaceRoots = server.workspaceRoots();
    o.sourceUris = uris;
    o.documentSource = static_cast<uint32_t>(s);
    json diagnostics = json::array();
    for (size_t i = 0; i < d.findings.size(); ++i) {
      const auto& f = d.findings[i];
      if (f.evidence.front().source != s) continue;
      json diag = toDiagnostic(f, i, index, o);
      diag["data"]["set"] = "folder";
      if (f.initiating && !d.incident.empty() && d.incident.initiatingRank)
        diag["message"] = diag["message"].get<std::string>() + " [rank " + std::to_string(*d.incident.initiatingRank) + " failed first]";
      diagnostics.push_back(std::move(diag));
    }
    server.notify("textDocument/publishDiagnostics", {{"uri", uris[s]}, {"diagnostics", diagnostics}});
  }
  return diagnosisJson(d, server);
}

json diagnose(Server& server, const json& arg) {
  if (!arg.is_object()) throw LspError(error::kInvalidParams, "denpex.diagnose takes {text}, {uri, range} or {folder}");
  if (arg.contains("folder")) {
    if (!arg["folder"].is_string()) throw LspError(error::kInvalidParams, "'folder' must be a path or a file URI");
    return diagnoseFolder(server, arg["folder"].get<std::string>());
  }
  if (arg.contains("text")) {
    if (!arg["text"].is_string()) throw LspError(error::kInvalidParams, "'text' must be a string");
    std::string name = arg.value("name", std::string("<selection>"));
    return diagnosisJson(server.diagnoseNow(arg["text"].get<std::string>(), name), server);
  }
  if (!arg.contains("uri") || !arg["uri"].is_string()) throw LspError(error::kInvalidParams, "denpex.diagnose takes {text} or {uri, range}");
  std::string uri = arg["uri"].get<std::string>();
  auto doc = server.document(uri);
  std::string text;
  if (doc) {
    text = *doc->text;
  } else {
    std::string error;
    auto disk = cli::readFile(uriToPath(uri), error);
    if (!disk) throw LspError(error::kInvalidParams, "cannot read " + uri + ": " + error);
    text = std::move(*disk);
  }
  core::LineIndex index(text);
  size_t begin = 0, end = text.size();
  core::TextPosition start{0, 0};
  if (arg.contains("range") && !arg["range"].is_null()) {
    start = positionFromJson(member(arg["range"], "start"));
    begin = index.toOffset(start, server.encoding());
    end = index.toOffset(positionFromJson(member(arg["range"], "end")), server.encoding());
    if (end < begin) std::swap(begin, end);
  }
  // Diagnose the selection where it stands: blank lines before it and spaces before its first
  // column keep every evidence position valid in the document.
  size_t lineStart = index.lineStart(index.lineOf(begin));
  std::string padded(index.lineOf(begin), '\n');
  padded.append(begin - lineStart, ' ');
  padded.append(text, begin, end - begin);
  std::string name = doc && !doc->path.empty() ? fs::path(doc->path).filename().string() : uri;
  auto diagnosis = std::make_shared<const core::Diagnosis>(server.diagnoseNow(padded, name));
  json result = diagnosisJson(*diagnosis, server);
  if (doc) server.setSelectionDiagnosis(uri, diagnosis);
  return result;
}

}  // namespace

void registerCommands(Server& server) {
  server.onRequest("workspace/executeCommand", [&server](const json& params) -> json {
    std::string command = member(params, "command").get<std::string>();
    json args = params.value("arguments", json::array());
    if (!args.is_array()) throw LspError(error::kInvalidParams, "'arguments' must be a list");
    if (command == "denpex.diagnose") {
      if (args.empty()) throw LspError(error::kInvalidParams, "denpex.diagnose takes {text} or {uri, range}");
      return diagnose(server, args[0]);
    }
    if (command == "denpex.rules") {
      json out = json::array();
      for (const auto& r : server.rules()->rules.rules())
        out.push_back({{"id", r->id}, {"title", r->title}, {"category", r->category}});
      return out;
    }
    // denpex.explainRule is what code lenses carry (the VS Code extension shows the entry);
    // other clients send it here and get the Markdown back.
    if (command == "denpex.explain" || command == "denpex.explainRule") {
      if (args.empty() || !args[0].is_string()) throw LspError(error::kInvalidParams, "denpex.explain takes a rule id");
      auto bundle = server.rules();
      const core::Rule* rule = bundle->rules.find(args[0].get<std::string>());
      if (!rule) throw LspError(error::kInvalidParams, "no rule '" + args[0].get<std::string>() + "'");
      return core::explainMarkdown(*rule);
    }
    throw LspError(error::kInvalidParams, "unknown command: " + command);
  });
}

}  // namespace denpex::lsp
