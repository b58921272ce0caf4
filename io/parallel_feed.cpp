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
  bool applied = false;
};

// Reads the next block of whole lines; an empty text means the input ended. A reader of several
// inputs sets `begins` (a name and a default rank) on the first block of each.
using NextBlock = std::function<bool(std::string& text, Begins& begins)>;

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
  void apply(const Block& block, core::Diagnoser& diagnoser) {
    if (block.begins) diagnoser.beginSource(block.begins->first, block.begins->second);
    diagnoser.addFacts(facts);
  }
};

// The pipeline: `next` fills blocks on this thread; each worker analyses a block and then, when
// every block before it has been applied, applies it to the diagnoser itself (one worker at a
// time, in the blocks' order). This thread reads ahead, and calls `begun` and the progress
// callback in order as blocks are applied. Returns false when `next` failed.
bool run(core::Diagnoser& diagnoser, const core::Matcher& matcher, const NextBlock& next, const FeedOptions& options,
         const std::function<void(size_t)>& begun = {}) {
  // The input being read (the reading side runs ahead of the diagnoser: it counts the inputs
  // it began, whose indices the diagnoser will give them).
  uint32_t source = diagnoser.currentSource();
  int defaultRank = diagnoser.currentDefaultRank();
  uint32_t nextSource = diagnoser.nextSource();
  size_t begunCount = 0;
  const unsigned workers = workerCount(options);
  const size_t window = 2 * static_cast<size_t>(workers) + 2;  // blocks read ahead at most

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::shared_ptr<Block>> queue;  // read, not yet taken by a worker
  uint64_t appliedSeq = 0;                   // the blocks applied so far
  bool done = false;

  // An input that fits in one block is analysed on this thread: starting the workers (their
  // threads, their scanning space, their memory) cost more than analysing a traceback, and was
  // most of what a short log's diagnosis cost. The pool starts when a second block is read.
  std::vector<std::thread> pool;
  std::shared_ptr<Block> held;  // the first block, while no second one has been read
  auto startPool = [&] {
    for (unsigned i = 0; i < workers; ++i) {
      pool.emplace_back([&] {
        Analyst analyst;
        while (true) {
          std::shared_ptr<Block> block;
          {
            std::unique_lock<std::mutex> lock(mutex);
            changed.wait(lock, [&] { return done || !queue.empty(); });
            if (queue.empty()) return;
            block = queue.front();
            queue.pop_front();
          }
          analyst.analyze(*block, matcher, options);
          {
            // The diagnoser is handed from worker to worker under the lock, so each one sees
            // what the one before it applied.
            std::unique_lock<std::mutex> lock(mutex);
            changed.wait(lock, [&] { return appliedSeq == block->seq; });
            analyst.apply(*block, diagnoser);
            ++appliedSeq;
            block->applied = true;
          }
          changed.notify_all();
        }
      });
    }
  };
  auto enqueue = [&](std::shared_ptr<Block> block) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      queue.push_back(std::move(block));
    }
    changed.notify_all();
  };

  std::deque<std::shared_ptr<Block>> inOrder;  // read, not yet applied
  // Applied blocks, kept for their memory: their texts are reused by the next blocks.
  std::vector<std::shared_ptr<Block>> spare;
  uint64_t lineNo = diagnoser.nextLineNo();
  uint64_t seq = 0;
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
        block->applied = false;
      }
      block->begins.reset();
      if (!next(block->text, block->begins)) ok = false;
      if (block->text.empty() && !block->begins) {
        ended = true;
        break;
      }
      if (block->begins) {  // a new input: its lines count from 0, with no line before them
        source = nextSource++;
        defaultRank = block->begins->second;
        block->beginsIndex = begunCount++;
        lineNo = 0;
        lastLine.clear();
        hasLast = false;
        resumeAfter.reset();
      }
      block->seq = seq++;
      block->source = source;
      block->defaultRank = defaultRank;
      block->firstLine = lineNo;
      block->before = lastLine;
      block->hasBefore = hasLast;
      block->previous.reset();
      if (!hasLast && resumeAfter) block->previous = std::move(resumeAfter);
      std::string_view t(block->text);
      if (!t.empty()) {
        lineNo += countLines(t);
        std::string_view body = t.back() == '\n' ? t.substr(0, t.size() - 1) : t;
        size_t cut = body.rfind('\n');
        lastLine.assign(cut == std::string_view::npos ? body : body.substr(cut + 1));
        hasLast = true;
      }
      inOrder.push_back(block);
      if (pool.empty() && !held) {
        held = std::move(block);
        continue;
      }
      if (pool.empty()) {
        startPool();
        enqueue(std::move(held));
      }
      enqueue(std::move(block));
    }
    if (inOrder.empty()) break;
    if (held) {  // the whole input was one block
      Analyst here;
      here.analyze(*held, matcher, options);
      here.apply(*held, diagnoser);
      appliedSeq = held->seq + 1;
      held->applied = true;
      held.reset();
    }
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return inOrder.front()->applied; });
    }
    if (inOrder.front()->begins && begun) begun(inOrder.front()->beginsIndex);
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

void LazyPrefilter::prepareFor(uintmax_t bytes) {
  if (bytes >= kCompilePrefilterFrom) compile();
  else loadCached();
}

LazyPrefilter::~LazyPrefilter() {
  if (thread_.joinable()) thread_.join();
}

namespace {

// Blocks of whole lines read from a stream: a line cut by a read is carried to the next block,
// and a line past kMaxLineBytes keeps its first kMaxLineBytes only.
class StreamBlocks {
 public:
  explicit StreamBlocks(std::istream& in) : in_(in) {}
  // The next block into `text` (empty at the end); false once a read failed.
  bool next(std::string& text, size_t blockBytes) {
    text.assign(carry_);  // keeps the capacity of a reused block
    carry_.clear();
    size_t want = std::max<size_t>(blockBytes, 1);
    size_t lineStart = 0;  // where the line that is not finished yet starts in `text`
    while (in_) {
      size_t at = text.size();
      text.resize(at + want);
      in_.read(text.data() + at, static_cast<std::streamsize>(want));
      text.resize(at + static_cast<size_t>(in_.gcount()));
      if (skipping_) {
        size_t nl = text.find('\n', at);
        if (nl == std::string::npos) {
          text.resize(at);
          continue;
        }
        text.erase(at, nl - at);  // the line keeps its first kMaxLineBytes and its '\n'
        skipping_ = false;
      }
      size_t nl = text.rfind('\n');
      if (nl != std::string::npos && nl >= at) {  // the block ends after its last whole line
        carry_.assign(text, nl + 1);
        text.resize(nl + 1);
        if (carry_.size() > core::kMaxLineBytes) {
          carry_.resize(core::kMaxLineBytes);
          skipping_ = true;
        }
        break;
      }
      if (nl != std::string::npos) lineStart = nl + 1;
      if (text.size() - lineStart > core::kMaxLineBytes) {
        // A line with no end in sight: keep its start, drop the rest up to its '\n'.
        text.resize(lineStart + core::kMaxLineBytes);
        skipping_ = true;
      }
    }
    if (in_.bad()) failed_ = true;
    return !failed_;
  }
  bool failed() const { return failed_; }

 private:
  std::istream& in_;
  std::string carry_;      // the start of a line the last read cut
  bool skipping_ = false;  // in a line past kMaxLineBytes: its bytes are dropped up to its '\n'
  bool failed_ = false;
};

// Blocks of whole lines copied from text in memory; a line past kMaxLineBytes keeps its first
// kMaxLineBytes only.
class TextBlocks {
 public:
  explicit TextBlocks(std::string_view text) : text_(text) {}
  void next(std::string& block, size_t blockBytes) {
    block.clear();
    if (at_ >= text_.size()) return;
    size_t want = std::max<size_t>(blockBytes, 1);
    size_t end = std::min(text_.size(), at_ + want);
    size_t nl = text_.find('\n', end - 1);
    end = nl == std::string_view::npos ? text_.size() : nl + 1;
    if (end - at_ <= core::kMaxLineBytes) {  // no line in it can be too long: one copy
      block.assign(text_.substr(at_, end - at_));
      at_ = end;
      return;
    }
    // Whole lines up to the block size; a line past kMaxLineBytes is copied only that far.
    while (at_ < text_.size() && block.size() < want) {
      size_t nl = text_.find('\n', at_);
      size_t end = nl == std::string_view::npos ? text_.size() : nl;
      block.append(text_.substr(at_, std::min(end - at_, core::kMaxLineBytes)));
      if (nl != std::string_view::npos) block.push_back('\n');
      at_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    }
  }

 private:
  std::string_view text_;
  size_t at_ = 0;
};

}  // namespace

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
