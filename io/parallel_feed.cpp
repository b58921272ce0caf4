// Blocks of lines analysed on worker threads, applied in order (see parallel_feed.h).
#include "io/parallel_feed.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/parse/launcher.h"
#include "core/parse/log_line.h"
#include "core/rules/rule_bundle.h"
#include "io/prefilter_cache.h"
#include <vector>

namespace denpex::io {
namespace {

struct Block {
  std::string text;        // whole lines (the input's last line may lack its '\n')
  std::string before;      // the raw line before the block's first line (from the block before)
  bool hasBefore = false;
  std::optional<core::ParsedLine> previous;  // or that line as the diagnoser already read it
  uint64_t firstLine = 0;
  std::vector<core::LineFacts> facts;
  bool ready = false;
};

// Reads the next block of whole lines; an empty text means the input ended.
using NextBlock = std::function<bool(std::string& text)>;

// The '\n's in `t`, found with memchr (a byte loop is not vectorised at -O2).
uint64_t countLines(std::string_view t) {
  uint64_t n = 0;
  for (const char* p = t.data(), *end = t.data() + t.size(); p < end; ++n) {
    p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!p) break;
    ++p;
  }
  return n;
}

unsigned workerCount(const FeedOptions& options) {
  if (options.threads > 0) return options.threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

// The pipeline: `next` fills blocks on this thread, workers analyse them, this thread applies
// them in order. Returns false when `next` failed.
bool run(core::Diagnoser& diagnoser, const core::Matcher& matcher, const NextBlock& next, const FeedOptions& options) {
  const uint32_t source = diagnoser.currentSource();
  const int defaultRank = diagnoser.currentDefaultRank();
  const unsigned workers = workerCount(options);
  const size_t window = 2 * static_cast<size_t>(workers) + 2;  // blocks read ahead at most

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::shared_ptr<Block>> queue;  // read, not yet taken by a worker
  bool done = false;

  std::vector<std::thread> pool;
  for (unsigned i = 0; i < workers; ++i) {
    pool.emplace_back([&] {
      core::Prefilter::Scratch scratch;
      const core::Prefilter* scratchFor = nullptr;
      core::ParsedLine beforeLine;
      while (true) {
        std::shared_ptr<Block> block;
        {
          std::unique_lock<std::mutex> lock(mutex);
          changed.wait(lock, [&] { return done || !queue.empty(); });
          if (queue.empty()) return;
          block = queue.front();
          queue.pop_front();
        }
        const core::Prefilter* prefilter = options.prefilter;
        if (!prefilter && options.lazyPrefilter) prefilter = options.lazyPrefilter->get();
        if (prefilter && prefilter != scratchFor) {
          scratch = prefilter->newScratch();
          scratchFor = prefilter;
        }
        const core::ParsedLine* before = block->previous ? &*block->previous : nullptr;
        if (!before && block->hasBefore) {
          core::parseLineInto(block->before, source, block->firstLine - 1, beforeLine);
          core::maskLineSecrets(beforeLine);  // as it was when its own block read it
          if (beforeLine.rank < 0) beforeLine.rank = defaultRank;
          if (!beforeLine.message().empty()) before = &beforeLine;
        }
        core::analyzeLines(matcher, block->text, source, block->firstLine, defaultRank, before, block->facts, prefilter,
                           &scratch);
        {
          std::lock_guard<std::mutex> lock(mutex);
          block->ready = true;
        }
        changed.notify_all();
      }
    });
  }

  std::deque<std::shared_ptr<Block>> inOrder;  // read, not yet applied
  // Applied blocks, kept for their memory: their strings and vectors are reused by the next
  // blocks instead of being freed on this thread and allocated again on a worker.
  std::vector<std::shared_ptr<Block>> spare;
  uint64_t lineNo = diagnoser.nextLineNo();
  std::string lastLine;
  bool hasLast = false, ended = false, ok = true;
  uint64_t applied = 0;  // bytes
  // The line the diagnoser read last, for the first block (a message wrapped across the point
  // where feeding resumes).
  std::optional<core::ParsedLine> resumeAfter;
  if (const core::ParsedLine* p = diagnoser.previousLine()) resumeAfter = *p;
  while (true) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) ended = true;
    // Read ahead while the window has room.
    while (!ended && inOrder.size() < window) {
      std::shared_ptr<Block> block;
      if (spare.empty()) {
        block = std::make_shared<Block>();
      } else {
        block = std::move(spare.back());
        spare.pop_back();
        block->ready = false;
      }
      if (!next(block->text)) ok = false;
      if (block->text.empty()) {
        ended = true;
        break;
      }
      block->firstLine = lineNo;
      block->before = lastLine;
      block->hasBefore = hasLast;
      block->previous.reset();
      if (!hasLast && resumeAfter) block->previous = std::move(resumeAfter);
      std::string_view t(block->text);
      lineNo += countLines(t);
      std::string_view body = t.back() == '\n' ? t.substr(0, t.size() - 1) : t;
      size_t cut = body.rfind('\n');
      lastLine.assign(cut == std::string_view::npos ? body : body.substr(cut + 1));
      hasLast = true;
      inOrder.push_back(block);
      {
        std::lock_guard<std::mutex> lock(mutex);
        queue.push_back(std::move(block));
      }
      changed.notify_all();
    }
    if (inOrder.empty()) break;
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return inOrder.front()->ready; });
    }
    diagnoser.addFacts(inOrder.front()->facts);
    applied += inOrder.front()->text.size();
    if (options.progress) options.progress(applied);
    spare.push_back(std::move(inOrder.front()));
    inOrder.pop_front();
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  changed.notify_all();
  for (auto& t : pool) t.join();
  return ok;
}

}  // namespace

LazyPrefilter::LazyPrefilter(const core::Matcher& matcher) : matcher_(matcher) {
  value_ = core::Prefilter::load(matcher, core::lineLiterals(), core::builtinPrefilter());
  ready_.store(value_.get(), std::memory_order_release);
}

void LazyPrefilter::compile() {
  if (value_ || thread_.joinable()) return;
  thread_ = std::thread([this] {
    // Rules of one's own: compiled once, then read from the cache (milliseconds).
    value_ = loadCachedPrefilter(matcher_, core::lineLiterals());
    if (!value_) {
      value_ = core::makeLinePrefilter(matcher_);
      storeCachedPrefilter(matcher_, core::lineLiterals(), *value_);
    }
    ready_.store(value_.get(), std::memory_order_release);
  });
}

void LazyPrefilter::loadCached() {
  if (value_ || thread_.joinable()) return;
  value_ = loadCachedPrefilter(matcher_, core::lineLiterals());
  ready_.store(value_.get(), std::memory_order_release);
}

LazyPrefilter::~LazyPrefilter() {
  if (thread_.joinable()) thread_.join();
}

bool feedStream(core::Diagnoser& diagnoser, const core::Matcher& matcher, std::istream& in, FeedOptions options) {
  std::string carry;  // the start of a line the last read cut
  bool skipping = false;  // in a line past kMaxLineBytes: its bytes are dropped up to its '\n'
  bool failed = false;
  auto next = [&](std::string& text) {
    text.assign(carry);  // keeps the capacity of a reused block
    carry.clear();
    size_t want = std::max<size_t>(options.blockBytes, 1);
    size_t lineStart = 0;  // where the line that is not finished yet starts in `text`
    while (in) {
      size_t at = text.size();
      text.resize(at + want);
      in.read(text.data() + at, static_cast<std::streamsize>(want));
      text.resize(at + static_cast<size_t>(in.gcount()));
      if (skipping) {
        size_t nl = text.find('\n', at);
        if (nl == std::string::npos) {
          text.resize(at);
          continue;
        }
        text.erase(at, nl - at);  // the line keeps its first kMaxLineBytes and its '\n'
        skipping = false;
      }
      size_t nl = text.rfind('\n');
      if (nl != std::string::npos && nl >= at) {  // the block ends after its last whole line
        carry.assign(text, nl + 1);
        text.resize(nl + 1);
        if (carry.size() > core::kMaxLineBytes) {
          carry.resize(core::kMaxLineBytes);
          skipping = true;
        }
        break;
      }
      if (nl != std::string::npos) lineStart = nl + 1;
      if (text.size() - lineStart > core::kMaxLineBytes) {
        // A line with no end in sight: keep its start, drop the rest up to its '\n'.
        text.resize(lineStart + core::kMaxLineBytes);
        skipping = true;
      }
    }
    if (in.bad()) failed = true;
    return !failed;
  };
  bool ok = run(diagnoser, matcher, next, options);
  return ok && !failed;
}

void feedText(core::Diagnoser& diagnoser, const core::Matcher& matcher, std::string_view text, FeedOptions options) {
  size_t at = 0;
  auto next = [&](std::string& block) {
    block.clear();
    if (at >= text.size()) return true;
    size_t want = std::max<size_t>(options.blockBytes, 1);
    size_t end = std::min(text.size(), at + want);
    size_t nl = text.find('\n', end - 1);
    end = nl == std::string_view::npos ? text.size() : nl + 1;
    if (end - at <= core::kMaxLineBytes) {  // no line in it can be too long: one copy
      block.assign(text.substr(at, end - at));
      at = end;
      return true;
    }
    // Whole lines up to the block size; a line past kMaxLineBytes is copied only that far.
    while (at < text.size() && block.size() < want) {
      size_t nl = text.find('\n', at);
      size_t end = nl == std::string_view::npos ? text.size() : nl;
      block.append(text.substr(at, std::min(end - at, core::kMaxLineBytes)));
      if (nl != std::string_view::npos) block.push_back('\n');
      at = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    return true;
  };
  run(diagnoser, matcher, next, options);
}

}  // namespace denpex::io
