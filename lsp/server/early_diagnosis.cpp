// A log diagnosed while its didOpen arrives (see early_diagnosis.h).
#include "lsp/server/early_diagnosis.h"

#include <spdlog/spdlog.h>

#include "io/parallel_feed.h"
#include "lsp/protocol/parse.h"

namespace denpex::lsp {

EarlyDiagnosis::EarlyDiagnosis(const char* body, size_t size, std::shared_ptr<const io::LoadedRules> rules)
    : body_(body), size_(size), rules_(std::move(rules)) {
  thread_ = std::thread([this] { run(); });
}

EarlyDiagnosis::~EarlyDiagnosis() { stop(); }

void EarlyDiagnosis::filled(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    filled_ = std::min(bytes, size_);
  }
  cv_.notify_one();
}

std::optional<EarlyDiagnosis::Fed> EarlyDiagnosis::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (!diagnoser_ || fed_ == 0) return std::nullopt;
  Fed fed;
  fed.diagnoser = std::move(diagnoser_);
  fed.rules = rules_;
  fed.stringBegin = reader_.stringBegin();
  fed.bytes = fed_;
  fed_ = 0;
  return fed;
}

void EarlyDiagnosis::run() {
  const core::Matcher& matcher = *rules_->matcher;
  io::LazyPrefilter prefilter(matcher);  // the saved one for the shipped rules
  prefilter.prepareFor(size_);
  io::FeedOptions feed;
  feed.lazyPrefilter = &prefilter;
  std::string text;  // one piece, unescaped
  size_t read = 0;   // the body's bytes the reader has seen
  while (true) {
    size_t avail = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || filled_ > read; });
      if (stopping_) return;
      avail = filled_;
    }
    ArrivingString::Piece piece = reader_.next(std::string_view(body_, avail));
    if (piece.empty()) {
      if (reader_.ended()) return;  // the big string is all read: the worker reads its last line
      read = avail;
      continue;
    }
    text.resize(piece.end - piece.begin);
    text.resize(unescapeTo(text.data(), std::string_view(body_ + piece.begin, piece.end - piece.begin)));
    if (!diagnoser_) {
      diagnoser_ = std::make_unique<core::Diagnoser>(rules_->rules, matcher);
      diagnoser_->beginSource("");
    }
    io::feedText(*diagnoser_, matcher, text, feed);  // whole lines: the piece ends with '\n'
    fed_ += text.size();
  }
}

}  // namespace denpex::lsp
