// The user's source files as the fix planner sees them: files on disk below the workspace
// roots, with the editor's open buffers (text and version) in front of them. The CLI uses it
// without buffers; the language server with them. Frame paths are resolved by FrameResolver.
//
// Not thread-safe; make one per request.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fix/planner.h"
#include "io/frame_resolver.h"

namespace denpex::io {

struct OpenBuffer {
  std::shared_ptr<const void> owner;  // keeps `text` alive: the editor's document, shared, not copied
  std::string_view text;
  int version = 0;
};

class WorkspaceSources : public core::SourceProvider {
 public:
  struct Options {
    std::vector<std::filesystem::path> roots;                  // where the user's code is
    std::map<std::filesystem::path, OpenBuffer> buffers;       // absolute path -> open buffer
    // Name files relative to the current folder when they are below it (the CLI's output);
    // otherwise by absolute path (the language server's URIs).
    bool relativeToCurrentFolder = false;
    // The roots' .py and .json files, listed earlier (FrameResolver::listing); null: list them
    // when first needed.
    std::shared_ptr<const FileListing> listing;
    // Files the user named to be fixed (`--source FILE`): planned besides the frame's file, and
    // inside by the user's say-so.
    std::vector<std::filesystem::path> named;
    // Said after the candidates of an ambiguous frame path: how the user picks one.
    std::string chooseHint;
  };

  explicit WorkspaceSources(Options options);

  // A file a traceback frame names (FrameResolver's rules); its open buffer when there is one.
  core::OpenedSource open(const std::string& path) override;
  std::vector<core::SourceFile> namedFiles() override;

  FrameResolver& resolver() { return resolver_; }

 private:
  std::string shown(const std::filesystem::path& p) const;
  std::optional<core::SourceFile> read(const std::filesystem::path& p, std::string& error) const;

  Options options_;
  FrameResolver resolver_;
};

}  // namespace denpex::io
