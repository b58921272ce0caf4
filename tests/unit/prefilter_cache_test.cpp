// The cache of compiled prefilters on disk: used only for exactly the patterns it was made from,
// only from a folder and file of this user's that no one else can write, written whole.
#include "io/prefilter_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/analyze/line_facts.h"
#include "core/rules/rule.h"

namespace denpex::test {
namespace {

namespace fs = std::filesystem;

class PrefilterCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("denpex-cache-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    ::setenv("DENPEX_CACHE_DIR", (dir_ / "cache").c_str(), 1);
    rules_.add({{"mine/lab.yaml", "id: lab\ntitle: Lab\ncategory: test\nsummary: s\nsignals:\n  gone: 'LabMountError: (?P<what>\\S+) went away'\ncondition: gone\n"}});
    matcher_ = std::make_unique<core::Matcher>(rules_);
  }
  void TearDown() override {
    ::unsetenv("DENPEX_CACHE_DIR");
    fs::remove_all(dir_);
  }
  std::vector<fs::path> files() {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_ / "cache", ec)) out.push_back(e.path());
    return out;
  }
  // Which texts the prefilter names pattern 0 for.
  static std::vector<uint32_t> hitsOf(const core::Prefilter& p, const std::vector<std::string_view>& texts) {
    auto scratch = p.newScratch();
    core::Prefilter::Candidates found;
    p.candidates(texts, scratch, found);
    std::vector<uint32_t> out;
    for (const auto& [t, id] : found.hits)
      if (id == 0) out.push_back(t);
    return out;
  }
  fs::path dir_;
  core::RuleSet rules_;
  std::unique_ptr<core::Matcher> matcher_;
};

TEST_F(PrefilterCache, ACompiledPrefilterIsStoredPrivatelyAndLoadsWithTheSameAnswers) {
  auto compiled = core::makeLinePrefilter(*matcher_);
  EXPECT_EQ(io::loadCachedPrefilter(*matcher_, core::lineLiterals()), nullptr) << "nothing cached yet";
  ASSERT_TRUE(io::storeCachedPrefilter(*matcher_, core::lineLiterals(), *compiled));
  auto stored = files();
  ASSERT_EQ(stored.size(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat(stored[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto loaded = io::loadCachedPrefilter(*matcher_, core::lineLiterals());
  ASSERT_NE(loaded, nullptr);
  std::vector<std::string_view> texts{"ok", "LabMountError: /lab went away", "step 3 | loss 0.1"};
  EXPECT_EQ(hitsOf(*loaded, texts), std::vector<uint32_t>{1});
  EXPECT_EQ(hitsOf(*loaded, texts), hitsOf(*compiled, texts));
  // Other rules: not this file.
  core::RuleSet other;
  other.add({{"mine/other.yaml", "id: other\ntitle: O\ncategory: test\nsummary: s\nsignals:\n  x: 'QuotaError'\ncondition: x\n"}});
  core::Matcher otherMatcher(other);
  EXPECT_EQ(io::loadCachedPrefilter(otherMatcher, core::lineLiterals()), nullptr);
}

// A file under the right name holding other patterns (a hash collision, or a planted file) or
// damaged bytes is not used, and nothing breaks.
TEST_F(PrefilterCache, AFileForOtherPatternsOrDamagedIsNotUsed) {
  auto compiled = core::makeLinePrefilter(*matcher_);
  ASSERT_TRUE(io::storeCachedPrefilter(*matcher_, core::lineLiterals(), *compiled));
  fs::path file = files().at(0);
  std::stringstream ss;
  ss << std::ifstream(file, std::ios::binary).rdbuf();
  std::string bytes = ss.str();
  std::string planted = bytes;
  size_t at = planted.find("went away");
  ASSERT_NE(at, std::string::npos);
  planted.replace(at, 4, "WENT");  // same length: only the patterns differ
  std::ofstream(file, std::ios::binary | std::ios::trunc) << planted;
  EXPECT_EQ(io::loadCachedPrefilter(*matcher_, core::lineLiterals()), nullptr);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  EXPECT_EQ(io::loadCachedPrefilter(*matcher_, core::lineLiterals()), nullptr);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_NE(io::loadCachedPrefilter(*matcher_, core::lineLiterals()), nullptr);
}

// A folder or file others can write is not trusted (nor written into); a link is not followed.
TEST_F(PrefilterCache, OnlyPrivateFilesAreReadAndWritten) {
  auto compiled = core::makeLinePrefilter(*matcher_);
  ASSERT_TRUE(io::storeCachedPrefilter(*matcher_, core::lineLiterals(), *compiled));
  fs::path file = files().at(0);
  fs::permissions(file, fs::perms::group_write, fs::perm_options::add);
  EXPECT_EQ(io::loadCachedPrefilter(*matcher_, core::lineLiterals()), nullptr);
  fs::permissions(file, fs::perms::group_write, fs::perm_options::remove);
  EXPECT_NE(io::loadCachedPrefilter(*matcher_, core::lineLiterals()), nullptr);
  fs::permissions(dir_ / "cache", fs::perms::others_write, fs::perm_options::add);
  EXPECT_EQ(io::loadCachedPrefilter(*matcher_, core::lineLiterals()), nullptr);
  EXPECT_FALSE(io::storeCachedPrefilter(*matcher_, core::lineLiterals(), *compiled));
  fs::permissions(dir_ / "cache", fs::perms::others_write, fs::perm_options::remove);
  fs::path real = dir_ / "elsewhere.bin";
  fs::rename(file, real);
  fs::create_symlink(real, file);
  EXPECT_EQ(io::loadCachedPrefilter(*matcher_, core::lineLiterals()), nullptr) << "a link is not followed";
}

TEST_F(PrefilterCache, OffMeansNoCache) {
  ::setenv("DENPEX_CACHE_DIR", "off", 1);
  EXPECT_FALSE(io::prefilterCacheDir());
  auto compiled = core::makeLinePrefilter(*matcher_);
  EXPECT_FALSE(io::storeCachedPrefilter(*matcher_, core::lineLiterals(), *compiled));
  ::unsetenv("DENPEX_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  EXPECT_EQ(io::prefilterCacheDir(), fs::path("/x/cache/denpex"));
  ::unsetenv("XDG_CACHE_HOME");
}

}  // namespace
}  // namespace denpex::test
