// The parallel path (blocks of lines analysed on worker threads, with and without the Vectorscan
// prefilter) must give the serial diagnoser's answer byte for byte, on every committed log.
#include "io/parallel_feed.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/render/report.h"
#include "core/parse/launcher.h"
#include "core/rules/prefilter.h"
#include "core/rules/rule_bundle.h"
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

TEST_F(ParallelFeedTest, PrefilterCompilesEveryShippedPattern) {
  EXPECT_TRUE(prefilter_->ok());
  EXPECT_EQ(prefilter_->residualCount(), 0u);
  EXPECT_EQ(prefilter_->residualLiterals(), 0u);
}

TEST_F(ParallelFeedTest, SameJsonAsTheSerialDiagnoserOnEveryCommittedLog) {
  auto logs = allLogs();
  ASSERT_GT(logs.size(), 400u);
  for (const auto& path : logs) {
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

// Line ends and odd bytes: CRLF, no final newline, empty lines, a lone '\r', bytes outside
// ASCII (which the prefilter leaves to RE2), a NUL.
TEST_F(ParallelFeedTest, SameAnswerOnOddText) {
  const std::string texts[] = {
      "",
      "\n\n\n",
      "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\r\n\r\nnext\r\n",
      "no newline at the end: torch.OutOfMemoryError: CUDA out of memory",
      "[rank0]:loss nan\n[rank1]:\xe2\x96\x88\xe2\x96\x88 RuntimeError: CUDA error: an illegal memory access was encountered\n",
      std::string("a\0b\nNCCL error: unhandled system error\n", 39),
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
