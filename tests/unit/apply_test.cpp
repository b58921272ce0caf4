// Writing fixes to disk: merged edits per file, and never over a file that changed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/base/text.h"
#include "io/apply_edits.h"
#include "io/files.h"

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

namespace denpex::io {
namespace {

// The write step, tried as an attacker would (issue 12): planted links, hard links, read-only
// files; and what a write must keep (mode, line ends).
class SafeWriteTest : public ApplyTest {};

TEST_F(SafeWriteTest, APlantedLinkAtTheOldTemporaryNameIsNotFollowed) {
  fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, path_ + ".denpex-tmp");
  std::ostringstream log;
  EXPECT_TRUE(applyPlans({{plan(11, ", eps=1e-5")}}, log)) << log.str();
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_EQ(slurp(path_), "a = AdamW(p, eps=1e-5)\nb = AdamW(q)\n");
  for (const auto& e : fs::directory_iterator(dir_)) {  // no temporary file of ours left behind
    std::string name = e.path().filename().string();
    if (name != "train.py.denpex-tmp") {
      EXPECT_EQ(name.find(".denpex-"), std::string::npos) << e.path();
    }
  }
}

TEST_F(SafeWriteTest, ASymlinkedSourceIsRefusedAndItsTargetUntouched) {
  fs::path real = dir_ / "real.py";
  fs::rename(path_, real);
  fs::create_symlink(real, path_);
  std::ostringstream log;
  EXPECT_FALSE(applyPlans({{plan(11, ", eps=1e-5")}}, log));
  EXPECT_NE(log.str().find("is a symbolic link; not written"), std::string::npos) << log.str();
  EXPECT_EQ(slurp(real), text_);
  EXPECT_TRUE(fs::is_symlink(path_));
}

TEST_F(SafeWriteTest, AHardLinkedFileIsRefused) {
  fs::create_hard_link(path_, dir_ / "other-name.py");
  std::ostringstream log;
  EXPECT_FALSE(applyPlans({{plan(11, ", eps=1e-5")}}, log));
  EXPECT_NE(log.str().find("hard links"), std::string::npos) << log.str();
  EXPECT_EQ(slurp(dir_ / "other-name.py"), text_);
}

TEST_F(SafeWriteTest, AReadOnlyFileIsRefused) {
  fs::permissions(path_, fs::perms::owner_read | fs::perms::group_read);
  std::ostringstream log;
  EXPECT_FALSE(applyPlans({{plan(11, ", eps=1e-5")}}, log));
  EXPECT_NE(log.str().find("is read-only; not written"), std::string::npos) << log.str();
  fs::permissions(path_, fs::perms::owner_all);
  EXPECT_EQ(slurp(path_), text_);
}

TEST_F(SafeWriteTest, ModeIsKept) {
  fs::permissions(path_, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  std::ostringstream log;
  EXPECT_TRUE(applyPlans({{plan(11, ", eps=1e-5")}}, log)) << log.str();
  EXPECT_EQ(fs::status(path_).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_F(SafeWriteTest, ACrlfFileGetsCrlfInAMultiLineInsert) {
  text_ = "a = AdamW(p)\r\nb = 1\r\n";
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << text_;
  std::ostringstream log;
  EXPECT_TRUE(applyPlans({{plan(14, "# set eps for fp16\n")}}, log)) << log.str();
  EXPECT_EQ(slurp(path_), "a = AdamW(p)\r\n# set eps for fp16\r\nb = 1\r\n");
}

// The lines a streamed diagnosis shows evidence on, read again: as LineIndex::lineText gives them
// (no '\n', no '\r' before it), across the reads of a file bigger than one buffer, in any order.
TEST_F(ApplyTest, ReadLinesAtGivesTheLinesAskedForAndNoOthers) {
  const fs::path log = dir_ / "big.log";
  {
    std::ofstream out(log, std::ios::binary);
    for (int i = 0; i < 200000; ++i) out << "line " << i << (i % 2 ? "\r\n" : "\n");  // about 2.5 MiB
    out << "last, without a newline";
  }
  std::string error;
  auto got = readLinesAt(log, {199999, 0, 7, 7, 123456, 200000, 300000}, error);
  ASSERT_TRUE(got) << error;
  EXPECT_EQ(got->size(), 5u);  // 7 once; 300000 is past the end
  EXPECT_EQ(got->at(0), "line 0");
  EXPECT_EQ(got->at(7), "line 7");
  EXPECT_EQ(got->at(123456), "line 123456");
  EXPECT_EQ(got->at(199999), "line 199999");
  EXPECT_EQ(got->at(200000), "last, without a newline");
  // Around the end of the first 1 MiB read, where whole reads stop being skipped: each line
  // asked for alone, the one cut by the read's end among them.
  std::ifstream whole(log, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
  const uint64_t cutLine = core::text::countByte(std::string_view(bytes).substr(0, size_t{1} << 20), '\n');
  for (uint64_t k = cutLine - 2; k <= cutLine + 2; ++k) {
    auto one = readLinesAt(log, {k}, error);
    ASSERT_TRUE(one) << error;
    EXPECT_EQ(one->at(k), "line " + std::to_string(k)) << k;
  }
  EXPECT_EQ(core::text::countByte("a\nb\n\n", '\n'), 3u);
  EXPECT_EQ(core::text::countByte(std::string(100, '\n') + "x", '\n'), 100u);  // whole blocks of 16 and a tail
  EXPECT_EQ(core::text::countByte(std::string(100000, '\n'), '\n'), 100000u);   // past 255 rounds: the lanes are summed
  EXPECT_EQ(core::text::countByte(std::string(5000, '\xff'), '\xff'), 5000u);
  // A long line is cut; nothing asked for, nothing read.
  auto cut = readLinesAt(log, {5}, error, 3);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->at(5), "lin");
  EXPECT_TRUE(readLinesAt(log, {}, error)->empty());
  EXPECT_FALSE(readLinesAt(dir_ / "none.log", {1}, error));
  EXPECT_NE(error.find("no such file"), std::string::npos) << error;
}

TEST_F(ApplyTest, OpenLogStreamRefusesWhatIsNotARegularFile) {
  std::string error;
  uintmax_t size = 0;
  auto in = openLogStream(path_, error, &size);
  ASSERT_TRUE(in) << error;
  EXPECT_EQ(size, text_.size());
  EXPECT_FALSE(openLogStream(dir_, error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  EXPECT_FALSE(openLogStream("/dev/zero", error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

}  // namespace
}  // namespace denpex::io
