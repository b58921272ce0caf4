// Background diagnosis (see worker.h).
#include "lsp/server/worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace denpex::lsp {

DiagnosisWorker::DiagnosisWorker(DocumentStore& documents, RulesSource rules, Done done)
    : documents_(documents), rules_(std::move(rules)), done_(std::move(done)) {}

DiagnosisWorker::~DiagnosisWorker() { stop(); }

void DiagnosisWorker::start() {
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
}

void DiagnosisWorker::stop() {
  stopping_ = true;
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DiagnosisWorker::schedule(const std::string& uri) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(jobs_.begin(), jobs_.end(), uri) == jobs_.end()) jobs_.push_back(uri);
  }
  cv_.notify_one();
}

void DiagnosisWorker::schedule(const std::string& uri, Seed seed) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    seeds_[uri] = std::move(seed);
  }
  schedule(uri);
}

void DiagnosisWorker::loop() {
  while (true) {
    std::string uri;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      uri = jobs_.front();
      jobs_.pop_front();
    }
    try {
      diagnose(uri);
    } catch (const std::exception& e) {
      spdlog::error("diagnosing {} failed: {}", uri, e.what());
    }
  }
}

void DiagnosisWorker::diagnose(const std::string& uri) {
  std::optional<Seed> seed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = seeds_.find(uri); it != seeds_.end()) {
      seed = std::move(it->second);
      seeds_.erase(it);
    }
  }
  auto work = documents_.work(uri);
  if (!work) return;
  auto bundle = rules_();
  const DocTextPtr& text = work->text;
  DocumentStore::Incremental& inc = *work->incremental;
  if (seed && seed->diagnoser && seed->text && seed->fedSize <= seed->text->size()) {
    // What was read of the text before it was the document's: the checks below treat it as
    // what an earlier diagnosis of this document fed.
    seed->diagnoser->renameSource(0, work->name);
    inc.diagnoser = std::move(seed->diagnoser);
    inc.rules = seed->rules;
    inc.fedText = seed->text;
    inc.fedSize = seed->fedSize;
  }
  // Text that only grew is read from where the last reading stopped. The store says whether any
  // change touched what was read; only when one did are the bytes compared.
  // Texts that share a buffer share its bytes up to the shorter one's end (a buffer only grows).
  bool append = inc.diagnoser && inc.rules == bundle && text->size() >= inc.fedSize &&
                (inc.fedSize <= work->editedFrom || text->view().data() == inc.fedText->view().data() ||
                 text->view().substr(0, inc.fedSize) == inc.fedText->view().substr(0, inc.fedSize));
  if (!append) {
    inc.diagnoser = std::make_unique<core::Diagnoser>(bundle->rules, *bundle->matcher);
    inc.diagnoser->beginSource(work->name);
    inc.rules = bundle;
    inc.fedSize = 0;
  }
  size_t from = inc.fedSize;
  const std::string_view all = text->view();
  // Text is read on every core, with the prefilter saved for the shipped rules from 256 KiB on;
  // for other rules one is compiled from 16 MiB on (it costs a few hundred milliseconds).
  constexpr size_t kChunk = 16u << 20, kSavedPrefilterFrom = 256u << 10;
  io::FeedOptions feed;
  size_t toRead = all.size() - inc.fedSize;
  if (toRead >= kSavedPrefilterFrom) {
    if (prefilterRules_ != bundle) {
      prefilter_ = std::make_unique<io::LazyPrefilter>(*bundle->matcher);
      prefilterRules_ = bundle;
    }
    prefilter_->prepareFor(toRead);
    feed.lazyPrefilter = prefilter_.get();
  }
  for (size_t at = inc.fedSize; at < all.size();) {
    size_t end = std::min(all.size(), at + kChunk);
    // Whole lines go through the parallel feed; a line still being written (no '\n' yet), and
    // the rest of one the last text cut, are left to addText, which keeps it until its end.
    size_t nl = all.rfind('\n', end - 1);
    if (inc.diagnoser->hasPartialLine() || nl == std::string_view::npos || nl < at) {
      size_t first = all.find('\n', at);
      end = first == std::string_view::npos ? all.size() : std::min(end, first + 1);
      inc.diagnoser->addText(all.substr(at, end - at));
    } else {
      end = nl + 1;
      io::feedText(*inc.diagnoser, *bundle->matcher, all.substr(at, end - at), feed);
    }
    at = end;
    inc.fedSize = at;
    inc.fedText = text;
    if (stopping_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(jobs_.begin(), jobs_.end(), uri) != jobs_.end()) {
      spdlog::debug("{}: newer text queued; continuing from it", uri);
      return;  // what was fed stays valid for an append; the queued job goes on from here
    }
    if (!jobs_.empty() && inc.fedSize < text->size()) {
      // Other documents wait: let them go first, one chunk each, and come back to this one.
      jobs_.push_back(uri);
      cv_.notify_one();
      return;
    }
  }
  inc.fedText = text;
  inc.fedSize = text->size();
  auto diagnosis = std::make_shared<const core::Diagnosis>(inc.diagnoser->snapshot());
  spdlog::debug("{} v{}: {} findings, {} bytes scanned ({})", uri, work->version, diagnosis->findings.size(),
                text->size() - from, append ? "appended" : "from the start");
  documents_.setDiagnosis(uri, diagnosis, text, work->version);
  done_(uri);
}

}  // namespace denpex::lsp
