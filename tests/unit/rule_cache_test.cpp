// The cache of parsed rule folders: a folder read the second time comes from the cache, with the
// same rules and errors; a changed file, another build or a damaged cache file means a new parse.
#include "io/rule_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/rules/rule_bundle.h"
#include "io/cache_files.h"
#include "io/rule_dirs.h"

namespace denpex::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRule =
    "id: lab\ntitle: Lab mount\ncategory: test\nsummary: s\nsignals:\n  gone: 'LabMountError: (?P<what>\\S+) went away'\ncondition: gone\n";

class RuleCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("denpex-rule-cache-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "rules");
    ::setenv("DENPEX_CACHE_DIR", (dir_ / "cache").c_str(), 1);
    write("rules/lab.yaml", kRule);
    write("rules/broken.yaml", "id: [\n");
  }
  void TearDown() override {
    ::unsetenv("DENPEX_CACHE_DIR");
    fs::remove_all(dir_);
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name, std::ios::binary) << text; }
  io::LoadedRules load() {
    io::RuleLoadOptions options;
    options.builtin = false;
    options.extraDirs = {(dir_ / "rules").string()};
    return io::loadRules(options);
  }
  std::vector<fs::path> cached() {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_ / "cache", ec))
      if (e.path().filename().string().rfind("rules-", 0) == 0) out.push_back(e.path());
    return out;
  }
  static std::string errorsOf(const io::LoadedRules& l) {
    std::string out;
    for (const auto& e : l.errors) out += e.format() + "\n";
    return out;
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

TEST_F(RuleCache, TheBuildHasAnIdentity) { EXPECT_FALSE(io::thisBuild().empty()) << "the binary was linked without --build-id"; }

TEST_F(RuleCache, AFolderReadAgainComesFromTheCacheWithTheSameRulesAndErrors) {
  auto first = load();
  ASSERT_EQ(first.rules.rules().size(), 1u);
  ASSERT_EQ(first.errors.size(), 1u);
  auto files = cached();
  ASSERT_EQ(files.size(), 1u);
  auto second = load();
  EXPECT_EQ(core::encodeRules(second.rules.rules()), core::encodeRules(first.rules.rules()));
  EXPECT_EQ(errorsOf(second), errorsOf(first));
  // The cached parse is what loads: a title changed in the cache file (the same length) shows.
  std::string bytes = slurp(files[0]);
  size_t title = bytes.rfind("Lab mount");
  ASSERT_NE(title, std::string::npos);
  bytes.replace(title, 9, "Lab cache");
  std::ofstream(files[0], std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_EQ(load().rules.rules()[0]->title, "Lab cache");
  // A changed rule file is parsed anew.
  std::string renamed = kRule;
  renamed.replace(renamed.find("Lab mount"), 9, "Lab mounts");
  write("rules/lab.yaml", renamed);
  EXPECT_EQ(load().rules.rules()[0]->title, "Lab mounts");
  EXPECT_EQ(cached().size(), 2u);
}

TEST_F(RuleCache, ADamagedCacheFileIsNotUsed) {
  auto first = load();
  auto files = cached();
  ASSERT_EQ(files.size(), 1u);
  std::string bytes = slurp(files[0]);
  std::ofstream(files[0], std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 10);
  auto again = load();
  EXPECT_EQ(core::encodeRules(again.rules.rules()), core::encodeRules(first.rules.rules()));
  EXPECT_EQ(errorsOf(again), errorsOf(first));
}

TEST_F(RuleCache, OffMeansEveryLoadParses) {
  ::setenv("DENPEX_CACHE_DIR", "off", 1);
  EXPECT_EQ(load().rules.rules().size(), 1u);
  EXPECT_EQ(load().rules.rules().size(), 1u);
  EXPECT_FALSE(fs::exists(dir_ / "cache"));
}

}  // namespace
}  // namespace denpex::test
