// workspace/executeCommand: denpex.diagnose (text from anywhere, a document range, or a folder
// of per-rank logs), denpex.explain (a rule's entry) and denpex.rules (the loaded rules).
#include <spdlog/spdlog.h>

#include <filesystem>
#include <functional>
#include <map>

#include "core/render/report.h"
#include "io/files.h"
#include "io/log_folder.h"
#include "io/parallel_feed.h"
#include "lsp/handlers/handlers.h"
#include "lsp/protocol/from_proto.h"
#include "lsp/protocol/to_proto.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

namespace fs = std::filesystem;

const std::vector<std::string> kCommands = {"denpex.diagnose", "denpex.explain", "denpex.rules"};

namespace {

// The biggest file the server holds whole: a range of a file that is not open (the biggest message
// it accepts). A whole file, or a folder's files, it streams, whatever their size.
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

// One input, `bytes` long, fed by `feedAll` to a new diagnoser on every core, with progress,
// stopping early when the request is cancelled (then it throws RequestCancelled). `feedAll`
// returns false on a read error (then it throws InvalidParams, naming `name`).
using FeedAll = std::function<bool(core::Diagnoser&, const core::Matcher&, const io::FeedOptions&)>;
core::Diagnosis diagnoseLong(Server& server, const std::string& name, uint64_t bytes, Server::LongRequest& request,
                             const FeedAll& feedAll) {
  auto bundle = server.rules();
  core::Diagnoser diagnoser(bundle->rules, *bundle->matcher);
  diagnoser.beginSource(name);
  io::LazyPrefilter prefilter(*bundle->matcher);  // the saved one for the shipped rules
  prefilter.prepareFor(bytes);                    // other rules: compiled for big texts
  io::FeedOptions feed;
  feed.lazyPrefilter = &prefilter;
  feed.cancel = &request.cancelled();
  const double total = static_cast<double>(std::max<uint64_t>(bytes, 1));
  feed.progress = [&](uint64_t done) {
    request.report(static_cast<int>(std::min(100.0, 100.0 * static_cast<double>(done) / total)),
                   std::to_string(done >> 20) + " of " + std::to_string(bytes >> 20) + " MiB");
  };
  const bool read = feedAll(diagnoser, *bundle->matcher, feed);
  if (request.cancelled()) {
    request.end("cancelled");
    throw LspError(error::kRequestCancelled, "request cancelled");
  }
  if (!read) {
    request.end("read error");
    throw LspError(error::kInvalidParams, "cannot read " + name + ": read error");
  }
  return diagnoser.finish();
}

// The same for text in memory.
core::Diagnosis diagnoseLong(Server& server, std::string_view text, const std::string& name, Server::LongRequest& request) {
  return diagnoseLong(server, name, text.size(), request, [text](core::Diagnoser& d, const core::Matcher& m, const io::FeedOptions& o) {
    io::feedText(d, m, text, o);
    return true;
  });
}

// The evidence lines of input `source`, read again from `path` (a log streamed, never held): the
// text the editor's positions of its evidence are measured on. A file gone since reads as
// empty lines (each range falls back to its line's start).
class EvidenceLines {
 public:
  EvidenceLines(const fs::path& path, const core::Diagnosis& d, uint32_t source) {
    std::vector<uint64_t> wanted;
    for (const auto& f : d.findings) {
      for (const auto& e : f.evidence)
        if (e.source == source) wanted.push_back(e.line);
      for (const auto& [rank, e] : f.rankEvidence)
        if (e.source == source) wanted.push_back(e.line);
    }
    std::string error;
    if (auto read = io::readLinesAt(path, std::move(wanted), error)) lines_ = std::move(*read);
  }
  // Valid while this object is.
  LineTexts texts() const {
    return [this](size_t line) -> std::string_view {
      auto it = lines_.find(line);
      return it == lines_.end() ? std::string_view() : std::string_view(it->second);
    };
  }

 private:
  std::map<uint64_t, std::string> lines_;
};

std::string summary(const core::Diagnosis& d) {
  if (d.findings.empty()) return "no known failure found";
  return core::verdict(d.findings.front()) + (d.findings.size() > 1 ? " (+" + std::to_string(d.findings.size() - 1) + " more)" : "");
}

// A folder of per-rank logs: diagnosed as one run, the findings published on each file.
json diagnoseFolder(Server& server, const std::string& path, Server::LongRequest& request) {
  request.begin("denpex: diagnosing " + fs::path(path).filename().string());
  auto bundle = server.rules();
  core::Diagnoser diagnoser(bundle->rules, *bundle->matcher);
  std::vector<std::string> uris;
  std::string error;
  std::vector<std::string> warnings;
  io::FolderFeed feed;
  feed.cancel = &request.cancelled();
  // Each file on every core, through the saved prefilter of the shipped rules (other rules: a
  // compiled one, when the folder is big enough to be worth it).
  io::LazyPrefilter prefilter(*bundle->matcher);
  prefilter.prepareFor(io::folderLogBytes(path));
  feed.matcher = bundle->matcher.get();
  feed.options.lazyPrefilter = &prefilter;
  feed.progress = [&](size_t done, size_t total, const std::string& name) {
    request.report(static_cast<int>(100 * done / std::max<size_t>(total, 1)), std::to_string(done) + " of " + std::to_string(total) + " files: " + name);
  };
  // Streamed, as the CLI reads them: no file is held whole, whatever its size or their number.
  auto inputs = io::feedFolder(path, diagnoser, error, nullptr, &warnings, UINTMAX_MAX, feed);
  if (request.cancelled()) {
    request.end("cancelled");
    throw LspError(error::kRequestCancelled, "request cancelled");
  }
  if (inputs.empty()) {
    request.end("no log files");
    throw LspError(error::kInvalidParams, !error.empty() ? error : "no log files in " + path);
  }
  for (const auto& w : warnings) {
    spdlog::warn("{}", w);
    server.notify("window/showMessage", {{"type", 2}, {"message", "denpex: " + w}});
  }
  std::error_code ec;
  for (const auto& in : inputs) uris.push_back(pathToUri(fs::absolute(in.path, ec).lexically_normal().string()));
  core::Diagnosis d = diagnoser.finish();
  for (size_t s = 0; s < inputs.size(); ++s) {
    if (inputs[s].errorFile) continue;  // its lines are the error file's traceback, not the file's
    const EvidenceLines lines(inputs[s].path, d, static_cast<uint32_t>(s));
    ConvertOptions o = server.convertOptions(uris[s], 0);
    o.sourceUris = uris;
    o.documentSource = static_cast<uint32_t>(s);
    std::vector<std::pair<std::string, uint64_t>> seen;
    server.publishDiagnostics(uris[s], std::nullopt, toDiagnostics(d, lines.texts(), o, "folder", seen));
  }
  request.end(summary(d));
  return diagnosisJson(d, server);
}

// A log on disk that is not open in the editor (too big for the editor to hand over, diagnosed
// from the Explorer), streamed as the CLI reads it: the server's memory does not grow with the
// file, and there is no size limit. Its findings are published on it, their positions measured
// on their lines read again.
json diagnoseFileOnDisk(Server& server, const std::string& uri, Server::LongRequest& request) {
  const fs::path path = uriToPath(uri);
  std::string error;
  uintmax_t size = 0;
  // Never a FIFO (it would block) or a device (/dev/zero never ends).
  auto in = io::openLogStream(path, error, &size);
  if (!in) throw LspError(error::kInvalidParams, "cannot read " + uri + ": " + error);
  const std::string name = path.filename().string();
  request.begin("denpex: diagnosing " + name);
  const core::Diagnosis diagnosis = diagnoseLong(server, name, size, request,
      [&](core::Diagnoser& d, const core::Matcher& m, const io::FeedOptions& o) { return io::feedStream(d, m, *in, o); });
  json result = diagnosisJson(diagnosis, server);
  const EvidenceLines lines(path, diagnosis, 0);
  std::vector<std::pair<std::string, uint64_t>> seen;
  server.publishDiagnostics(uri, std::nullopt, toDiagnostics(diagnosis, lines.texts(), server.convertOptions(uri, 0), "file", seen));
  request.end(summary(diagnosis));
  return result;
}

// A document, whole or a range of it; or a file on disk (diagnoseFileOnDisk), or a range of one.
json diagnoseUri(Server& server, const std::string& uri, std::optional<Range> range, Server::LongRequest& request) {
  auto doc = server.documents().view(uri);
  if (!doc && !range) return diagnoseFileOnDisk(server, uri, request);
  DocTextPtr held;  // the open document's text, shared, not copied
  std::string disk;
  std::string_view text;
  if (doc) {
    held = doc->text;
    text = held->view();
  } else {
    std::string error;
    // Never a FIFO (it would block) or a device (/dev/zero never ends).
    auto read = io::readFile(uriToPath(uri), error, {true, kMaxFileBytes});
    if (!read) throw LspError(error::kInvalidParams, "cannot read " + uri + ": " + error);
    disk = std::move(*read);
    text = disk;
  }
  std::string name = doc && !doc->path.empty() ? fs::path(doc->path).filename().string()
                     : !doc                    ? fs::path(uriToPath(uri)).filename().string()
                                               : uri;
  request.begin("denpex: diagnosing " + name);
  core::LineIndex index(text);
  // A selection is diagnosed where it stands: blank lines before it and spaces before its first
  // column keep every evidence position valid in the document.
  std::string padded;
  if (range) {
    size_t begin = index.toOffset(range->start, server.encoding());
    size_t end = index.toOffset(range->end, server.encoding());
    if (end < begin) std::swap(begin, end);
    size_t lineStart = index.lineStart(index.lineOf(begin));
    padded.assign(index.lineOf(begin), '\n');
    padded.append(begin - lineStart, ' ');
    padded.append(text.substr(begin, end - begin));
  }
  auto diagnosis = std::make_shared<const core::Diagnosis>(diagnoseLong(server, range ? std::string_view(padded) : text, name, request));
  json result = diagnosisJson(*diagnosis, server);
  if (doc) {
    server.documents().setSelection(uri, diagnosis);
    server.publish(uri);
  }
  request.end(summary(*diagnosis));
  return result;
}

// Every form runs as a long request (off the main thread, cancellable, with progress when the
// client gives a workDoneToken): the argument is checked here, the work is done there.
json diagnose(Server& server, const json& arg, const json& progressToken) {
  if (!arg.is_object()) throw LspError(error::kInvalidParams, "denpex.diagnose takes {text}, {uri, range} or {folder}");
  if (arg.contains("folder")) {
    if (!arg["folder"].is_string()) throw LspError(error::kInvalidParams, "'folder' must be a path or a file URI");
    std::string folder = arg["folder"].get<std::string>();
    std::string path = folder.rfind("file://", 0) == 0 ? uriToPath(folder) : folder;
    std::error_code ec;
    if (path.empty() || !fs::is_directory(path, ec)) throw LspError(error::kInvalidParams, "not a folder: " + folder);
    server.runLong(progressToken, [&server, path](Server::LongRequest& r) { return diagnoseFolder(server, path, r); });
    return nullptr;
  }
  if (arg.contains("text")) {
    if (!arg["text"].is_string()) throw LspError(error::kInvalidParams, "'text' must be a string");
    if (arg.contains("name") && !arg["name"].is_string()) throw LspError(error::kInvalidParams, "'name' must be a string");
    auto text = std::make_shared<std::string>(arg["text"].get<std::string>());
    std::string name = arg.value("name", std::string("<selection>"));
    server.runLong(progressToken, [&server, text, name](Server::LongRequest& r) {
      r.begin("denpex: diagnosing " + name);
      core::Diagnosis d = diagnoseLong(server, *text, name, r);
      r.end(summary(d));
      return diagnosisJson(d, server);
    });
    return nullptr;
  }
  if (!arg.contains("uri") || !arg["uri"].is_string()) throw LspError(error::kInvalidParams, "denpex.diagnose takes {text} or {uri, range}");
  std::string uri = arg["uri"].get<std::string>();
  std::optional<Range> range;
  if (arg.contains("range") && !arg["range"].is_null()) range = rangeFromJson(arg["range"]);
  server.runLong(progressToken, [&server, uri, range](Server::LongRequest& r) { return diagnoseUri(server, uri, range, r); });
  return nullptr;
}

}  // namespace

json executeCommand(Server& server, const json& params) {
  std::string command = stringMember(params, "command");
  json args = params.value("arguments", json::array());
  if (!args.is_array()) throw LspError(error::kInvalidParams, "'arguments' must be a list");
  if (command == "denpex.diagnose") {
    if (args.empty()) throw LspError(error::kInvalidParams, "denpex.diagnose takes {text} or {uri, range}");
    return diagnose(server, args[0], params.value("workDoneToken", json()));
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
