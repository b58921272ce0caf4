// The one frame resolver: absolute paths, paths relative to a root, and trailing components of
// a path recorded elsewhere; a tie that the whole path below a root does not settle is ambiguous.
// Also the other walk of the user's folders: a folder of per-rank logs, within its bounds.
#include "io/frame_resolver.h"
#include "io/log_folder.h"

#include <gtest/gtest.h>

#include "support/files.h"

namespace denpex::test {
namespace {

class FrameResolverTest : public ScratchDir {
 protected:
  FrameResolverTest() : ScratchDir(false) {}
  void SetUp() override {
    ScratchDir::SetUp();
    for (const char* f : {"train.py", "src/train.py", "src/model/train.py", "tools/eval.py", ".venv/lib/train.py", "build/gen.py"})
      writeAll(dir_ / f, "x = 1\n");
  }
  fs::path abs(const std::string& rel) { return (fs::absolute(dir_) / rel).lexically_normal(); }
};

TEST_F(FrameResolverTest, AbsoluteAndRelativePathsThatExist) {
  io::FrameResolver r({dir_});
  EXPECT_EQ(r.resolve(abs("src/train.py").string()), abs("src/train.py"));
  EXPECT_EQ(r.resolve("src/model/train.py"), abs("src/model/train.py"));
  EXPECT_EQ(r.resolve("tools/eval.py"), abs("tools/eval.py"));
}

TEST_F(FrameResolverTest, TrailingComponentsWithTiesToTheFileWhosePathMatchesWhole) {
  io::FrameResolver r({dir_});
  EXPECT_EQ(r.resolve("/home/a/proj/train.py"), abs("train.py"));
  EXPECT_EQ(r.resolve("/home/a/proj/src/train.py"), abs("src/train.py"));
  EXPECT_EQ(r.resolve("/home/a/proj/src/model/train.py"), abs("src/model/train.py"));
  EXPECT_EQ(r.resolve("/mnt/job/model/train.py"), abs("src/model/train.py"));
  EXPECT_EQ(r.resolve("/home/a/proj/eval.py"), abs("tools/eval.py"));
  EXPECT_FALSE(r.resolve("/home/a/proj/missing.py"));
  EXPECT_FALSE(r.resolve(""));
}

TEST_F(FrameResolverTest, AnAmbiguousBaseNameIsNoFileWithTheCandidatesNamed) {
  fs::remove(dir_ / "train.py");
  io::FrameResolver r({dir_});
  // src/train.py, src/model/train.py: either could be /cluster/home/u/train.py.
  auto res = r.resolveFrame("/cluster/home/u/train.py");
  EXPECT_FALSE(res.file);
  EXPECT_EQ(res.candidates, (std::vector<fs::path>{abs("src/model/train.py"), abs("src/train.py")}));
  EXPECT_FALSE(r.resolve("/cluster/home/u/train.py"));
  // One more component settles it.
  EXPECT_EQ(r.resolve("/cluster/home/u/model/train.py"), abs("src/model/train.py"));
}

TEST_F(FrameResolverTest, AListingSharedByAnotherResolverIndexesItsFilesByName) {
  io::FrameResolver first({dir_});
  auto listing = first.listing();
  ASSERT_TRUE(listing);
  // The index holds every listed file under its own name, and nothing else.
  size_t indexed = 0;
  for (const auto& [name, at] : listing->byName)
    for (size_t i : at) {
      ++indexed;
      EXPECT_EQ(listing->files[i].filename().string(), name);
    }
  EXPECT_EQ(indexed, listing->files.size());
  EXPECT_EQ(listing->byName.at("train.py").size(), 3u);
  // A resolver given that listing answers as one that walked the folder itself, without walking:
  // a file created since is not in it (the server refreshes its listing every few seconds).
  writeAll(dir_ / "later/extra.py", "x = 1\n");
  io::FrameResolver second({dir_});
  second.useListing(listing);
  EXPECT_EQ(second.resolve("/home/a/proj/src/model/train.py"), abs("src/model/train.py"));
  EXPECT_EQ(second.resolve("/home/a/proj/eval.py"), abs("tools/eval.py"));
  EXPECT_FALSE(second.resolve("/elsewhere/later/extra.py"));
  EXPECT_EQ(io::FrameResolver({dir_}).resolve("/elsewhere/later/extra.py"), abs("later/extra.py"));
}

TEST_F(FrameResolverTest, InsideMeansBelowARootWithLinksFollowed) {
  fs::path elsewhere = fs::absolute(dir_.string() + "-far");
  writeAll(elsewhere / "far.py", "x = 1\n");
  fs::create_directory_symlink(elsewhere, dir_ / "linked");
  io::FrameResolver r({dir_});
  EXPECT_TRUE(r.resolveFrame("src/train.py").inside);
  auto far = r.resolveFrame((elsewhere / "far.py").string());
  ASSERT_TRUE(far.file);
  EXPECT_FALSE(far.inside);
  // Below the root by its name, elsewhere once the link is followed.
  EXPECT_FALSE(r.isInside(dir_ / "linked" / "far.py"));
  auto up = r.resolveFrame("../" + elsewhere.filename().string() + "/far.py");
  ASSERT_TRUE(up.file);
  EXPECT_FALSE(up.inside);
  fs::remove_all(elsewhere);
}

TEST_F(FrameResolverTest, SkipsVirtualEnvironmentsAndBuildOutput) {
  io::FrameResolver r({dir_});
  ASSERT_EQ(r.files().size(), 4u);  // the six files less .venv/ and build/
  for (const auto& f : r.files()) {
    EXPECT_EQ(f.string().find(".venv"), std::string::npos) << f;
    EXPECT_EQ(f.string().find("/build/"), std::string::npos) << f;
  }
  EXPECT_FALSE(r.resolve("/x/gen.py"));
}

TEST_F(FrameResolverTest, OpenDocumentsCountEvenWhenUnsaved) {
  fs::path unsaved = abs("src/new_train.py");
  io::FrameResolver r({dir_}, {unsaved});
  EXPECT_EQ(r.resolve(unsaved.string()), unsaved);
  EXPECT_EQ(r.resolve("/elsewhere/src/new_train.py"), unsaved);
}

// A folder of per-rank logs is walked within bounds: past the most logs it reads, the walk stops
// and says so, and the caller is warned.
class LogFolderTest : public ScratchDir {
 protected:
  LogFolderTest() : ScratchDir(false) {}
};

TEST_F(LogFolderTest, AFolderOfMoreLogsThanItReadsIsCutAndSaysSo) {
  for (int r = 0; r < 6; ++r) writeAll(dir_ / "attempt_0" / std::to_string(r) / "stderr.log", "rank " + std::to_string(r) + "\n");
  bool cut = true;
  EXPECT_EQ(io::logsInFolder(dir_, io::kMaxFolderLogs, &cut).size(), 6u);
  EXPECT_FALSE(cut);
  auto few = io::logsInFolder(dir_, 4, &cut);
  EXPECT_EQ(few.size(), 4u);
  EXPECT_TRUE(cut);
}

}  // namespace
}  // namespace denpex::test
