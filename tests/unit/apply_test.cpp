// Writing fixes to disk: merged edits per file, and never over a file that changed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/apply_edits.h"

namespace denpex::io {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ApplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("denpex-apply-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "train.py").string();
    std::ofstream(path_) << text_;
  }
  void TearDown() override { fs::remove_all(dir_); }
  core::FixPlan plan(size_t at, std::string insert) {
    core::FixPlan p;
    p.path = path_;
    p.applicable = true;
    p.originalText = text_;
    p.edits.push_back({at, at, std::move(insert)});
    return p;
  }
  fs::path dir_;
  std::string path_;
  std::string text_ = "a = AdamW(p)\nb = AdamW(q)\n";
};

TEST_F(ApplyTest, MergesEditsOfOneFile) {
  std::ostringstream log;
  EXPECT_TRUE(applyPlans({{plan(11, ", eps=1e-5")}, {plan(24, ", eps=1e-5")}}, log));
  EXPECT_EQ(slurp(path_), "a = AdamW(p, eps=1e-5)\nb = AdamW(q, eps=1e-5)\n");
  EXPECT_NE(log.str().find("applied 2 edits"), std::string::npos);
}

TEST_F(ApplyTest, RefusesAFileThatChangedSinceItWasRead) {
  std::ofstream(path_) << "# edited meanwhile\n" << text_;
  std::ostringstream log;
  EXPECT_FALSE(applyPlans({{plan(11, ", eps=1e-5")}}, log));
  EXPECT_EQ(slurp(path_), "# edited meanwhile\n" + text_);
  EXPECT_NE(log.str().find("changed since it was read; not written"), std::string::npos);
  EXPECT_FALSE(fs::exists(path_ + ".denpex-tmp"));
}

TEST_F(ApplyTest, NothingApplicableWritesNothing) {
  core::FixPlan p = plan(11, ", eps=1e-5");
  p.applicable = false;
  std::ostringstream log;
  EXPECT_TRUE(applyPlans({{p}}, log));
  EXPECT_EQ(slurp(path_), text_);
  EXPECT_TRUE(log.str().empty());
}

}  // namespace
}  // namespace denpex::io
