// Source files for fixes (see workspace_sources.h).
#include "io/workspace_sources.h"

#include <algorithm>

#include "core/base/text.h"
#include "io/files.h"

namespace denpex::io {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> bufferPaths(const std::map<fs::path, OpenBuffer>& buffers) {
  std::vector<fs::path> out;
  for (const auto& [path, buffer] : buffers) out.push_back(path);
  return out;
}

}  // namespace

WorkspaceSources::WorkspaceSources(Options options)
    : options_(std::move(options)), resolver_(options_.roots, bufferPaths(options_.buffers)) {
  if (options_.listing) resolver_.useListing(options_.listing);
}

std::string WorkspaceSources::shown(const fs::path& p) const {
  if (!options_.relativeToCurrentFolder) return p.string();
  std::error_code ec;
  fs::path rel = fs::relative(p, fs::current_path(ec), ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0) return p.string();
  return rel.string();
}

std::optional<core::SourceFile> WorkspaceSources::open(const std::string& path) {
  auto resolved = resolver_.resolve(path);
  if (!resolved) {
    // A candidate named by its own path (see candidates()) that is outside every root.
    fs::path p(path);
    if (!p.is_absolute()) return std::nullopt;
    resolved = p.lexically_normal();
  }
  auto it = options_.buffers.find(*resolved);
  if (it != options_.buffers.end()) return core::SourceFile{shown(*resolved), *it->second.text, it->second.version};
  std::string error;
  auto text = readFile(*resolved, error);
  if (!text) return std::nullopt;
  return core::SourceFile{shown(*resolved), std::move(*text), std::nullopt};
}

std::vector<std::string> WorkspaceSources::candidates() {
  std::vector<std::string> out;
  for (const auto& f : resolver_.files()) out.push_back(f.string());
  for (const auto& [path, buffer] : options_.buffers) {
    std::string s = path.string();
    bool code = core::text::endsWith(s, ".py") || core::text::endsWith(s, ".json");
    if (code && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

}  // namespace denpex::io
