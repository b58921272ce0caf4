// The language server: the JSON-RPC loop, the routing table, lifecycle state, and the services
// handlers use (documents, rules, fix sources, publishing).
//
// Threads: a reader thread turns the transport's input into messages (and marks cancelled
// requests at once); the main thread (run()) handles every request and notification in order;
// the DiagnosisWorker diagnoses documents in the background and publishes the results. Every
// request gets exactly one reply: handlers return a result or throw LspError, and the
// dispatcher turns both into the reply. Handlers run on the main thread only; the services
// below say where they may be called from.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/analyze/diagnoser.h"
#include "core/check/machine.h"
#include "io/rule_dirs.h"
#include "io/workspace_sources.h"
#include "lsp/protocol/to_proto.h"
#include "lsp/protocol/types.h"
#include "lsp/server/documents.h"
#include "lsp/server/early_diagnosis.h"
#include "lsp/server/settings.h"
#include "lsp/server/worker.h"
#include "lsp/transport/transport.h"

namespace denpex::lsp {

class Server;
using RequestHandler = json (*)(Server& server, const json& params);
// Notifications own their params: a handler may move a big text out of them.
using NotificationHandler = void (*)(Server& server, json& params);

// The routing table: every method the server answers and its handler (routes.cpp).
struct Routes {
  std::map<std::string, RequestHandler> requests;
  std::map<std::string, NotificationHandler> notifications;
};
Routes bindMethods();

// Fixes from the language server edit only files inside the workspace (or, with no workspace
// folder, the documents open in the editor): a plan for any other file becomes a plan with no
// edit that says why.
void confineToWorkspace(std::vector<core::FixPlan>& plans);

class Server {
 public:
  // `transport` must outlive the server.
  explicit Server(Transport& transport);
  ~Server();

  // Handles one message body on the calling thread, as run() does for each message it reads
  // (background diagnoses are queued, not run, unless run() started the worker). For drivers that
  // feed the server themselves: the fuzzer.
  void handleMessage(std::string& body) { handle(body); }

  // Runs until `exit` or the end of input. Returns the process exit code: 0 after a
  // `shutdown` request, 1 otherwise (as the spec asks).
  int run();

  // --- state (main thread) -------------------------------------------------------------------
  core::PositionEncoding encoding() const { return encoding_; }
  const json& clientCapabilities() const { return clientCapabilities_; }
  // True when the client's capabilities hold `true` at this path.
  bool clientSupports(std::initializer_list<const char*> path) const;
  const std::vector<std::string>& workspaceRoots() const { return roots_; }
  const Settings& settings() const { return settings_; }
  void initialize(const json& params);
  void applySettings(const json& settings);
  // Rule files changed on disk (workspace/didChangeWatchedFiles): reload when one of them is a
  // rule file in use, and diagnose the open logs again.
  void rulesChangedOnDisk(const std::vector<std::string>& paths);
  // Workspace folders added and removed (workspace/didChangeWorkspaceFolders).
  void changeWorkspaceFolders(const std::vector<std::string>& added, const std::vector<std::string>& removed);
  // Requests under way are answered first: the reply to `shutdown` comes after theirs.
  void markShutdown() {
    reapLongThreads(Reap::kWaitAll);
    shutdown_ = true;
  }
  // Tells the client (window/logMessage) which rule folders are in use and which were not loaded.
  void announceRules();

  // --- services (any thread) -----------------------------------------------------------------
  DocumentStore& documents() { return documents_; }
  // The loaded rules, replaced as a whole when settings change.
  std::shared_ptr<const io::LoadedRules> rules() const;
  // Queues a background diagnosis of a document (the newest request for a document wins).
  void scheduleDiagnosis(const std::string& uri);
  // The same, going on from what was diagnosed of its text while the message that opened it
  // arrived (takeEarlyDiagnosis).
  void scheduleDiagnosis(const std::string& uri, EarlyDiagnosis::Fed early, DocTextPtr text);
  // What was diagnosed of `text` while the message being handled arrived, when `text` is that
  // message's big string (its buffer is the message's, taken over by the parse); else nullopt.
  // Main thread, while the message is handled.
  std::optional<EarlyDiagnosis::Fed> takeEarlyDiagnosis(const std::string& text);
  // Checks a training script (a Python document) for the failures its source foretells, and
  // publishes them; fast enough for the main thread (a pass over the text, no log).
  // A Python script or JSON config, checked before the run; a config also re-checks the open
  // scripts (`recheckScripts`), which may name it.
  void checkSource(const std::string& uri, bool recheckScripts = true);
  // Diagnoses text now, on the calling thread.
  core::Diagnosis diagnoseNow(const std::string& text, const std::string& sourceName) const;
  // Sources for fixes: the editor's open documents first, then the workspace folders on disk.
  std::unique_ptr<io::WorkspaceSources> sources() const;
  // Forgets the workspace's file listing (a file was saved or created).
  void invalidateListing() const;
  // How findings of `doc` become diagnostics (positions, the frame resolver, versions).
  ConvertOptions convertOptions(const std::string& documentUri, int version) const;

  // Publishing: the one place that sends textDocument/publishDiagnostics.
  // The document's current findings: its whole-document diagnosis (published with the version
  // it was made from) and its diagnosed selection.
  void publish(const std::string& uri);
  // Diagnostics computed elsewhere (a folder of logs), or none (a closed document).
  void publishDiagnostics(const std::string& uri, std::optional<int> version, json diagnostics);

  void notify(const std::string& method, const json& params);

  // --- long requests ---------------------------------------------------------------------------
  // What a long request's work sees: whether the client cancelled it ($/cancelRequest), and a
  // way to report progress ($/progress, when the client gave a workDoneToken; else nothing).
  class LongRequest {
   public:
    LongRequest(Server& server, json progressToken)
        : server_(server), token_(std::move(progressToken)), cancelled_(std::make_shared<std::atomic<bool>>(false)) {}
    const std::atomic<bool>& cancelled() const { return *cancelled_; }
    void begin(const std::string& title);
    // At most one report per percent.
    void report(int percentage, const std::string& message);
    void end(const std::string& message);

   private:
    friend class Server;
    Server& server_;
    json token_;
    std::shared_ptr<std::atomic<bool>> cancelled_;
    int lastPercent_ = -1;
  };
  // Called by a request handler (main thread) that would run long: reading a log from disk, a
  // folder of logs. The handler returns at once (its return value is ignored); `work` runs on a
  // thread of its own, and what it returns (or throws: LspError) is the request's reply, so
  // hovers and code actions are answered meanwhile. A request cancelled while it runs is
  // answered with RequestCancelled.
  void runLong(json progressToken, std::function<json(LongRequest&)> work);
  // Sends a request to the client; its reply is not waited for (replies to us are skipped).
  void request(const std::string& method, const json& params);

 private:
  void readerLoop();
  void handle(std::string& body);
  void reply(const json& id, const json& result);
  void replyError(const json& id, int code, const std::string& message);
  void reloadRules();
  // Publishes the rule errors on their rule files (the Problems panel), and clears the files
  // that no longer have any.
  void publishRuleErrors(const io::LoadedRules& rules);
  // After the rules changed: the open logs are diagnosed again.
  void rediagnoseLogs();

  Transport& transport_;
  Routes routes_;

  // Messages from the reader thread, each with its early diagnosis when it was read as it
  // arrived.
  struct Queued {
    std::string body;
    std::shared_ptr<EarlyDiagnosis> early;
  };
  std::mutex queueMutex_;
  std::condition_variable queueCv_;
  std::deque<Queued> queue_;
  // The big message the reader thread is reading, diagnosed as it arrives (reader thread).
  class Arrivals : public BodyObserver {
   public:
    explicit Arrivals(Server& server) : server_(server) {}
    void begin(const char* data, size_t size) override;
    void filled(size_t bytes) override;
    void end(bool whole) override;
    std::shared_ptr<EarlyDiagnosis> take() { return std::move(current_); }

   private:
    Server& server_;
    std::shared_ptr<EarlyDiagnosis> current_;
  } arrivals_{*this};
  // Messages from this size on are read as they arrive.
  static constexpr size_t kEarlyFrom = size_t{8} << 20;
  // The message being handled: its early diagnosis, stopped before its parse (main thread).
  std::shared_ptr<EarlyDiagnosis> handlingEarly_;
  std::optional<EarlyDiagnosis::Fed> earlyFed_;
  const char* earlyBody_ = nullptr;
  size_t earlyTakenFrom_ = SIZE_MAX;
  bool eof_ = false;
  std::set<std::string> cancelled_;  // ids (dumped JSON) cancelled before they were handled
  // Long requests running, by id (dumped JSON): their cancellation flags (under queueMutex_).
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> running_;
  struct LongThread {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<LongThread> longThreads_;  // main thread
  enum class Reap { kFinished, kWaitAll, kCancelAll };
  void reapLongThreads(Reap how);
  const json* currentId_ = nullptr;  // the request being handled (main thread)
  bool deferred_ = false;            // its handler called runLong()

  bool initialized_ = false;
  bool shutdown_ = false;
  bool exitRequested_ = false;
  core::PositionEncoding encoding_ = core::PositionEncoding::kUtf16;
  json clientCapabilities_ = json::object();
  std::vector<std::string> roots_;
  // The roots' .py and .json files, listed at most every few seconds instead of per request.
  // A listing gone stale is listed again on a thread of its own while requests go on with the
  // old one (a walk of a big workspace costs more than the request); one that was invalidated (a
  // file saved, the roots changed) is listed again at once.
  mutable std::mutex listingMutex_;
  mutable std::shared_ptr<const io::FileListing> listing_;
  mutable std::chrono::steady_clock::time_point listedAt_;
  mutable std::future<std::shared_ptr<const io::FileListing>> relisting_;
  mutable std::chrono::steady_clock::time_point relistingFrom_;
  mutable uint64_t listingGeneration_ = 0;    // counts invalidations
  mutable uint64_t relistingGeneration_ = 0;  // the generation the listing under way started in
  Settings settings_;
  // The machine scripts are checked against (settings_.probe, read by loadProbe); null: none.
  std::shared_ptr<const core::MachineProbe> probe_;
  void loadProbe();
  std::string rulesNote_;       // what announceRules() says (main thread)
  std::string rulesErrorNote_;  // and shows, when rule files had errors
  std::set<std::string> ruleErrorUris_;  // rule files with errors published on them
  int requestsSent_ = 0;

  mutable std::mutex rulesMutex_;
  std::shared_ptr<const io::LoadedRules> rules_;
  int rulesGeneration_ = 0;

  DocumentStore documents_;
  DiagnosisWorker worker_;
  std::thread reader_;
};

}  // namespace denpex::lsp
