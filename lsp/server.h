// The language server: message loop, dispatch, lifecycle, documents and background diagnosis.
//
// Threads: a reader thread turns stdin into messages (and marks cancelled requests at once); the
// main thread handles every request and notification in order; a diagnosis worker diagnoses
// documents in the background and publishes the results, so a 100 MB log never holds up a
// hover on another document. Every request gets exactly one reply: handlers return a result or
// throw LspError, and the dispatcher turns both into the reply.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/diagnoser.h"
#include "core/fix_planner.h"
#include "core/matcher.h"
#include "core/rule.h"
#include "lsp/protocol.h"
#include "lsp/transport.h"

namespace denpex::lsp {

struct Settings {
  std::vector<std::string> ruleDirs;  // extra rule folders, after the workspace's .denpex/rules
  bool autoDiagnose = true;           // diagnose log documents as they open and change
  std::string logLevel;               // trace, debug, info, warn, error, off; empty: as started

  // Reads {"rules": [...], "autoDiagnose": bool, "logLevel": "..."} (unknown keys ignored),
  // starting from `base`. Throws LspError(InvalidParams) on wrong types.
  static Settings merge(Settings base, const json& j);
};

// The loaded rules and their compiled matcher, replaced as a whole when settings change.
struct RuleBundle {
  core::RuleSet rules;
  std::unique_ptr<core::Matcher> matcher;
  std::vector<core::RuleError> errors;
  int generation = 0;
};

// What handlers see of a document: an immutable snapshot.
struct DocumentView {
  std::string uri;
  std::string path;  // empty for non-file URIs (untitled documents)
  std::string languageId;
  int version = 0;
  std::shared_ptr<const std::string> text;
  bool isLog = false;
  std::shared_ptr<const core::Diagnosis> diagnosis;  // whole-document diagnosis, if any
  std::shared_ptr<const core::Diagnosis> selection;  // from denpex.diagnose on a range, if any
  std::shared_ptr<const std::string> diagnosedText;  // the text `diagnosis` was made from
};

class Server {
 public:
  using RequestHandler = std::function<json(const json& params)>;
  using NotificationHandler = std::function<void(const json& params)>;

  explicit Server(Transport& transport);
  ~Server();

  // Runs until `exit` or the end of input. Returns the process exit code: 0 after a
  // `shutdown` request, 1 otherwise (as the spec asks).
  int run();

  // --- for handler files --------------------------------------------------------------------
  void onRequest(const std::string& method, RequestHandler handler);
  void onNotification(const std::string& method, NotificationHandler handler);
  void notify(const std::string& method, const json& params);

  core::PositionEncoding encoding() const { return encoding_; }
  const json& clientCapabilities() const { return clientCapabilities_; }
  std::vector<std::string> workspaceRoots() const;
  std::shared_ptr<const RuleBundle> rules() const;

  // Documents.
  void openDocument(const std::string& uri, const std::string& languageId, int version, std::string text);
  // Applies LSP content changes (incremental ranges or full text) in order.
  void changeDocument(const std::string& uri, int version, const json& changes);
  void closeDocument(const std::string& uri);
  std::optional<DocumentView> document(const std::string& uri) const;
  std::vector<DocumentView> documents() const;
  void setSelectionDiagnosis(const std::string& uri, std::shared_ptr<const core::Diagnosis> d);

  // Queues a background diagnosis of a document (the newest request for a document wins).
  void scheduleDiagnosis(const std::string& uri);
  // Publishes the document's current findings (whole-document and selection).
  void publish(const std::string& uri);
  // Diagnoses text now, on the calling thread.
  core::Diagnosis diagnoseNow(const std::string& text, const std::string& sourceName) const;

  // Sources for fixes: the editor's open documents first, then the workspace folders on disk.
  std::unique_ptr<core::SourceProvider> sources() const;

  ConvertOptions convertOptions(const DocumentView& doc) const;

  // Lifecycle, for the lifecycle handlers.
  void initialize(const json& params);
  void applySettings(const json& settings);
  void markShutdown() { shutdown_ = true; }
  void requestExit() { exitRequested_ = true; }

 private:
  struct DocState;

  void readerLoop();
  void handle(const std::string& body);
  void reply(const json& id, const json& result);
  void replyError(const json& id, int code, const std::string& message);
  void reloadRules();
  bool isLogDocument(const DocState& d) const;
  void workerLoop();
  void diagnoseJob(const std::string& uri);

  Transport& transport_;
  std::map<std::string, RequestHandler> requests_;
  std::map<std::string, NotificationHandler> notifications_;

  // Messages from the reader thread.
  std::mutex queueMutex_;
  std::condition_variable queueCv_;
  std::deque<std::string> queue_;
  bool eof_ = false;
  std::set<std::string> cancelled_;  // ids (dumped JSON) cancelled before they were handled

  bool initialized_ = false;
  bool shutdown_ = false;
  bool exitRequested_ = false;
  core::PositionEncoding encoding_ = core::PositionEncoding::kUtf16;
  json clientCapabilities_ = json::object();
  std::vector<std::string> roots_;
  Settings settings_;

  mutable std::mutex stateMutex_;  // documents_, rules_
  std::map<std::string, std::shared_ptr<DocState>> documents_;
  std::shared_ptr<const RuleBundle> rules_;

  // Background diagnosis.
  std::mutex jobMutex_;
  std::condition_variable jobCv_;
  std::deque<std::string> jobs_;
  std::atomic<bool> stopping_{false};
  std::thread worker_;
  std::thread reader_;
};

// Each feature registers its methods; one file per feature under lsp/handlers/.
void registerLifecycle(Server& server);
void registerTextSync(Server& server);
void registerHover(Server& server);
void registerCodeActions(Server& server);
void registerCommands(Server& server);
void registerDocumentLinks(Server& server);
void registerCodeLens(Server& server);

// Runs `denpex lsp` on stdin/stdout; returns the exit code.
int runLanguageServer(const std::vector<std::string>& args);

}  // namespace denpex::lsp
