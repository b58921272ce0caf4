// workspace/executeCommand: denpex.diagnose (text from anywhere, a document range, or a folder
// of per-rank logs), denpex.explain (a rule's entry) and denpex.rules (the loaded rules).
#include <spdlog/spdlog.h>

#include <filesystem>

#include "core/render/report.h"
#include "io/files.h"
#include "io/log_folder.h"
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/protocol/to_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

namespace fs = std::filesystem;

const std::vector<std::string> kCommands = {"denpex.diagnose", "denpex.explain", "denpex.rules"};

namespace {

// The biggest file the server reads from disk for a command: the biggest message it accepts.
constexpr uintmax_t kMaxFileBytes = uintmax_t{256} << 20;

// The command's result: the diagnosis as the CLI's JSON report, with its fix plans.
json diagnosisJson(const core::Diagnosis& d, Server& server) {
  std::vector<std::vector<core::FixPlan>> plans(d.findings.size());
  auto sources = server.sources();
  for (size_t i = 0; i < d.findings.size(); ++i) {
    plans[i] = core::planFixes(d.findings[i], *sources);
    confineToWorkspace(plans[i]);
  }
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
  std::vector<std::string> warnings;
  auto inputs = io::feedFolder(path, diagnoser, error, &texts, &warnings, kMaxFileBytes);
  if (inputs.empty()) throw LspError(error::kInvalidParams, !error.empty() ? error : "no log files in " + path);
  for (const auto& w : warnings) {
    spdlog::warn("{}", w);
    server.notify("window/showMessage", {{"type", 2}, {"message", "denpex: " + w}});
  }
  for (const auto& in : inputs) uris.push_back(pathToUri(fs::absolute(in.path, ec).lexically_normal().string()));
  core::Diagnosis d = diagnoser.finish();
  for (size_t s = 0; s < inputs.size(); ++s) {
    if (inputs[s].errorFile) continue;  // its lines are the error file's traceback, not the file's
    core::LineIndex index(texts[s]);
    ConvertOptions o = server.convertOptions(uris[s], 0);
    o.sourceUris = uris;
    o.documentSource = static_cast<uint32_t>(s);
    std::vector<std::pair<std::string, uint64_t>> seen;
    server.publishDiagnostics(uris[s], std::nullopt, toDiagnostics(d, index, o, "folder", seen));
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
  auto doc = server.documents().view(uri);
  std::string text;
  if (doc) {
    text = std::string(doc->text->view());
  } else {
    std::string error;
    // Never a FIFO (it would block the server) or a device (/dev/zero never ends).
    auto disk = io::readFile(uriToPath(uri), error, {true, kMaxFileBytes});
    if (!disk) throw LspError(error::kInvalidParams, "cannot read " + uri + ": " + error);
    text = std::move(*disk);
  }
  core::LineIndex index(text);
  size_t begin = 0, end = text.size();
  if (arg.contains("range") && !arg["range"].is_null()) {
    Range range = rangeFromJson(arg["range"]);
    begin = index.toOffset(range.start, server.encoding());
    end = index.toOffset(range.end, server.encoding());
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
  if (doc) {
    server.documents().setSelection(uri, diagnosis);
    server.publish(uri);
  }
  return result;
}

}  // namespace

json executeCommand(Server& server, const json& params) {
  std::string command = stringMember(params, "command");
  json args = params.value("arguments", json::array());
  if (!args.is_array()) throw LspError(error::kInvalidParams, "'arguments' must be a list");
  if (command == "denpex.diagnose") {
    if (args.empty()) throw LspError(error::kInvalidParams, "denpex.diagnose takes {text} or {uri, range}");
    return diagnose(server, args[0]);
  }
  if (command == "denpex.rules") {
    json out = json::array();
    for (const auto& r : server.rules()->rules.rules()) out.push_back({{"id", r->id}, {"title", r->title}, {"category", r->category}});
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
}

}  // namespace denpex::lsp::handlers
