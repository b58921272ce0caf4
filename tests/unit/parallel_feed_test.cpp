// The parallel path (blocks of lines analysed on worker threads, with and without the Vectorscan
// prefilter) must give the serial diagnoser's answer byte for byte, on every committed log.
#include "io/parallel_feed.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define DENPEX_TEST_LEAK_CHECK 1
#endif
#endif

#include "core/render/report.h"
#include "core/parse/launcher.h"
#include "core/rules/prefilter.h"
#include "core/rules/rule_bundle.h"
#include "io/log_folder.h"
#include "io/rule_dirs.h"

namespace denpex::test {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every log the repository holds: the corpora of real logs, the rules' examples, the recorded
// distributed runs, the examples.
std::vector<fs::path> allLogs() {
  std::vector<fs::path> out;
  fs::path root = DENPEX_SOURCE_DIR;
  for (const char* dir : {"tests/corpus", "tests/rules", "tests/distributed", "examples"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      if (!e.is_regular_file()) continue;
      std::string ext = e.path().extension().string();
      if (ext == ".log" || ext == ".txt" || ext == ".out") out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The logs a whole-tree sweep reads: all of them, or every Nth where DENPEX_SWEEP_STRIDE=N is set
// (the sanitizer pass sets it: the plain pass has already compared every log, and a sample keeps
// the instrumented run's time within CI's budget while still crossing every code path).
std::vector<fs::path> sweepLogs() {
  std::vector<fs::path> all = allLogs();
  const char* env = std::getenv("DENPEX_SWEEP_STRIDE");
  size_t stride = env ? std::strtoul(env, nullptr, 10) : 1;
  if (stride <= 1) return all;
  std::vector<fs::path> out;
  for (size_t i = 0; i < all.size(); i += stride) out.push_back(all[i]);
  return out;
}

std::string json(const core::Diagnosis& d) {
  std::vector<std::vector<core::FixPlan>> plans(d.findings.size());
  return core::renderJson(core::ReportInput{d, plans});
}

class ParallelFeedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rules_ = new io::LoadedRules(io::loadRules({}));
    prefilter_ = core::makeLinePrefilter(*rules_->matcher).release();
    saved_ = core::makeLinePrefilter(*rules_->matcher, core::builtinPrefilter()).release();
  }
  static void TearDownTestSuite() {
    delete prefilter_;
    delete saved_;
    delete rules_;
  }
  static io::FeedOptions options(unsigned threads, size_t blockBytes, const core::Prefilter* prefilter) {
    io::FeedOptions o;
    o.threads = threads;
    o.blockBytes = blockBytes;
    o.prefilter = prefilter;
    return o;
  }
  // The JSON of `text` fed in parallel from memory, after its first `serialBytes` were fed serially.
  static std::string viaFeed(std::string_view text, const io::FeedOptions& o, size_t serialBytes = 0) {
    core::Diagnoser d(rules_->rules, *rules_->matcher);
    d.beginSource("log");
    d.addText(text.substr(0, serialBytes));
    io::feedText(d, *rules_->matcher, text.substr(serialBytes), o);
    return json(d.finish());
  }
  static std::string viaStream(const std::string& text, const io::FeedOptions& o) {
    std::istringstream in(text);
    core::Diagnoser d(rules_->rules, *rules_->matcher);
    d.beginSource("log");
    EXPECT_TRUE(io::feedStream(d, *rules_->matcher, in, o));
    return json(d.finish());
  }

  static inline io::LoadedRules* rules_ = nullptr;
  static inline core::Prefilter* prefilter_ = nullptr;
  static inline core::Prefilter* saved_ = nullptr;  // the one the build saved
};

// The build saves the shipped rules' prefilter; it loads for them (and for no other rule set).
TEST_F(ParallelFeedTest, TheSavedPrefilterLoadsForTheShippedRulesOnly) {
  EXPECT_NE(core::Prefilter::load(*rules_->matcher, core::lineLiterals(), core::builtinPrefilter()), nullptr);
  EXPECT_EQ(core::Prefilter::load(*rules_->matcher, {}, core::builtinPrefilter()), nullptr);
  core::RuleSet fewer;
  fewer.addParsed(std::vector<core::Rule>{*rules_->rules.rules()[0]});
  core::Matcher other(fewer);
  EXPECT_EQ(core::Prefilter::load(other, core::lineLiterals(), core::builtinPrefilter()), nullptr);
  std::string damaged(core::builtinPrefilter());
  damaged.resize(damaged.size() / 2);
  EXPECT_EQ(core::Prefilter::load(*rules_->matcher, core::lineLiterals(), damaged), nullptr);
}

// Built before main, so destroyed among the last of exit()'s destructors: while it waits, the
// reader thread of the test below meets whatever exit() has destroyed before it.
struct LingerAtExit {
  std::atomic<bool> on{false};
  ~LingerAtExit() {
    if (on.load()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
};
LingerAtExit gLingerAtExit;

// A diagnosis thread may still be reading the statics it shares with others (the prefilter's
// literals, the launcher's phrases) while another thread calls exit(): they are never destroyed.
// A read of a destroyed one is what the sanitizer build reports, and the child's exit code says.
TEST_F(ParallelFeedTest, ThreadsStillReadingSharedStaticsOutliveExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::atomic<int> rounds{0};
        std::thread([&rounds] {
          uint64_t h = core::Prefilter::fingerprint(*rules_->matcher, core::lineLiterals());
          for (;;) {
            for (const auto& l : core::lineLiterals()) h += l.text.size();
            for (std::string_view p : core::LauncherTracker::phrases()) h += p.size();
            if (h != 0) rounds.fetch_add(1, std::memory_order_relaxed);
          }
        }).detach();
        while (rounds.load() < 3) std::this_thread::yield();
#ifdef DENPEX_TEST_LEAK_CHECK
        // The leak check exit() would run stops every thread; if the reader is reporting a read
        // of a destroyed static at that moment, the two wait on each other for ever. Run it now.
        __lsan_do_leak_check();
#endif
        gLingerAtExit.on = true;
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(ParallelFeedTest, PrefilterCompilesEveryShippedPattern) {
  EXPECT_TRUE(prefilter_->ok());
  EXPECT_EQ(prefilter_->residualCount(), 0u);
  EXPECT_EQ(prefilter_->residualLiterals(), 0u);
}

// What Vectorscan scans for: each top-level alternative from its longest literal run on.
TEST(PrefilterExpression, DropsWhatComesBeforeTheLongestLiteralRun) {
  EXPECT_EQ(core::prefilterExpression(R"(: \d+ Killed\s)"), R"( Killed\s)");
  EXPECT_EQ(core::prefilterExpression(R"((^|[\]\s])Killed\s*$|: \d+ Killed\s|exitcode\s*:\s*-9\b)"),
            R"(Killed\s*$| Killed\s|exitcode\s*:\s*-9\b)");
  // Flags at the start stay in front of every alternative.
  EXPECT_EQ(core::prefilterExpression(R"((?i)(?:^|[\s,])['"]?loss(?:es)?\s*[:=]\s*(?P<v>\d{8,}))"),
            R"((?i)loss(?:es)?\s*[:=]\s*(?P<v>\d{8,}))");
  // A run that is only a word most log lines carry gives way to any other of three or more, but
  // is taken when there is none.
  EXPECT_EQ(core::prefilterExpression(R"(^rank\s+\d+ = (?:nan|inf)\s*$)"), R"( = (?:nan|inf)\s*$)");
  EXPECT_EQ(core::prefilterExpression(R"(\[ INFO \]: \S+ failed)"), R"( failed)");
  EXPECT_EQ(core::prefilterExpression(R"(\d+ Loss: \d+)"), R"( Loss: \d+)");
  EXPECT_EQ(core::prefilterExpression(R"(\d loss \d ab)"), R"( ab)");
  EXPECT_EQ(core::prefilterExpression(R"(\d loss \d a)"), R"( loss \d a)");
  // A run that is already first, or shorter than three characters, leaves the alternative whole.
  EXPECT_EQ(core::prefilterExpression("Traceback \\(most"), "Traceback \\(most");
  EXPECT_EQ(core::prefilterExpression(R"(\d+ab)"), R"(\d+ab)");
  // A quantified character ends a run: "ab?c" needs "a" and "c" only.
  EXPECT_EQ(core::prefilterExpression(R"(\d+ ab?cdef)"), R"(cdef)");
  EXPECT_EQ(core::prefilterExpression(R"(x{2}yz\.pyq)"), R"(yz\.pyq)");
  // Escaped punctuation is literal; a '{' that is no repetition is a literal too.
  EXPECT_EQ(core::prefilterExpression(R"([0-9]+\(SIGKILL\))"), R"(\(SIGKILL\))");
  EXPECT_EQ(core::prefilterExpression(R"(\s{abcd)"), R"({abcd)");
  // Groups and classes are single items, with '|' and ')' inside them.
  EXPECT_EQ(core::prefilterExpression(R"((a|b)[|)]word)"), R"(word)");
}

TEST(PrefilterExpression, LeavesWhatItCannotReadWhole) {
  for (std::string_view p : {R"(ab(?i)cdef)", R"(\Qa.b\E literal)", R"(x(abc)", R"(abc))", R"([abc)", R"(\1abcd)",
                             R"(*abcd)", R"(ab|*cd)"})
    EXPECT_EQ(core::prefilterExpression(p), std::string(p)) << p;
}

// Each shipped pattern's shortened form matches wherever the pattern does, on every line of
// every committed log: a superset, so the prefilter never drops a line RE2 would match.
TEST_F(ParallelFeedTest, ShortenedPatternsMatchWhereverThePatternsDo) {
  const core::Matcher& m = *rules_->matcher;
  RE2::Set originals(core::Matcher::patternOptions(), RE2::UNANCHORED);
  std::vector<std::unique_ptr<RE2>> shortened;
  size_t changed = 0;
  for (size_t i = 0; i < m.patternCount(); ++i) {
    ASSERT_EQ(originals.Add(m.patternText(i), nullptr), static_cast<int>(i));
    std::string s = core::prefilterExpression(m.patternText(i));
    changed += s != m.patternText(i);
    shortened.push_back(std::make_unique<RE2>(s, core::Matcher::patternOptions()));
    ASSERT_TRUE(shortened.back()->ok()) << s;
  }
  ASSERT_TRUE(originals.Compile());
  EXPECT_GT(changed, 20u);
  size_t checked = 0;
  std::vector<int> hits;
  for (const auto& path : sweepLogs()) {
    std::istringstream in(readFile(path));
    for (std::string line; std::getline(in, line);) {
      hits.clear();
      if (!originals.Match(line, &hits)) continue;
      for (int i : hits) {
        ++checked;
        EXPECT_TRUE(RE2::PartialMatch(line, *shortened[static_cast<size_t>(i)]))
            << path << ": " << m.patternText(static_cast<size_t>(i)) << " on " << line;
      }
    }
  }
  EXPECT_GT(checked, 1000u);
}

// Texts outside ASCII are scanned as their ASCII image: on every such line of every committed
// log, and on made-up ones (curly quotes a pattern names, emoji, box drawing, invalid bytes, the
// characters RE2's case folding joins to ASCII), each pattern RE2 matches is a candidate.
TEST_F(ParallelFeedTest, CandidatesOfTextsOutsideAsciiIncludeEveryPatternThatMatches) {
  const core::Matcher& m = *rules_->matcher;
  RE2::Set all(core::Matcher::patternOptions(), RE2::UNANCHORED);
  for (size_t i = 0; i < m.patternCount(); ++i) ASSERT_EQ(all.Add(m.patternText(i), nullptr), static_cast<int>(i));
  ASSERT_TRUE(all.Compile());
  std::vector<std::string> lines = {
      "OSError: Can't load tokenizer for \xe2\x80\x98" "bert-base-uncased\xe2\x80\x99. If you were trying to load it",
      "[rank: 1] Child process with PID 192280 terminated with code -9. Forcefully terminating all other processes \xf0\x9f\xa7\x9f",
      "\xe2\x94\x82 RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB \xe2\x94\x82",
      "\xff\xfe RuntimeError: CUDA error: an illegal memory access was encountered \xc3",
      "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! \xe2\x80\xa6",
      "\xe2\x84\xaa RuntimeError: CUDA out of memory \xc5\xbf",
      "ValueError: Invalid rank 3, rank should be in the interval [0, 1] \xe2\x9c\x93",
  };
  for (const auto& path : sweepLogs()) {
    std::istringstream in(readFile(path));
    for (std::string line; std::getline(in, line);)
      if (std::any_of(line.begin(), line.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
        lines.push_back(line);
  }
  auto scratch = prefilter_->newScratch();
  core::Prefilter::Candidates found;
  size_t checked = 0;
  std::vector<int> hits;
  for (const auto& line : lines) {
    hits.clear();
    if (!all.Match(line, &hits)) continue;
    prefilter_->candidates({line}, scratch, found);
    for (int i : hits) {
      ++checked;
      bool listed = found.all[0] ||
                    std::binary_search(found.hits.begin(), found.hits.end(), std::make_pair(uint32_t{0}, i)) ||
                    std::binary_search(prefilter_->residual().begin(), prefilter_->residual().end(), i);
      EXPECT_TRUE(listed) << m.patternText(static_cast<size_t>(i)) << " on " << line;
    }
  }
  EXPECT_GT(checked, 20u);
  // Only the two folding characters send a text to every pattern.
  prefilter_->candidates({lines[2], lines[5]}, scratch, found);
  EXPECT_EQ(found.all, (std::vector<uint8_t>{0, 1}));
}

// Patterns that need the characters themselves: a pattern naming only characters outside ASCII,
// counted characters, negated classes and \W, (?i) letters whose case folding takes in KELVIN
// SIGN and LONG S, classes with such members (positive and negated), and an escape naming one.
// Each must stay a candidate on the texts RE2 matches it in.
TEST(Prefilter, TextsOutsideAsciiKeepEveryPatternThatMatchesAsCandidate) {
  core::RuleSet set;
  // The curly quotes as UTF-8 bytes in the pattern, as a rule file holds them.
  auto errors = set.add({{"w.yaml", R"(id: w
title: W
category: t
summary: s
signals:
  quoted: ')" "\xe2\x80\x9c" R"((?P<name>\w+))" "\xe2\x80\x9d" R"('
  counted: 'Error: .{3} at'
  negated: 'x[^a-z]y'
  nonword: '\Wdone'
  folded: '(?i)kill'
  folded_s: '(?i)loss'
  wide_negated: 'quote [^)" "\xe2\x80\x98\xe2\x80\x99" R"("]+ end'
  wide_class: 'said [)" "\xe2\x80\x98\xe2\x80\x99" R"("]hi'
  escaped: '\x{2192} next'
condition: quoted or counted or negated or nonword or folded or folded_s or wide_negated or wide_class or escaped
)"}});
  ASSERT_TRUE(errors.empty());
  core::Matcher m(set);
  core::Prefilter p(m);
  ASSERT_TRUE(p.ok());
  const std::vector<std::pair<std::string, int>> cases = {
      {"name \xe2\x80\x9c" "foo\xe2\x80\x9d here", 0},
      {"Error: \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 at line 3", 1},
      {"x\xe2\x82\xacy", 2},
      {"\xe2\x80\x94" "done", 3},
      {"\xe2\x84\xaaill -9", 4},
      {"lo\xc5\xbfs nan", 5},
      {"quote \xc3\xa9 end", 6},
      {"said \xe2\x80\x98" "hi", 7},
      {"a \xe2\x86\x92 next", 8},
  };
  auto scratch = p.newScratch();
  core::Prefilter::Candidates found;
  for (const auto& [text, pattern] : cases) {
    ASSERT_TRUE(RE2::PartialMatch(text, RE2(m.patternText(static_cast<size_t>(pattern)), core::Matcher::patternOptions())))
        << "RE2 itself: " << pattern;
    p.candidates({text}, scratch, found);
    bool listed = found.all[0] ||
                  std::binary_search(found.hits.begin(), found.hits.end(), std::make_pair(uint32_t{0}, pattern)) ||
                  std::binary_search(p.residual().begin(), p.residual().end(), pattern);
    EXPECT_TRUE(listed) << "pattern " << pattern << " on " << text;
  }
  // A counted pattern is not a candidate where the characters are too few or too many.
  p.candidates({"Error: \xc3\xa9\xe2\x82\xac at"}, scratch, found);
  EXPECT_FALSE(std::binary_search(found.hits.begin(), found.hits.end(), std::make_pair(uint32_t{0}, 1)));
  EXPECT_EQ(found.all[0], 0);
}

TEST_F(ParallelFeedTest, SameJsonAsTheSerialDiagnoserOnEveryCommittedLog) {
  ASSERT_GT(allLogs().size(), 400u);
  for (const auto& path : sweepLogs()) {
    std::string text = readFile(path);
    std::string serial = json(core::diagnoseText(rules_->rules, *rules_->matcher, text, "log"));
    // Tiny blocks (a block per line or two, so every wrapped pair crosses a block boundary),
    // and ordinary ones; two threads; with and without the prefilter; from memory and from a stream.
    for (size_t blockBytes : {size_t{1}, size_t{200}, size_t{1} << 20}) {
      for (const core::Prefilter* prefilter : {static_cast<const core::Prefilter*>(nullptr), static_cast<const core::Prefilter*>(prefilter_),
                                               static_cast<const core::Prefilter*>(saved_)}) {
        auto o = options(2, blockBytes, prefilter);
        ASSERT_EQ(viaFeed(text, o), serial) << path << " (text, block " << blockBytes << ", prefilter " << !!prefilter << ")";
        ASSERT_EQ(viaStream(text, o), serial) << path << " (stream, block " << blockBytes << ", prefilter " << !!prefilter << ")";
      }
    }
    // Resuming: the first half fed serially (as the language server feeds a log that grows),
    // the rest in blocks; a message wrapped across the point where feeding resumes is kept.
    size_t half = text.rfind('\n', text.size() / 2);
    if (half != std::string::npos) {
      ASSERT_EQ(viaFeed(text, options(2, 300, prefilter_), half + 1), serial) << path << " (resumed at byte " << half + 1 << ")";
    }
  }
}

// Threads of this process now (the entries of /proc/self/task).
size_t threadCount() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// A log that fits in one block (a pasted traceback, a selection) is read on the calling thread:
// starting the workers cost more than the reading. A longer one is read by the workers: the
// reader that finds the end of the input is a worker, and no worker outlives the feed.
TEST_F(ParallelFeedTest, AnInputOfOneBlockStartsNoThread) {
  const std::string text =
      "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
  const std::string serial = json(core::diagnoseText(rules_->rules, *rules_->matcher, text, "log"));
  for (size_t blockBytes : {size_t{128} << 10, size_t{40}}) {
    const size_t before = threadCount();
    const std::thread::id caller = std::this_thread::get_id();
    size_t atEnd = 0;
    bool endOnCaller = false;
    bool given = false;
    auto next = [&](io::FeedSource& source) {
      if (given) {  // asked for the input after the only one: the end
        atEnd = threadCount();
        endOnCaller = std::this_thread::get_id() == caller;
        return false;
      }
      given = true;
      source.name = "log";
      source.text = text;
      return true;
    };
    core::Diagnoser d(rules_->rules, *rules_->matcher);
    io::feedSources(d, *rules_->matcher, next, {}, options(2, blockBytes, saved_));
    EXPECT_EQ(json(d.finish()), serial);
    if (blockBytes > text.size()) {
      EXPECT_EQ(atEnd, before);
      EXPECT_TRUE(endOnCaller);
    } else {
      // The workers run while the blocks are read; the second may not have started yet when
      // the first reaches the end of so short an input (the caller starts them one by one, and
      // on a busy machine it can be put aside between the two).
      EXPECT_GE(atEnd, before + 1) << "a worker reads the blocks";
      EXPECT_LE(atEnd, before + 2) << "no more than the two workers asked for";
      EXPECT_FALSE(endOnCaller);
    }
    EXPECT_EQ(threadCount(), before) << "every worker is joined when the feed returns";
  }
}

// A folder of per-rank logs read on every core (FolderFeed with a matcher) gives the answer of the
// same folder read line by line: the recorded torchrun --log_dir runs, and a folder of files whose
// last lines have no '\n' and whose traceback starts in one file and must not run on in the next.
TEST_F(ParallelFeedTest, FoldersReadInParallelAnswerAsLineByLine) {
  fs::path odd = fs::temp_directory_path() / ("denpex-folder-feed-" + std::to_string(::getpid()));
  fs::create_directories(odd);
  std::ofstream(odd / "rank0.log", std::ios::binary) << "step 1 | loss 0.7 | grad_norm 0.2\nTraceback (most recent call last):\n  File \"train.py\", line 3";
  std::ofstream(odd / "rank1.log", std::ios::binary) << "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB";
  std::ofstream(odd / "rank2.log", std::ios::binary) << "";
  std::vector<fs::path> folders{odd};
  for (const char* run : {"hang-logdir", "raise-logdir", "seed-logdir"})
    folders.push_back(fs::path(DENPEX_SOURCE_DIR) / "tests/distributed" / run / "logs");
  for (const auto& folder : folders) {
    auto diagnose = [&](const io::FolderFeed& feed, bool keepTexts) {
      core::Diagnoser d(rules_->rules, *rules_->matcher);
      std::string error;
      std::vector<std::string> texts;
      auto fed = io::feedFolder(folder, d, error, keepTexts ? &texts : nullptr, nullptr, UINTMAX_MAX, feed);
      EXPECT_FALSE(fed.empty()) << folder << ": " << error;
      return json(d.finish());
    };
    std::string serial = diagnose({}, false);
    for (bool keepTexts : {false, true})
      for (size_t blockBytes : {size_t{1}, size_t{1} << 20}) {
        io::FolderFeed feed;
        feed.matcher = rules_->matcher.get();
        feed.options = options(2, blockBytes, saved_);
        EXPECT_EQ(diagnose(feed, keepTexts), serial) << folder << " (texts " << keepTexts << ", block " << blockBytes << ")";
      }
  }
  fs::remove_all(odd);
}

// Line ends and odd bytes: CRLF, no final newline, empty lines, a lone '\r', bytes outside
// ASCII (scanned as their ASCII image), a NUL.
// A world size the launcher or rank 0 states is read on every path: serially, and in blocks
// with either prefilter (which picks the lines that may state it): a rank past it is no rank of
// the run, and its lines are counted apart.
TEST_F(ParallelFeedTest, AStatedWorldSizeIsReadWithOrWithoutThePrefilter) {
  const std::string statements[] = {
      "WORLD_SIZE=2",
      "[rank0]:world_size: 2",
      "[rank0]:2026-11-30 08:00:05,101 - INFO - world size 2, backend nccl",
      "{'world_size': 2, 'backend': 'nccl'}",
  };
  for (const auto& statement : statements) {
    std::string text = statement + "\n[rank1]:step 1 | loss 0.5\n[rank3]:step 1 | loss 0.5\n";
    std::string serial = json(core::diagnoseText(rules_->rules, *rules_->matcher, text, "log"));
    EXPECT_EQ(nlohmann::json::parse(serial).value("lines_outside_ranks", 0), 1) << statement << "\n" << serial;
    for (const core::Prefilter* prefilter : {static_cast<const core::Prefilter*>(prefilter_), static_cast<const core::Prefilter*>(saved_)}) {
      EXPECT_EQ(viaFeed(text, options(2, 1, prefilter)), serial) << statement;
      EXPECT_EQ(viaFeed(text, options(1, 1 << 20, prefilter)), serial) << statement;
    }
  }
}

TEST_F(ParallelFeedTest, SameAnswerOnOddText) {
  const std::string texts[] = {
      "",
      "\n\n\n",
      "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\r\n\r\nnext\r\n",
      "no newline at the end: torch.OutOfMemoryError: CUDA out of memory",
      "[rank0]:loss nan\n[rank1]:\xe2\x96\x88\xe2\x96\x88 RuntimeError: CUDA error: an illegal memory access was encountered\n",
      std::string("a\0b\nNCCL error: unhandled system error\n", 39),
      "OSError: Can't load tokenizer for \xe2\x80\x98" "bert-base-uncased\xe2\x80\x99.\n\xff RuntimeError: CUDA out of memory \xe2\x84\xaa\n",
      "line one that is long enough to be wrapped by a terminal: RuntimeError: CUDA out of\nmemory. Tried to allocate 20.00 MiB\n",
  };
  for (const auto& text : texts) {
    std::string serial = json(core::diagnoseText(rules_->rules, *rules_->matcher, text, "log"));
    for (size_t blockBytes : {size_t{1}, size_t{7}, size_t{1} << 20}) {
      EXPECT_EQ(viaFeed(text, options(3, blockBytes, prefilter_)), serial) << "block " << blockBytes << ": " << text;
    }
    // Every resume point.
    for (size_t cut = text.find('\n'); cut != std::string::npos; cut = text.find('\n', cut + 1)) {
      EXPECT_EQ(viaFeed(text, options(2, 128 * 1024, prefilter_), cut + 1), serial) << "resumed at " << cut + 1 << ": " << text;
    }
  }
}

}  // namespace
}  // namespace denpex::test
