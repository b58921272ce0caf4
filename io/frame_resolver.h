// The one answer to "which file does this traceback frame mean?". The CLI's fixes, the
// language server's quick fixes, its "your code" links and its document links all ask here,
// so they always name the same file.
//
// A frame path is tried, in order:
//   1. as an absolute path: an open editor document, or a regular file on disk;
//   2. relative to each root, in order;
//   3. by its trailing components, for a log recorded on another machine or in another folder
//      (/home/a/proj/src/train.py -> <root>/src/train.py): among the .py and .json files below
//      the roots and the open documents, the one that shares the most trailing components;
//      among several, the one whose whole path below its root ends the frame path; otherwise
//      the frame is ambiguous: no file, and the candidates are named. With both train.py and
//      src/train.py in a workspace, /elsewhere/train.py means train.py and
//      /elsewhere/src/train.py means src/train.py; with old/train.py and src/train.py only,
//      /elsewhere/train.py is ambiguous (it could be either; editing one is a guess).
//
// A file found is "inside" when it is below a root once links are followed (an open document
// counts as inside when there are no roots: the editor has a single file open).
// Not thread-safe (the file walk is made once, on first use, and kept). Paths returned are
// absolute and lexically normal.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace denpex::io {

// The .py and .json files below some roots, with an index by file name: a frame path is matched
// by its trailing components, so only the files that share its last one (its name) are looked
// at, not every file of the workspace on every request.
struct FileListing {
  std::vector<std::filesystem::path> files;  // sorted, unique
  std::unordered_map<std::string, std::vector<size_t>> byName;  // file name -> indices into `files`
};

class FrameResolver {
 public:
  // `roots`: the folders that hold the user's code (a workspace, --source). `openDocuments`:
  // absolute paths of files open in an editor, which count as existing even when unsaved.
  explicit FrameResolver(std::vector<std::filesystem::path> roots, std::vector<std::filesystem::path> openDocuments = {});

  struct Resolution {
    std::optional<std::filesystem::path> file;
    bool inside = false;                             // below a root (see above)
    std::vector<std::filesystem::path> candidates;   // when ambiguous: the files it could be
  };
  // The file a frame path names, whether it is inside, or the candidates when ambiguous.
  Resolution resolveFrame(const std::string& framePath);
  // The file a frame path names; nullopt when none is found or it is ambiguous.
  std::optional<std::filesystem::path> resolve(const std::string& framePath) { return resolveFrame(framePath).file; }
  // Whether a path is below a root once links are followed (see above).
  bool isInside(const std::filesystem::path& file) const;

  // The .py and .json files below the roots (absolute), skipping virtual environments, caches,
  // build output and VCS folders, at most 20,000 entries visited per root and 8 folders deep,
  // so that a home folder given by mistake does not take minutes. Sorted.
  const std::vector<std::filesystem::path>& files();
  // The same listing made earlier (by another resolver of the same roots): the language server
  // keeps one for a few seconds instead of walking the workspace on every request.
  void useListing(std::shared_ptr<const FileListing> listing) { files_ = std::move(listing); }
  std::shared_ptr<const FileListing> listing() {
    files();
    return files_;
  }

  const std::vector<std::filesystem::path>& roots() const { return roots_; }

 private:
  std::vector<std::filesystem::path> roots_;
  std::vector<std::filesystem::path> open_;
  std::shared_ptr<const FileListing> files_;
};

}  // namespace denpex::io
