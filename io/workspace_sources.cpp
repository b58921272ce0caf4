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

std::optional<core::SourceFile> WorkspaceSources::read(const fs::path& p, std::string& error) const {
  auto it = options_.buffers.find(p);
  if (it != options_.buffers.end()) return core::SourceFile{shown(p), std::string(it->second.text), it->second.version};
  auto text = readFile(p, error);
  if (!text) return std::nullopt;
  return core::SourceFile{shown(p), std::move(*text), std::nullopt};
}

core::OpenedSource WorkspaceSources::open(const std::string& path) {
  core::OpenedSource out;
  auto resolution = resolver_.resolveFrame(path);
  if (!resolution.file) {
    if (resolution.candidates.empty()) {
      out.problem = path + " was not found in " + (options_.roots.empty() ? std::string("the open documents") : shown(options_.roots.front()));
      return out;
    }
    out.problem = fs::path(path).filename().string() + " could be any of ";
    for (size_t i = 0; i < resolution.candidates.size(); ++i)
      out.problem += (i ? ", " : "") + shown(resolution.candidates[i]);
    out.problem += ": not edited";
    if (!options_.chooseHint.empty()) out.problem += " (" + options_.chooseHint + ")";
    return out;
  }
  std::string error;
  out.file = read(*resolution.file, error);
  if (!out.file) {
    out.problem = error;
    return out;
  }
  out.file->outside = !resolution.inside;
  return out;
}

std::vector<core::SourceFile> WorkspaceSources::namedFiles() {
  std::vector<core::SourceFile> out;
  for (const auto& p : options_.named) {
    std::string error;
    if (auto file = read(fs::absolute(p).lexically_normal(), error)) out.push_back(std::move(*file));
  }
  return out;
}

}  // namespace denpex::io
