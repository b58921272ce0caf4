// Blocks of lines analysed on worker threads, applied in order (see parallel_feed.h).
#include "io/parallel_feed.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/base/text.h"
#include "core/parse/launcher.h"
#include "core/parse/log_line.h"
#include "core/rules/rule_bundle.h"
#include "io/feed_blocks.h"
#include "io/prefilter_cache.h"

namespace denpex::io {
namespace {

// An input that begins: its name and default rank, as Diagnoser::beginSource takes them.
using Begins = std::optional<std::pair<std::string, int>>;

struct Block {
  std::string text;        // whole lines (the input's last line may lack its '\n')
  uint64_t seq = 0;        // its place in the input: blocks are applied in this order
  uint32_t source = 0;     // the diagnoser's index of the input the lines are of
  int defaultRank = -1;
  // Set on the first block of an input of feedSources: the diagnoser begins it before the
  // block's facts (its text may be empty: an empty input is an input too).
  Begins begins;
  size_t beginsIndex = 0;  // which of the inputs fed it begins
  std::string before;      // the raw line before the block's first line (from the block before)
  bool hasBefore = false;
  std::optional<core::ParsedLine> previous;  // or that line as the diagnoser already read it
  uint64_t firstLine = 0;
};

// Reads the next block of whole lines; an empty text means the input ended. A reader of several
// inputs sets `begins` (a name and a default rank) on the first block of each.
using NextBlock = std::function<bool(std::string& text, Begins& begins)>;

// Adds the time from its making to its end to `to`, when there are stats to keep.
class StageClock {
 public:
  explicit StageClock(std::atomic<uint64_t>* to) : to_(to) {
    if (to_) from_ = std::chrono::steady_clock::now();
  }
  ~StageClock() {
    if (!to_) return;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - from_).count();
    to_->fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
  }
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;

 private:
  std::atomic<uint64_t>* to_;
  std::chrono::steady_clock::time_point from_;
};

std::atomic<uint64_t>* stage(const FeedOptions& options, std::atomic<uint64_t> FeedStats::*which) {
  return options.stats ? &(options.stats->*which) : nullptr;
}

void keepMax(std::atomic<unsigned>& to, unsigned value) {
  unsigned now = to.load(std::memory_order_relaxed);
  while (now < value && !to.compare_exchange_weak(now, value, std::memory_order_relaxed)) {
  }
}

unsigned workerCount(const FeedOptions& options) {
  if (options.threads > 0) return options.threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

// What analysing a block needs besides the block: scanning space for the prefilter, the parse
// of the line before the block, and the block's facts. One per thread: the facts of a block
// (several times its text) are written and then applied by the same thread, so they never
// travel between cores, and their memory is reused block after block in that core's cache.
struct Analyst {
  core::Prefilter::Scratch scratch;
  const core::Prefilter* scratchFor = nullptr;
  core::ParsedLine beforeLine;
  std::vector<core::LineFacts> facts;

  // Computes the block's facts (core::analyzeLines, pure), with the prefilter ready now.
  void analyze(const Block& block, const core::Matcher& matcher, const FeedOptions& options) {
    StageClock clock(stage(options, &FeedStats::analyzeNs));
    const core::Prefilter* prefilter = options.prefilter;
    if (!prefilter && options.lazyPrefilter) prefilter = options.lazyPrefilter->get();
    if (prefilter && prefilter != scratchFor) {
      scratch = prefilter->newScratch();
      scratchFor = prefilter;
    }
    const core::ParsedLine* before = block.previous ? &*block.previous : nullptr;
    if (!before && block.hasBefore) {
      core::parseLineInto(block.before, block.source, block.firstLine - 1, beforeLine);
      core::maskLineSecrets(beforeLine);  // as it was when its own block read it
      if (beforeLine.rank < 0) beforeLine.rank = block.defaultRank;
      if (!beforeLine.message().empty()) before = &beforeLine;
    }
    core::analyzeLines(matcher, block.text, block.source, block.firstLine, block.defaultRank, before, facts, prefilter,
                       &scratch);
  }

  // Hands the facts to the diagnoser (beginning the block's input first, when it begins one).
  void apply(const Block& block, core::Diagnoser& diagnoser, const FeedOptions& options) {
    StageClock clock(stage(options, &FeedStats::applyNs));
    if (options.stats) options.stats->bytes.fetch_add(block.text.size(), std::memory_order_relaxed);
    if (block.begins) diagnoser.beginSource(block.begins->first, block.begins->second);
    diagnoser.addFacts(facts);
  }
};

// The reading side of the pipeline: where the input is, shared by every thread that reads a
// block (one at a time, under the pipeline's read lock).
struct Reader {
  const NextBlock& next;
  uint32_t source;       // the input being read
  int defaultRank;
  uint32_t nextSource;   // the index the diagnoser will give the next input it begins
  size_t begunCount = 0;  // the inputs begun so far
  uint64_t lineNo;
  uint64_t seq = 0;       // the blocks read so far
  std::string lastLine;
  bool hasLast = false, ended = false, ok = true;
  // The line the diagnoser read last, for the first block (a message wrapped across the point
  // where feeding resumes).
  std::optional<core::ParsedLine> resumeAfter;

  Reader(const NextBlock& n, const core::Diagnoser& diagnoser)
      : next(n), source(diagnoser.currentSource()), defaultRank(diagnoser.currentDefaultRank()),
        nextSource(diagnoser.nextSource()), lineNo(diagnoser.nextLineNo()) {
    if (const core::ParsedLine* p = diagnoser.previousLine()) resumeAfter = *p;
  }

  // Reads the next block into `block`; false at the end of the input (or after a cancel).
  bool read(Block& block, const FeedOptions& options) {
    StageClock clock(stage(options, &FeedStats::readNs));
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) ended = true;
    if (ended) return false;
    block.begins.reset();
    if (!next(block.text, block.begins)) ok = false;
    if (block.text.empty() && !block.begins) {
      ended = true;
      return false;
    }
    if (block.begins) {  // a new input: its lines count from 0, with no line before them
      source = nextSource++;
      defaultRank = block.begins->second;
      block.beginsIndex = begunCount++;
      lineNo = 0;
      lastLine.clear();
      hasLast = false;
      resumeAfter.reset();
    }
    block.seq = seq++;
    block.source = source;
    block.defaultRank = defaultRank;
    block.firstLine = lineNo;
    block.before = lastLine;
    block.hasBefore = hasLast;
    block.previous.reset();
    if (!hasLast && resumeAfter) block.previous = std::move(resumeAfter);
    std::string_view t(block.text);
    if (!t.empty()) {
      lineNo += core::text::countByte(t, '\n');
      std::string_view body = t.back() == '\n' ? t.substr(0, t.size() - 1) : t;
      size_t cut = body.rfind('\n');
      lastLine.assign(cut == std::string_view::npos ? body : body.substr(cut + 1));
      hasLast = true;
    }
    return true;
  }
};

// The pipeline. Each worker reads a block (`next`, under the read lock), analyses it and, once
// every block before it has been applied, applies it to the diagnoser itself (one worker at a
// time, in the blocks' order): a block's text and facts stay on the core that read them. This
// thread only waits, calling `begun` and the progress callback in order as blocks are applied
// (under the read lock: they may share state with `next`). Returns false when `next` failed.
bool run(core::Diagnoser& diagnoser, const core::Matcher& matcher, const NextBlock& next, const FeedOptions& options,
         const std::function<void(size_t)>& begun = {}) {
  Reader reader(next, diagnoser);
  std::mutex readMutex;

  // An input that fits in one block is analysed on this thread: starting the workers (their
  // threads, their scanning space, their memory) cost more than analysing a traceback, and was
  // most of what a short log's diagnosis cost. The workers start when a second block is read.
  std::deque<std::unique_ptr<Block>> readFirst;
  for (int i = 0; i < 2; ++i) {
    auto block = std::make_unique<Block>();
    if (!reader.read(*block, options)) break;
    readFirst.push_back(std::move(block));
  }
  if (readFirst.size() < 2) {
    if (options.stats) keepMax(options.stats->threads, 1u);
    if (!readFirst.empty()) {
      Analyst here;
      here.analyze(*readFirst.front(), matcher, options);
      here.apply(*readFirst.front(), diagnoser, options);
      if (readFirst.front()->begins && begun) begun(readFirst.front()->beginsIndex);
      if (options.progress) options.progress(readFirst.front()->text.size());
    }
    return reader.ok;
  }

  // What a worker tells this thread once it applied a block.
  struct Applied {
    std::optional<size_t> begins;  // the index of the input the block began
    uint64_t bytes = 0;
  };
  std::mutex mutex;  // the diagnoser's turn, the events and the count of workers
  std::condition_variable turn;      // a block was applied: the worker of the next one may go on
  std::condition_variable reported;  // for this thread: events to report, or the workers are done
  const bool reporting = begun || options.progress;
  uint64_t appliedSeq = 0;  // the blocks applied so far
  std::deque<Applied> events;
  const unsigned workers = workerCount(options);
  if (options.stats) keepMax(options.stats->threads, workers);
  unsigned running = workers;

  auto work = [&] {
    Analyst analyst;
    std::unique_ptr<Block> block;
    while (true) {
      {
        std::lock_guard<std::mutex> lock(readMutex);
        if (!readFirst.empty()) {
          block = std::move(readFirst.front());
          readFirst.pop_front();
        } else {
          if (!block) block = std::make_unique<Block>();
          if (!reader.read(*block, options)) break;
        }
      }
      analyst.analyze(*block, matcher, options);
      {
        // The diagnoser is handed from worker to worker under the lock, so each one sees what
        // the one before it applied.
        std::unique_lock<std::mutex> lock(mutex);
        turn.wait(lock, [&] { return appliedSeq == block->seq; });
        analyst.apply(*block, diagnoser, options);
        ++appliedSeq;
        if (reporting) {
          Applied event;
          if (block->begins) event.begins = block->beginsIndex;
          event.bytes = block->text.size();
          events.push_back(event);
        }
      }
      // Every block wakes only who may go on: a worker waiting for its turn, and this thread
      // when it has something to report (a wake-up is a system call and a context switch).
      turn.notify_all();
      if (reporting) reported.notify_one();
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      --running;
    }
    reported.notify_one();
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < workers; ++i) pool.emplace_back(work);

  uint64_t applied = 0;  // bytes
  while (true) {
    std::deque<Applied> now;
    bool finished = false;
    {
      std::unique_lock<std::mutex> lock(mutex);
      reported.wait(lock, [&] { return !events.empty() || running == 0; });
      now.swap(events);
      finished = running == 0;
    }
    if (reporting && !now.empty()) {
      std::lock_guard<std::mutex> lock(readMutex);
      for (const Applied& e : now) {
        if (e.begins && begun) begun(*e.begins);
        applied += e.bytes;
        if (options.progress) options.progress(applied);
      }
    }
    if (finished) break;
  }
  for (auto& t : pool) t.join();
  return reader.ok;
}

}  // namespace

LazyPrefilter::LazyPrefilter(const core::Matcher& matcher) : matcher_(matcher) {
  value_ = core::Prefilter::load(matcher, core::lineLiterals(), core::builtinPrefilter());
  ready_.store(value_.get(), std::memory_order_release);
}

void LazyPrefilter::compile() {
  if (value_ || thread_.joinable()) return;
  // Rules of one's own: compiled once, then read from the cache. Read here, before the first
  // block: it takes milliseconds, and a block read before it was ready would be matched with
  // RE2::Set, whose compilation alone (tens of milliseconds, twice that for twice the rules)
  // cost more than the read.
  loadCached();
  if (value_) return;
  thread_ = std::thread([this] {
    value_ = core::makeLinePrefilter(matcher_);
    storeCachedPrefilter(matcher_, core::lineLiterals(), *value_);
    ready_.store(value_.get(), std::memory_order_release);
  });
}

void LazyPrefilter::loadCached() {
  if (value_ || thread_.joinable()) return;
  value_ = loadCachedPrefilter(matcher_, core::lineLiterals());
  ready_.store(value_.get(), std::memory_order_release);
}

void LazyPrefilter::prepareFor(uintmax_t bytes) {
  if (bytes >= kCompilePrefilterFrom) compile();
  else loadCached();
}

LazyPrefilter::~LazyPrefilter() {
  if (thread_.joinable()) thread_.join();
}

bool feedStream(core::Diagnoser& diagnoser, const core::Matcher& matcher, std::istream& in, FeedOptions options) {
  StreamBlocks blocks(in);
  auto next = [&](std::string& text, Begins&) { return blocks.next(text, options.blockBytes); };
  bool ok = run(diagnoser, matcher, next, options);
  return ok && !blocks.failed();
}

void feedText(core::Diagnoser& diagnoser, const core::Matcher& matcher, std::string_view text, FeedOptions options) {
  TextBlocks blocks(text);
  auto next = [&](std::string& block, Begins&) {
    blocks.next(block, options.blockBytes);
    return true;
  };
  run(diagnoser, matcher, next, options);
}

void feedSources(core::Diagnoser& diagnoser, const core::Matcher& matcher, const std::function<bool(FeedSource&)>& nextSource,
                 const std::function<void(size_t)>& begun, FeedOptions options) {
  FeedSource current;
  std::optional<StreamBlocks> stream;
  std::optional<TextBlocks> memory;
  bool open = false;
  auto next = [&](std::string& block, Begins& begins) {
    while (true) {
      if (!open) {
        current = FeedSource{};
        if (!nextSource(current)) {
          block.clear();  // the end of every input
          return true;
        }
        stream.reset();
        memory.reset();
        if (current.stream) stream.emplace(*current.stream);
        else memory.emplace(current.text);
        open = true;
        begins.emplace(current.name, current.rank);
      }
      if (stream) {
        if (!stream->next(block, options.blockBytes) && current.failed) *current.failed = true;
      } else {
        memory->next(block, options.blockBytes);
      }
      if (!block.empty()) return true;
      open = false;  // this input is read to its end
      if (begins) return true;  // an empty input still begins
    }
  };
  run(diagnoser, matcher, next, options, begun);
}

}  // namespace denpex::io
