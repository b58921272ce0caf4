// Message loop, dispatch, documents, settings and background diagnosis (see server.h).
#include "lsp/server.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "cli/disk_sources.h"
#include "core/report.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

// --- settings ----------------------------------------------------------------------------------

Settings Settings::merge(Settings base, const json& j) {
  if (j.is_null()) return base;
  if (!j.is_object()) throw LspError(error::kInvalidParams, "settings must be an object");
  if (j.contains("rules")) {
    const json& r = j["rules"];
    if (!r.is_array()) throw LspError(error::kInvalidParams, "settings 'rules' must be a list of folders");
    base.ruleDirs.clear();
    for (const auto& d : r) {
      if (!d.is_string()) throw LspError(error::kInvalidParams, "settings 'rules' must be a list of folders");
      base.ruleDirs.push_back(d.get<std::string>());
    }
  }
  if (j.contains("autoDiagnose")) {
    if (!j["autoDiagnose"].is_boolean()) throw LspError(error::kInvalidParams, "settings 'autoDiagnose' must be true or false");
    base.autoDiagnose = j["autoDiagnose"].get<bool>();
  }
  if (j.contains("logLevel")) {
    if (!j["logLevel"].is_string()) throw LspError(error::kInvalidParams, "settings 'logLevel' must be a string");
    base.logLevel = j["logLevel"].get<std::string>();
  }
  return base;
}

// --- documents ---------------------------------------------------------------------------------

struct Server::DocState {
  std::string uri;
  std::string path;
  std::string languageId;
  int version = 0;
  std::shared_ptr<const std::string> text;
  std::shared_ptr<const core::Diagnosis> diagnosis;
  std::shared_ptr<const std::string> diagnosedText;
  int diagnosedVersion = -1;
  std::shared_ptr<const core::Diagnosis> selection;

  // Owned by the worker thread: the diagnoser fed with a prefix of the text, so that text
  // appended to a growing log is all that needs scanning.
  std::unique_ptr<core::Diagnoser> diagnoser;
  std::shared_ptr<const RuleBundle> fedRules;
  std::shared_ptr<const std::string> fedText;
  size_t fedSize = 0;
};

Server::Server(Transport& transport) : transport_(transport) {
  registerLifecycle(*this);
  registerTextSync(*this);
  registerHover(*this);
  registerCodeActions(*this);
  registerCommands(*this);
  registerDocumentLinks(*this);
  registerCodeLens(*this);
  reloadRules();
}

Server::~Server() {
  stopping_ = true;
  jobCv_.notify_all();
  if (worker_.joinable()) worker_.join();
  if (reader_.joinable()) reader_.detach();  // blocked in a read of stdin; the process is ending
}

void Server::onRequest(const std::string& method, RequestHandler handler) { requests_[method] = std::move(handler); }

void Server::onNotification(const std::string& method, NotificationHandler handler) {
  notifications_[method] = std::move(handler);
}

void Server::notify(const std::string& method, const json& params) {
  transport_.write(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Server::reply(const json& id, const json& result) {
  transport_.write(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Server::replyError(const json& id, int code, const std::string& message) {
  transport_.write(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}.dump(
      -1, ' ', false, json::error_handler_t::replace));
}

std::vector<std::string> Server::workspaceRoots() const { return roots_; }

std::shared_ptr<const RuleBundle> Server::rules() const {
  std::lock_guard<std::mutex> lock(stateMutex_);
  return rules_;
}

void Server::reloadRules() {
  auto bundle = std::make_shared<RuleBundle>();
  bundle->errors = bundle->rules.add(core::builtinRuleSources());
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& root : roots_)
    if (fs::is_directory(fs::path(root) / ".denpex/rules", ec)) dirs.push_back((fs::path(root) / ".denpex/rules").string());
  for (const auto& d : settings_.ruleDirs) {
    fs::path p(d);
    if (p.is_relative() && !roots_.empty()) p = fs::path(roots_.front()) / p;
    dirs.push_back(p.string());
  }
  for (const auto& d : dirs) {
    std::vector<core::RuleError> errors;
    auto sources = cli::readRuleDir(d, errors);
    auto more = bundle->rules.add(sources);
    bundle->errors.insert(bundle->errors.end(), errors.begin(), errors.end());
    bundle->errors.insert(bundle->errors.end(), more.begin(), more.end());
  }
  bundle->matcher = std::make_unique<core::Matcher>(bundle->rules);
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    bundle->generation = rules_ ? rules_->generation + 1 : 1;
    rules_ = bundle;
  }
  for (const auto& e : bundle->errors) spdlog::warn("rule error: {}", e.format());
  spdlog::info("{} rules loaded ({} rule errors)", bundle->rules.rules().size(), bundle->errors.size());
  if (!bundle->errors.empty() && initialized_) {
    notify("window/showMessage", {{"type", 2},
                                  {"message", "denpex: " + std::to_string(bundle->errors.size()) +
                                                  " rule file error(s), e.g. " + bundle->errors.front().format()}});
  }
}

bool Server::isLogDocument(const DocState& d) const {
  if (d.languageId == "denpex-log" || d.languageId == "log") return true;
  std::string p = d.path.empty() ? d.uri : d.path;
  for (const char* ext : {".log", ".out", ".err"}) {
    size_t n = std::char_traits<char>::length(ext);
    if (p.size() >= n && p.compare(p.size() - n, n, ext) == 0) return true;
  }
  return false;
}

void Server::openDocument(const std::string& uri, const std::string& languageId, int version, std::string text) {
  auto d = std::make_shared<DocState>();
  d->uri = uri;
  d->path = uriToPath(uri);
  d->languageId = languageId;
  d->version = version;
  d->text = std::make_shared<const std::string>(std::move(text));
  bool log;
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    documents_[uri] = d;
    log = isLogDocument(*d);
  }
  if (log && settings_.autoDiagnose) scheduleDiagnosis(uri);
}

void Server::changeDocument(const std::string& uri, int version, const json& changes) {
  std::shared_ptr<DocState> d;
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    auto it = documents_.find(uri);
    if (it == documents_.end()) throw LspError(error::kInvalidParams, "didChange for a document that is not open: " + uri);
    d = it->second;
  }
  if (!changes.is_array()) throw LspError(error::kInvalidParams, "contentChanges must be a list");
  std::string text = *d->text;
  for (const auto& change : changes) {
    const std::string& newText = member(change, "text").get_ref<const std::string&>();
    if (!change.contains("range")) {
      text = newText;
      continue;
    }
    core::LineIndex index(text);
    size_t begin = index.toOffset(positionFromJson(member(change["range"], "start")), encoding_);
    size_t end = index.toOffset(positionFromJson(member(change["range"], "end")), encoding_);
    if (end < begin) std::swap(begin, end);
    text.replace(begin, end - begin, newText);
  }
  bool log;
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    d->text = std::make_shared<const std::string>(std::move(text));
    d->version = version;
    d->selection.reset();  // its lines may have moved
    log = isLogDocument(*d);
  }
  if (log && settings_.autoDiagnose) scheduleDiagnosis(uri);
}

void Server::closeDocument(const std::string& uri) {
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    documents_.erase(uri);
  }
  notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
}

std::optional<DocumentView> Server::document(const std::string& uri) const {
  std::lock_guard<std::mutex> lock(stateMutex_);
  auto it = documents_.find(uri);
  if (it == documents_.end()) return std::nullopt;
  const DocState& d = *it->second;
  return DocumentView{d.uri, d.path, d.languageId, d.version, d.text, isLogDocument(d), d.diagnosis, d.selection, d.diagnosedText};
}

std::vector<DocumentView> Server::documents() const {
  std::vector<DocumentView> out;
  std::lock_guard<std::mutex> lock(stateMutex_);
  for (const auto& [uri, p] : documents_) {
    const DocState& d = *p;
    out.push_back({d.uri, d.path, d.languageId, d.version, d.text, isLogDocument(d), d.diagnosis, d.selection, d.diagnosedText});
  }
  return out;
}

void Server::setSelectionDiagnosis(const std::string& uri, std::shared_ptr<const core::Diagnosis> diagnosis) {
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    auto it = documents_.find(uri);
    if (it == documents_.end()) return;
    it->second->selection = std::move(diagnosis);
  }
  publish(uri);
}

ConvertOptions Server::convertOptions(const DocumentView& doc) const {
  ConvertOptions o;
  o.encoding = encoding_;
  o.documentUri = doc.uri;
  o.version = doc.version;
  o.workspaceRoots = roots_;
  return o;
}

void Server::publish(const std::string& uri) {
  auto doc = document(uri);
  if (!doc) return;
  json diagnostics = json::array();
  std::set<std::pair<std::string, uint64_t>> seen;
  auto add = [&](const core::Diagnosis& d, const std::string& text, const char* set, int version) {
    core::LineIndex index(text);
    ConvertOptions o = convertOptions(*doc);
    o.version = version;
    // Link the initiating failure and the collateral ones both ways.
    const core::Finding* initiating = nullptr;
    for (const auto& f : d.findings)
      if (f.initiating) initiating = &f;
    auto link = [&](json& diag, const core::Finding& to, const std::string& message) {
      if (to.evidence.front().source != 0) return;
      if (!diag.contains("relatedInformation")) diag["relatedInformation"] = json::array();
      diag["relatedInformation"].push_back({{"location", {{"uri", uri}, {"range", evidenceRange(index, to.evidence.front(), o.encoding)}}},
                                            {"message", message}});
    };
    for (size_t i = 0; i < d.findings.size(); ++i) {
      const auto& f = d.findings[i];
      if (!seen.insert({f.rule->id, f.evidence.front().line}).second) continue;
      json diag = toDiagnostic(f, i, index, o);
      diag["data"]["set"] = set;
      if (initiating && &f != initiating && f.role() == core::Role::kCollateral) {
        link(diag, *initiating, "initiating failure: " + core::verdict(*initiating));
        diag["message"] = diag["message"].get<std::string>() + " [collateral: " +
                          (f.collateralReason.empty() ? "follows from the initiating failure" : f.collateralReason) + "]";
      }
      if (initiating && &f == initiating) {
        for (const auto& g : d.findings)
          if (&g != initiating && g.role() == core::Role::kCollateral) link(diag, g, "collateral: " + core::verdict(g));
      }
      diagnostics.push_back(std::move(diag));
    }
  };
  int version = doc->version;
  if (doc->diagnosis && doc->diagnosedText) {
    add(*doc->diagnosis, *doc->diagnosedText, "document", version);
  }
  if (doc->selection) add(*doc->selection, *doc->text, "selection", doc->version);
  notify("textDocument/publishDiagnostics", {{"uri", uri}, {"version", version}, {"diagnostics", diagnostics}});
}

core::Diagnosis Server::diagnoseNow(const std::string& text, const std::string& sourceName) const {
  auto bundle = rules();
  return core::diagnoseText(bundle->rules, *bundle->matcher, text, sourceName);
}

// --- background diagnosis ----------------------------------------------------------------------

void Server::scheduleDiagnosis(const std::string& uri) {
  {
    std::lock_guard<std::mutex> lock(jobMutex_);
    if (std::find(jobs_.begin(), jobs_.end(), uri) == jobs_.end()) jobs_.push_back(uri);
  }
  jobCv_.notify_one();
}

void Server::workerLoop() {
  while (true) {
    std::string uri;
    {
      std::unique_lock<std::mutex> lock(jobMutex_);
      jobCv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      uri = jobs_.front();
      jobs_.pop_front();
    }
    try {
      diagnoseJob(uri);
    } catch (const std::exception& e) {
      spdlog::error("diagnosing {} failed: {}", uri, e.what());
    }
  }
}

void Server::diagnoseJob(const std::string& uri) {
  std::shared_ptr<DocState> d;
  std::shared_ptr<const std::string> text;
  std::shared_ptr<const RuleBundle> bundle;
  int version;
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    auto it = documents_.find(uri);
    if (it == documents_.end()) return;
    d = it->second;
    text = d->text;
    version = d->version;
    bundle = rules_;
  }
  bool append = d->diagnoser && d->fedRules == bundle && text->size() >= d->fedSize &&
                text->compare(0, d->fedSize, *d->fedText, 0, d->fedSize) == 0;
  if (!append) {
    d->diagnoser = std::make_unique<core::Diagnoser>(bundle->rules, *bundle->matcher);
    d->diagnoser->beginSource(d->path.empty() ? uri : fs::path(d->path).filename().string());
    d->fedRules = bundle;
    d->fedSize = 0;
  }
  size_t from = d->fedSize;
  constexpr size_t kChunk = 1 << 20;
  for (size_t at = d->fedSize; at < text->size(); at += kChunk) {
    d->diagnoser->addText(std::string_view(*text).substr(at, kChunk));
    d->fedSize = std::min(text->size(), at + kChunk);
    d->fedText = text;
    if (stopping_) return;
    std::lock_guard<std::mutex> lock(jobMutex_);
    if (std::find(jobs_.begin(), jobs_.end(), uri) != jobs_.end()) {
      spdlog::debug("{}: newer text queued; continuing from it", uri);
      return;  // what was fed stays valid for an append; the queued job goes on from here
    }
    if (!jobs_.empty() && d->fedSize < text->size()) {
      // Other documents wait: let them go first, one chunk each, and come back to this one.
      jobs_.push_back(uri);
      jobCv_.notify_one();
      return;
    }
  }
  d->fedText = text;
  d->fedSize = text->size();
  auto diagnosis = std::make_shared<const core::Diagnosis>(d->diagnoser->snapshot());
  spdlog::debug("{} v{}: {} findings, {} bytes scanned ({})", uri, version, diagnosis->findings.size(),
                text->size() - from, append ? "appended" : "from the start");
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    d->diagnosis = diagnosis;
    d->diagnosedText = text;
    d->diagnosedVersion = version;
  }
  publish(uri);
}

// --- sources for fixes -------------------------------------------------------------------------

namespace {

class EditorSources : public core::SourceProvider {
 public:
  EditorSources(std::map<std::string, std::pair<std::string, int>> open, const std::vector<std::string>& roots)
      : open_(std::move(open)) {
    for (const auto& r : roots) disks_.emplace_back(r);
  }

  std::optional<core::SourceFile> open(const std::string& path) override {
    std::optional<fs::path> resolved;
    std::error_code ec;
    if (fs::path(path).is_absolute() && open_.count(fs::path(path).lexically_normal().string()))
      resolved = fs::path(path).lexically_normal();
    for (auto& disk : disks_) {
      if (resolved) break;
      resolved = disk.resolve(path);
    }
    if (!resolved && fs::path(path).is_absolute() && fs::is_regular_file(path, ec)) resolved = fs::path(path);
    if (!resolved) return std::nullopt;
    std::string abs = fs::absolute(*resolved, ec).lexically_normal().string();
    auto it = open_.find(abs);
    if (it != open_.end()) return core::SourceFile{abs, it->second.first, it->second.second};
    std::string error;
    auto text = cli::readFile(abs, error);
    if (!text) return std::nullopt;
    return core::SourceFile{abs, std::move(*text), std::nullopt};
  }

  std::vector<std::string> candidates() override {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto& disk : disks_)
      for (const auto& f : disk.walk()) out.push_back(fs::absolute(f, ec).lexically_normal().string());
    for (const auto& [path, entry] : open_) {
      bool code = path.size() > 3 && (path.compare(path.size() - 3, 3, ".py") == 0 ||
                                      (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0));
      if (code && std::find(out.begin(), out.end(), path) == out.end()) out.push_back(path);
    }
    return out;
  }

 private:
  std::map<std::string, std::pair<std::string, int>> open_;  // absolute path -> (text, version)
  std::vector<cli::DiskSources> disks_;
};

}  // namespace

std::unique_ptr<core::SourceProvider> Server::sources() const {
  std::map<std::string, std::pair<std::string, int>> open;
  for (const auto& doc : documents()) {
    if (!doc.path.empty()) open[fs::path(doc.path).lexically_normal().string()] = {*doc.text, doc.version};
  }
  return std::make_unique<EditorSources>(std::move(open), roots_);
}

// --- lifecycle ---------------------------------------------------------------------------------

void Server::initialize(const json& params) {
  if (!params.is_object()) throw LspError(error::kInvalidParams, "initialize needs params");
  clientCapabilities_ = params.value("capabilities", json::object());
  encoding_ = core::PositionEncoding::kUtf16;
  const json* encodings = nullptr;
  if (clientCapabilities_.contains("general") && clientCapabilities_["general"].contains("positionEncodings"))
    encodings = &clientCapabilities_["general"]["positionEncodings"];
  if (encodings && encodings->is_array()) {
    for (const auto& e : *encodings)
      if (e == "utf-8") encoding_ = core::PositionEncoding::kUtf8;
  }
  roots_.clear();
  std::error_code ec;
  if (params.contains("workspaceFolders") && params["workspaceFolders"].is_array()) {
    for (const auto& f : params["workspaceFolders"]) {
      std::string p = uriToPath(f.value("uri", ""));
      if (!p.empty()) roots_.push_back(fs::absolute(p, ec).lexically_normal().string());
    }
  }
  if (roots_.empty() && params.contains("rootUri") && params["rootUri"].is_string()) {
    std::string p = uriToPath(params["rootUri"].get<std::string>());
    if (!p.empty()) roots_.push_back(p);
  }
  if (roots_.empty() && params.contains("rootPath") && params["rootPath"].is_string())
    roots_.push_back(params["rootPath"].get<std::string>());
  settings_ = Settings::merge(settings_, params.value("initializationOptions", json(nullptr)));
  if (!settings_.logLevel.empty()) spdlog::set_level(spdlog::level::from_str(settings_.logLevel));
  reloadRules();
  initialized_ = true;
}

void Server::applySettings(const json& settings) {
  Settings next = Settings::merge(settings_, settings);
  bool rulesChanged = next.ruleDirs != settings_.ruleDirs;
  bool autoChanged = next.autoDiagnose != settings_.autoDiagnose;
  settings_ = next;
  if (!settings_.logLevel.empty()) spdlog::set_level(spdlog::level::from_str(settings_.logLevel));
  if (rulesChanged) reloadRules();
  if (rulesChanged || autoChanged) {
    for (const auto& doc : documents()) {
      if (doc.isLog && settings_.autoDiagnose) scheduleDiagnosis(doc.uri);
      if (!settings_.autoDiagnose) {
        std::lock_guard<std::mutex> lock(stateMutex_);
        auto it = documents_.find(doc.uri);
        if (it != documents_.end()) it->second->diagnosis.reset();
      }
      if (!settings_.autoDiagnose) publish(doc.uri);
    }
  }
}

// --- the loop ----------------------------------------------------------------------------------

void Server::readerLoop() {
  std::string body;
  while (true) {
    auto status = transport_.read(body);
    if (status == Transport::ReadStatus::kEof) break;
    if (status == Transport::ReadStatus::kBadFrame) {
      spdlog::error("skipped a message with a missing or invalid Content-Length header");
      continue;
    }
    // Cancellation must overtake the queue: mark the id now, answer when its turn comes.
    if (body.size() < 512 && body.find("$/cancelRequest") != std::string::npos) {
      try {
        json j = json::parse(body);
        if (j.value("method", "") == "$/cancelRequest" && j.contains("params") && j["params"].contains("id")) {
          std::lock_guard<std::mutex> lock(queueMutex_);
          if (cancelled_.size() > 4096) cancelled_.clear();
          cancelled_.insert(j["params"]["id"].dump());
          continue;
        }
      } catch (const json::exception&) {
      }
    }
    {
      std::lock_guard<std::mutex> lock(queueMutex_);
      queue_.push_back(std::move(body));
    }
    queueCv_.notify_one();
    body = std::string();
  }
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    eof_ = true;
  }
  queueCv_.notify_one();
}

void Server::handle(const std::string& body) {
  json msg;
  try {
    msg = json::parse(body);
  } catch (const json::exception& e) {
    spdlog::error("malformed message skipped: {}", e.what());
    replyError(nullptr, error::kParseError, std::string("parse error: ") + e.what());
    return;
  }
  if (!msg.is_object() || !msg.contains("method") || !msg["method"].is_string()) {
    if (msg.is_object() && msg.contains("id") && (msg.contains("result") || msg.contains("error"))) return;  // a reply to us
    spdlog::error("invalid message skipped: {}", body.substr(0, 200));
    replyError(msg.is_object() && msg.contains("id") ? msg["id"] : json(nullptr), error::kInvalidRequest, "not a JSON-RPC request");
    return;
  }
  const std::string method = msg["method"].get<std::string>();
  json params = msg.contains("params") ? msg["params"] : json(nullptr);
  if (msg.contains("id")) {
    const json& id = msg["id"];
    if (!id.is_string() && !id.is_number_integer()) {
      replyError(nullptr, error::kInvalidRequest, "request id must be a string or an integer");
      return;
    }
    {
      std::lock_guard<std::mutex> lock(queueMutex_);
      if (cancelled_.erase(id.dump())) {
        replyError(id, error::kRequestCancelled, "request cancelled");
        return;
      }
    }
    if (!initialized_ && method != "initialize") {
      replyError(id, error::kServerNotInitialized, "the server is not initialized");
      return;
    }
    if (shutdown_) {
      replyError(id, error::kInvalidRequest, "the server is shutting down");
      return;
    }
    auto it = requests_.find(method);
    if (it == requests_.end()) {
      replyError(id, error::kMethodNotFound, "unknown method: " + method);
      return;
    }
    try {
      reply(id, it->second(params));
    } catch (const LspError& e) {
      replyError(id, e.code, e.what());
    } catch (const json::exception& e) {
      replyError(id, error::kInvalidParams, std::string("invalid params: ") + e.what());
    } catch (const std::exception& e) {
      spdlog::error("{} failed: {}", method, e.what());
      replyError(id, error::kInternalError, e.what());
    }
    return;
  }
  if (method == "exit") {
    exitRequested_ = true;
    return;
  }
  if (!initialized_) {
    spdlog::warn("notification {} before initialize dropped", method);
    return;
  }
  auto it = notifications_.find(method);
  if (it == notifications_.end()) {
    if (method.rfind("$/", 0) != 0) spdlog::debug("unhandled notification {}", method);
    return;
  }
  try {
    it->second(params);
  } catch (const std::exception& e) {
    spdlog::error("{} failed: {}", method, e.what());
  }
}

int Server::run() {
  reader_ = std::thread([this] { readerLoop(); });
  worker_ = std::thread([this] { workerLoop(); });
  while (!exitRequested_) {
    std::string body;
    {
      std::unique_lock<std::mutex> lock(queueMutex_);
      queueCv_.wait(lock, [&] { return eof_ || !queue_.empty(); });
      if (queue_.empty()) break;  // end of input
      body = std::move(queue_.front());
      queue_.pop_front();
    }
    handle(body);
  }
  stopping_ = true;
  jobCv_.notify_all();
  if (worker_.joinable()) worker_.join();
  spdlog::info("exiting ({})", shutdown_ ? "after shutdown" : "without shutdown");
  return shutdown_ ? 0 : 1;
}

int runLanguageServer(const std::vector<std::string>& args) {
  std::string level = "info";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--stdio") continue;  // what VS Code's client passes; stdio is the only transport
    if (args[i] == "--log-level" && i + 1 < args.size()) {
      level = args[++i];
    } else if (args[i] == "-h" || args[i] == "--help") {
      std::printf("usage: denpex lsp [--stdio] [--log-level trace|debug|info|warn|error|off]\n\n"
                  "Runs the language server on standard input and output (LSP 3.17). Logs go to stderr.\n");
      return 0;
    } else {
      std::fprintf(stderr, "denpex lsp: unexpected argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  auto logger = spdlog::stderr_logger_mt("denpex");
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::flush_on(spdlog::level::trace);
  Transport transport(stdin, stdout);
  Server server(transport);
  int code = server.run();
  std::fflush(stdout);
  // The reader thread may still block in a read of stdin; leave without waiting for it.
  std::_Exit(code);
}

}  // namespace denpex::lsp
