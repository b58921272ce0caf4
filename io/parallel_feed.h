// Feeding a diagnoser from a stream on several cores. The text is cut into blocks of whole lines;
// worker threads compute each block's line facts (core::analyzeLines, pure), and each hands its
// block to the diagnoser itself once the blocks before it are in, strictly in order, so the
// diagnosis is the same as Diagnoser::addText's, byte for byte, whatever the number of threads. At most a few blocks are
// in memory at once: memory does not grow with the input.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <thread>
#include <string_view>

#include "core/analyze/diagnoser.h"
#include "core/rules/prefilter.h"

namespace denpex::io {

// The prefilter for a rule set, got the cheapest way there is: the one the build saved, when the
// rules are the shipped ones (it loads in milliseconds); otherwise the one cached on disk for
// these rules (read before the first block, also in milliseconds); otherwise, if asked, one
// compiled on a thread of its own (a few hundred milliseconds of a core), blocks read meanwhile
// being matched with RE2::Set: the same answers, only slower. `matcher` must outlive it.
// The input size from which compiling a prefilter for rules of one's own pays: scanning with it
// saves the compile time every few tens of megabytes.
constexpr uintmax_t kCompilePrefilterFrom = uintmax_t{16} << 20;

class LazyPrefilter {
 public:
  explicit LazyPrefilter(const core::Matcher& matcher);
  ~LazyPrefilter();  // waits for a compilation under way
  LazyPrefilter(const LazyPrefilter&) = delete;
  LazyPrefilter& operator=(const LazyPrefilter&) = delete;
  // Reads the prefilter cached on disk for these rules (prefilter_cache.h) when nothing was
  // saved for them in the build; when none is cached either, starts compiling one on a thread,
  // which writes it to the cache. Once.
  void compile();
  // Takes the one cached on disk for these rules, if there is one (milliseconds; never compiles).
  void loadCached();
  // For an input of `bytes`: compiles from kCompilePrefilterFrom on, where compiling (a few
  // hundred milliseconds of a core) pays for itself; below, takes a cached one if there is one.
  void prepareFor(uintmax_t bytes);
  // Null until there is one.
  const core::Prefilter* get() const { return ready_.load(std::memory_order_acquire); }

 private:
  const core::Matcher& matcher_;
  std::unique_ptr<core::Prefilter> value_;
  std::atomic<const core::Prefilter*> ready_{nullptr};
  std::thread thread_;
};

// Where a feed's time went, for `denpex diagnose --stats`: added to by every feed given it. The
// reading and the applying run one block at a time (each under its own lock, so the two may
// overlap); the analysing runs on every worker at once. Their sum is the feed's CPU time, near
// enough; the larger of the two one-at-a-time stages is what no number of cores takes away.
struct FeedStats {
  std::atomic<uint64_t> readNs{0};     // reading blocks of lines from the input
  std::atomic<uint64_t> analyzeNs{0};  // computing their facts, all workers together
  std::atomic<uint64_t> applyNs{0};    // handing the facts to the diagnoser, in order
  std::atomic<uint64_t> bytes{0};      // bytes of lines read
  std::atomic<unsigned> threads{0};    // the most workers one feed ran
};

struct FeedOptions {
  unsigned threads = 0;           // worker threads; 0: one per core
  size_t blockBytes = 128u << 10;  // a block ends at the first '\n' after this many bytes
  // Picks each block's candidate patterns in one Vectorscan pass; null: RE2::Set per line.
  const core::Prefilter* prefilter = nullptr;
  // Or one that may still be compiling: used from the first block read after it is ready.
  const LazyPrefilter* lazyPrefilter = nullptr;
  // When set (by any thread), no further block is read: what was read is applied and feeding
  // returns early. The caller tells a cancelled diagnosis by the flag.
  const std::atomic<bool>* cancel = nullptr;
  // Called on the feeding thread after each block is applied, with the bytes applied so far
  // (in order). A worker applied the block and may be applying the next ones meanwhile: the
  // callback must not touch the diagnoser.
  std::function<void(uint64_t bytes)> progress;
  // When set, the time of each stage is added to it (a clock read per block, nothing per line).
  FeedStats* stats = nullptr;
};

// Reads `in` to its end into `diagnoser`, which must be at a line start (after beginSource, or
// after text that ended with '\n': hasPartialLine() false). Returns false on a read error.
bool feedStream(core::Diagnoser& diagnoser, const core::Matcher& matcher, std::istream& in, FeedOptions options = {});
// The same for text already in memory. A last line without '\n' is read as a line.
void feedText(core::Diagnoser& diagnoser, const core::Matcher& matcher, std::string_view text, FeedOptions options = {});

// One input of feedSources: the name and default rank Diagnoser::beginSource takes, and its
// text, read from `stream` to its end or, without one, `text`. Either must stay valid until
// the next input is asked for. A failed read of the stream sets `*failed` (when given).
struct FeedSource {
  std::string name;
  int rank = -1;
  std::istream* stream = nullptr;
  std::string_view text;
  bool* failed = nullptr;
};
// Many inputs, one after the other, through one pipeline: the same diagnosis as beginSource and
// the input's text for each, but a small input costs no start of threads of its own (a folder
// of a big job holds thousands). `next` gives the next input, or returns false when there is
// none. `begun(i)` is called on this thread once input i (0-based) has begun to be applied (it
// must not touch the diagnoser, as for progress); a cancel in `options` stops the reading,
// between inputs or inside one.
void feedSources(core::Diagnoser& diagnoser, const core::Matcher& matcher, const std::function<bool(FeedSource&)>& next,
                 const std::function<void(size_t)>& begun = {}, FeedOptions options = {});

}  // namespace denpex::io
