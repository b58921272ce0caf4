// The JSON-RPC loop, lifecycle state and the services handlers use (see server.h).
#include "lsp/server/server.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <filesystem>

#include "io/files.h"
#include "lsp/protocol/parse.h"
#include "lsp/protocol/uri.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

Server::Server(Transport& transport)
    : transport_(transport),
      routes_(bindMethods()),
      worker_(documents_, [this] { return rules(); }, [this](const std::string& uri) { publish(uri); }) {
  reloadRules();
  transport_.observeBigBodies(&arrivals_, kEarlyFrom);
}

Server::~Server() {
  reapLongThreads(Reap::kCancelAll);
  worker_.stop();
  if (reader_.joinable()) {
    bool ended;
    {
      std::lock_guard<std::mutex> lock(queueMutex_);
      ended = eof_;
    }
    // After the end of input the reader has returned or is about to; otherwise it is blocked
    // in a read of stdin while the process ends.
    if (ended) reader_.join();
    else reader_.detach();
  }
}

void Server::notify(const std::string& method, const json& params) {
  transport_.write(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Server::request(const std::string& method, const json& params) {
  transport_.write(json{{"jsonrpc", "2.0"}, {"id", "denpex-" + std::to_string(++requestsSent_)}, {"method", method}, {"params", params}}
                       .dump(-1, ' ', false, json::error_handler_t::replace));
}

void Server::reply(const json& id, const json& result) {
  transport_.write(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Server::replyError(const json& id, int code, const std::string& message) {
  transport_.write(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}.dump(
      -1, ' ', false, json::error_handler_t::replace));
}

bool Server::clientSupports(std::initializer_list<const char*> path) const {
  const json* node = &clientCapabilities_;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return false;
    node = &(*node)[key];
  }
  return node->is_boolean() && node->get<bool>();
}

void confineToWorkspace(std::vector<core::FixPlan>& plans) {
  for (auto& plan : plans) {
    if (!plan.applicable || !plan.outside) continue;
    plan.applicable = false;
    plan.edits.clear();
    plan.reason = plan.path + " is outside the workspace: not edited from the editor";
  }
}

// --- services ----------------------------------------------------------------------------------

void Server::scheduleDiagnosis(const std::string& uri) { worker_.schedule(uri); }

void Server::scheduleDiagnosis(const std::string& uri, EarlyDiagnosis::Fed early, DocTextPtr text) {
  spdlog::debug("{}: {} bytes diagnosed while it arrived", uri, early.bytes);
  worker_.schedule(uri, {std::move(early.diagnoser), std::move(early.rules), std::move(text), early.bytes});
}

std::optional<EarlyDiagnosis::Fed> Server::takeEarlyDiagnosis(const std::string& text) {
  // The string the early reading followed is the one the parse moved into the document: its
  // contents began at the same place, and it now lives in the message's own buffer.
  if (!earlyFed_ || text.data() != earlyBody_ || earlyFed_->stringBegin != earlyTakenFrom_ || earlyFed_->bytes > text.size())
    return std::nullopt;
  std::optional<EarlyDiagnosis::Fed> fed = std::move(earlyFed_);
  earlyFed_.reset();
  return fed;
}

void Server::Arrivals::begin(const char* data, size_t size) {
  current_ = std::make_shared<EarlyDiagnosis>(data, size, server_.rules());
}

void Server::Arrivals::filled(size_t bytes) {
  if (current_) current_->filled(bytes);
}

void Server::Arrivals::end(bool whole) {
  if (!whole) current_.reset();  // the input ended inside the message: nothing will use it
}

core::Diagnosis Server::diagnoseNow(const std::string& text, const std::string& sourceName) const {
  auto bundle = rules();
  return core::diagnoseText(bundle->rules, *bundle->matcher, text, sourceName);
}

void Server::invalidateListing() const {
  std::lock_guard<std::mutex> lock(listingMutex_);
  listing_.reset();
  ++listingGeneration_;  // a listing under way may predate the change: it is not taken
}

std::unique_ptr<io::WorkspaceSources> Server::sources() const {
  io::WorkspaceSources::Options options;
  for (const auto& r : roots_) options.roots.emplace_back(r);
  {
    // A walk of the workspace per request would cost more than the request (milliseconds in a
    // big tree); a listing a few seconds old is as good for finding the file a frame names.
    std::lock_guard<std::mutex> lock(listingMutex_);
    auto now = std::chrono::steady_clock::now();
    if (relisting_.valid() && relisting_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      auto fresh = relisting_.get();
      if (relistingGeneration_ == listingGeneration_ && listing_) {
        listing_ = std::move(fresh);
        listedAt_ = relistingFrom_;
      }
    }
    if (!listing_) {
      listing_ = io::FrameResolver(options.roots).listing();
      listedAt_ = now;
    } else if (now - listedAt_ > std::chrono::seconds(3) && !relisting_.valid()) {
      relistingGeneration_ = listingGeneration_;
      relistingFrom_ = now;
      relisting_ = std::async(std::launch::async, [roots = options.roots] { return io::FrameResolver(roots).listing(); });
    }
    options.listing = listing_;
  }
  // Logs are never sources to fix: only other documents stand in front of the files on disk.
  // Each buffer is the document's own snapshot, shared: a request copies no open text.
  for (const auto& doc : documents_.views())
    if (!doc.path.empty() && !doc.isLog)
      options.buffers[fs::path(doc.path).lexically_normal()] = {doc.text, doc.text->view(), doc.version};
  return std::make_unique<io::WorkspaceSources>(std::move(options));
}

ConvertOptions Server::convertOptions(const std::string& documentUri, int version) const {
  ConvertOptions o;
  o.encoding = encoding_;
  o.documentUri = documentUri;
  o.version = version;
  // Rules' pages, beside the server (looked for once).
  static const std::string& docs = *new std::string([] {
    auto dir = io::installedDocs();
    return dir ? pathToUri(dir->string()) + "/" : std::string();
  }());
  o.docsUri = docs;
  // One resolver for every frame of this conversion: the same file the quick fix edits.
  std::shared_ptr<io::WorkspaceSources> sources = this->sources();
  o.frameUri = [sources](const std::string& framePath) -> std::optional<std::string> {
    auto file = sources->resolver().resolve(framePath);
    if (!file) return std::nullopt;
    return pathToUri(file->string());
  };
  return o;
}

// --- publishing --------------------------------------------------------------------------------

void Server::publishDiagnostics(const std::string& uri, std::optional<int> version, json diagnostics) {
  notify("textDocument/publishDiagnostics", publishDiagnosticsParams(uri, version, std::move(diagnostics)));
}

void Server::publish(const std::string& uri) {
  auto doc = documents_.view(uri);
  if (!doc) return;
  json diagnostics = json::array();
  std::vector<std::pair<std::string, uint64_t>> seen;
  Publication what = publication(*doc);
  ConvertOptions options = convertOptions(uri, doc->version);  // one frame resolver for both parts
  // A checked script's findings may point into the config it names (source 1 on).
  if (!doc->isLog && doc->diagnosis && doc->diagnosis->sources.size() > 1) {
    std::error_code ec;
    for (const auto& s : doc->diagnosis->sources)
      options.sourceUris.push_back(options.sourceUris.empty() ? uri : pathToUri(fs::absolute(s, ec).lexically_normal().string()));
  }
  if (what.document) {
    auto indexed = documents_.lineIndex(uri, doc->diagnosedText);
    options.version = doc->diagnosedVersion;
    json part = toDiagnostics(*doc->diagnosis, indexed->index, options, "document", seen);
    for (auto& d : part) diagnostics.push_back(std::move(d));
  }
  if (what.selection) {
    auto indexed = documents_.lineIndex(uri, doc->text);
    options.version = doc->version;
    json part = toDiagnostics(*doc->selection, indexed->index, options, "selection", seen);
    for (auto& d : part) diagnostics.push_back(std::move(d));
  }
  publishDiagnostics(uri, what.version, std::move(diagnostics));
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
      std::string p = f.is_object() ? uriToPath(f.value("uri", "")) : "";
      if (!p.empty()) roots_.push_back(fs::absolute(p, ec).lexically_normal().string());
    }
  }
  if (roots_.empty() && params.contains("rootUri") && params["rootUri"].is_string()) {
    std::string p = uriToPath(params["rootUri"].get<std::string>());
    if (!p.empty()) roots_.push_back(p);
  }
  if (roots_.empty() && params.contains("rootPath") && params["rootPath"].is_string())
    roots_.push_back(params["rootPath"].get<std::string>());
  settings_ = Settings::merge(settings_, params.value("initializationOptions", json(nullptr)), true);
  if (!settings_.logLevel.empty()) spdlog::set_level(spdlog::level::from_str(settings_.logLevel));
  reloadRules();
  loadProbe();
  initialized_ = true;
}

void Server::applySettings(const json& settings) {
  Settings next = Settings::merge(settings_, settings);
  bool rulesChanged = next.ruleDirs != settings_.ruleDirs;
  bool autoChanged = next.autoDiagnose != settings_.autoDiagnose;
  bool probeChanged = next.probe != settings_.probe;
  settings_ = next;
  if (!settings_.logLevel.empty()) spdlog::set_level(spdlog::level::from_str(settings_.logLevel));
  if (rulesChanged) reloadRules();
  if (probeChanged) loadProbe();
  if (rulesChanged || autoChanged || probeChanged) {
    rediagnoseLogs();
    if (!settings_.autoDiagnose) {
      for (const auto& doc : documents_.views()) {
        documents_.clearDiagnosis(doc.uri);
        publish(doc.uri);
      }
    }
  }
}

// --- the loop ----------------------------------------------------------------------------------

void Server::readerLoop() {
  std::string body;
  while (true) {
    auto status = transport_.read(body);
    // Whatever framing had to skip is said, never dropped silently.
    if (std::string problem = transport_.takeProblem(); !problem.empty()) spdlog::error("input: {}", problem);
    if (status == Transport::ReadStatus::kEof) break;
    if (status == Transport::ReadStatus::kBadFrame) continue;
    // Cancellation must overtake the queue: mark the id now, answer when its turn comes.
    if (body.size() < 512 && body.find("$/cancelRequest") != std::string::npos) {
      try {
        json j = json::parse(body);
        if (j.value("method", "") == "$/cancelRequest" && j.contains("params") && j["params"].contains("id")) {
          std::lock_guard<std::mutex> lock(queueMutex_);
          std::string id = j["params"]["id"].dump();
          if (auto running = running_.find(id); running != running_.end()) {
            running->second->store(true);  // a long request under way stops at its next block
            continue;
          }
          if (cancelled_.size() > 4096) cancelled_.clear();
          cancelled_.insert(id);
          continue;
        }
      } catch (const json::exception&) {
      }
    }
    {
      std::lock_guard<std::mutex> lock(queueMutex_);
      queue_.push_back({std::move(body), arrivals_.take()});
    }
    queueCv_.notify_one();
    body = std::string();
  }
  std::lock_guard<std::mutex> lock(queueMutex_);
  eof_ = true;
  queueCv_.notify_one();
}

void Server::handle(std::string& body) {
  // A message diagnosed as it arrived: the early reading stops before the parse changes its bytes.
  earlyFed_.reset();
  earlyBody_ = nullptr;
  earlyTakenFrom_ = SIZE_MAX;
  if (handlingEarly_) {
    earlyFed_ = handlingEarly_->stop();
    earlyBody_ = handlingEarly_->body();
    handlingEarly_.reset();
    if (earlyBody_ != body.data()) earlyFed_.reset();  // not this message's bytes (cannot happen)
  }
  struct Forget {
    std::optional<EarlyDiagnosis::Fed>& fed;
    ~Forget() { fed.reset(); }  // not taken by a didOpen: dropped with the message
  } forgetEarly{earlyFed_};
  json msg;
  try {
    msg = parseMessage(body, kBigStringFrom, &earlyTakenFrom_);
    std::string().swap(body);  // a 100 MB message is not kept while it is handled
  } catch (const json::exception& e) {
    spdlog::error("malformed message skipped: {}", e.what());
    replyError(nullptr, error::kParseError, std::string("parse error: ") + e.what());
    return;
  } catch (const MessageTooDeep& e) {
    spdlog::error("message skipped: {}", e.what());
    replyError(nullptr, error::kInvalidRequest, e.what());
    return;
  }
  if (!msg.is_object() || !msg.contains("method") || !msg["method"].is_string()) {
    if (msg.is_object() && msg.contains("id") && (msg.contains("result") || msg.contains("error"))) return;  // a reply to us
    spdlog::error("invalid message skipped: {}", msg.dump().substr(0, 200));
    replyError(msg.is_object() && msg.contains("id") ? msg["id"] : json(nullptr), error::kInvalidRequest, "not a JSON-RPC request");
    return;
  }
  const std::string method = msg["method"].get<std::string>();
  json params = msg.contains("params") ? std::move(msg["params"]) : json(nullptr);  // no copy of a big text
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
    auto it = routes_.requests.find(method);
    if (it == routes_.requests.end()) {
      replyError(id, error::kMethodNotFound, "unknown method: " + method);
      return;
    }
    currentId_ = &id;
    deferred_ = false;
    struct Forget {
      const json*& current;
      ~Forget() { current = nullptr; }
    } forget{currentId_};
    try {
      json result = it->second(*this, params);
      if (deferred_) return;  // a long request: its thread replies (runLong is a handler's last call)
      reply(id, result);
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
  auto it = routes_.notifications.find(method);
  if (it == routes_.notifications.end()) {
    if (method.rfind("$/", 0) != 0) spdlog::debug("unhandled notification {}", method);
    return;
  }
  try {
    it->second(*this, params);
  } catch (const std::exception& e) {
    spdlog::error("{} failed: {}", method, e.what());
  }
}

int Server::run() {
  reader_ = std::thread([this] { readerLoop(); });
  worker_.start();
  while (!exitRequested_) {
    std::string body;
    {
      std::unique_lock<std::mutex> lock(queueMutex_);
      queueCv_.wait(lock, [&] { return eof_ || !queue_.empty(); });
      if (queue_.empty()) break;  // end of input
      body = std::move(queue_.front().body);
      handlingEarly_ = std::move(queue_.front().early);
      queue_.pop_front();
    }
    handle(body);
  }
  reapLongThreads(Reap::kCancelAll);
  worker_.stop();
  spdlog::info("exiting ({})", shutdown_ ? "after shutdown" : "without shutdown");
  return shutdown_ ? 0 : 1;
}

}  // namespace denpex::lsp
