// The diagnosis worker: one background thread that diagnoses documents and hands the results
// to a callback, so that a 100 MB log never holds up a hover on another document.
//
// A document's newest request wins; a document that only grew is diagnosed from where the last
// diagnosis left off; a long document is read in chunks of 16 MiB, each on every core (with the
// Vectorscan prefilter, compiled once per rule set), and yields to the others between chunks.
// Thread-safe:
// schedule() may be called from any thread; the callback runs on the worker thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "io/parallel_feed.h"
#include "io/rule_dirs.h"
#include "lsp/server/documents.h"

namespace denpex::lsp {

class DiagnosisWorker {
 public:
  using RulesSource = std::function<std::shared_ptr<const io::LoadedRules>()>;
  // Called with the document's URI once its diagnosis is stored in the document store.
  using Done = std::function<void(const std::string& uri)>;

  // `documents` must outlive the worker. The thread starts with start().
  DiagnosisWorker(DocumentStore& documents, RulesSource rules, Done done);
  ~DiagnosisWorker();  // stops and joins

  void start();
  void stop();
  // A diagnosis begun elsewhere (while the document's didOpen arrived, lsp/server/early_diagnosis):
  // a diagnoser fed the first `fedSize` bytes of `text` with `rules`, as input 0.
  struct Seed {
    std::unique_ptr<core::Diagnoser> diagnoser;
    std::shared_ptr<const io::LoadedRules> rules;
    DocTextPtr text;
    size_t fedSize = 0;
  };
  void schedule(const std::string& uri);
  // The same, the diagnosis going on from `seed` (when the text and the rules are still its own).
  void schedule(const std::string& uri, Seed seed);

 private:
  void loop();
  void diagnose(const std::string& uri);

  DocumentStore& documents_;
  RulesSource rules_;
  Done done_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> jobs_;
  std::map<std::string, Seed> seeds_;  // under mutex_
  std::atomic<bool> stopping_{false};
  // The prefilter of the newest rule set, made when a big text first needs it (worker thread only).
  std::shared_ptr<const io::LoadedRules> prefilterRules_;
  std::unique_ptr<io::LazyPrefilter> prefilter_;
  std::thread thread_;
};

}  // namespace denpex::lsp
