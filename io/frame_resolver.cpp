// Frame paths to files (see frame_resolver.h).
#include "io/frame_resolver.h"

#include <algorithm>
#include <set>

namespace denpex::io {

namespace fs = std::filesystem;

namespace {

fs::path normal(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  return (ec ? p : abs).lexically_normal();
}

bool skipDir(const fs::path& p) {
  static const std::set<std::string>& kSkip = *new std::set<std::string>{
      ".git", ".hg",         ".svn",          "node_modules",  "__pycache__",   ".venv",
      "venv", "env",         ".tox",          "site-packages", "dist-packages", "build",
      "dist", ".mypy_cache", ".pytest_cache", "wandb",         "outputs"};
  std::string name = p.filename().string();
  return kSkip.count(name) > 0 || (name.size() > 1 && name[0] == '.' && name != ".denpex");
}

std::vector<std::string> components(const fs::path& p) {
  std::vector<std::string> out;
  for (const auto& c : p) {
    std::string s = c.string();
    if (!s.empty() && s != "/" && s != ".") out.push_back(s);
  }
  return out;
}

}  // namespace

FrameResolver::FrameResolver(std::vector<fs::path> roots, std::vector<fs::path> openDocuments) {
  for (const auto& r : roots) roots_.push_back(normal(r));
  for (const auto& d : openDocuments) open_.push_back(normal(d));
}

const std::vector<fs::path>& FrameResolver::files() {
  if (files_) return files_->files;
  auto listing = std::make_shared<FileListing>();
  std::vector<fs::path>* files = &listing->files;
  std::error_code ec;
  constexpr size_t kMaxVisited = 20000;
  for (const auto& root : roots_) {
    size_t visited = 0;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator() && visited < kMaxVisited; it.increment(ec), ++visited) {
      if (it->is_directory(ec)) {
        if (skipDir(it->path()) || it.depth() > 8) it.disable_recursion_pending();
        continue;
      }
      auto ext = it->path().extension();
      if ((ext == ".py" || ext == ".json") && it->is_regular_file(ec)) files->push_back(it->path().lexically_normal());
    }
  }
  std::sort(files->begin(), files->end());
  files->erase(std::unique(files->begin(), files->end()), files->end());
  for (size_t i = 0; i < files->size(); ++i) listing->byName[(*files)[i].filename().string()].push_back(i);
  files_ = std::move(listing);
  return files_->files;
}

bool FrameResolver::isInside(const fs::path& file) const {
  std::error_code ec;
  if (roots_.empty()) return std::find(open_.begin(), open_.end(), file) != open_.end();
  // Links followed: a link below a root that points elsewhere is not inside.
  fs::path real = fs::weakly_canonical(file, ec);
  if (ec) real = file;
  for (const auto& root : roots_) {
    fs::path realRoot = fs::weakly_canonical(root, ec);
    if (ec) realRoot = root;
    fs::path rel = real.lexically_relative(realRoot);
    if (!rel.empty() && *rel.begin() != ".." && rel != ".") return true;
  }
  return false;
}

FrameResolver::Resolution FrameResolver::resolveFrame(const std::string& framePath) {
  Resolution out;
  if (framePath.empty()) return out;
  std::error_code ec;
  fs::path p(framePath);
  auto isOpen = [&](const fs::path& q) { return std::find(open_.begin(), open_.end(), q) != open_.end(); };
  auto found = [&](const fs::path& q) {
    out.file = q;
    out.inside = isInside(q);
    return out;
  };
  // 1. Absolute.
  if (p.is_absolute()) {
    fs::path q = p.lexically_normal();
    if (isOpen(q) || fs::is_regular_file(q, ec)) return found(q);
  } else {
    // 2. Relative to a root.
    for (const auto& root : roots_) {
      fs::path q = (root / p).lexically_normal();
      if (isOpen(q) || fs::is_regular_file(q, ec)) return found(q);
    }
  }
  // 3. Trailing components: the files sharing the most; among several, the one whose whole path
  // below its root ends the frame path; otherwise it is ambiguous.
  std::vector<std::string> parts = components(p);
  if (parts.empty()) return out;
  size_t best = 0;
  std::vector<std::pair<fs::path, bool>> tied;  // file, whole path matched
  auto consider = [&](const fs::path& file) {
    std::vector<std::string> fparts;
    bool underRoot = false;
    for (const auto& root : roots_) {
      fs::path rel = file.lexically_relative(root);
      if (!rel.empty() && *rel.begin() != "..") {
        fparts = components(rel);
        underRoot = true;
        break;
      }
    }
    if (!underRoot) fparts = components(file);  // an open document outside the roots
    size_t k = 0;
    while (k < parts.size() && k < fparts.size() && parts[parts.size() - 1 - k] == fparts[fparts.size() - 1 - k]) ++k;
    if (k == 0 || k < best) return;
    if (k > best) {
      best = k;
      tied.clear();
    }
    for (const auto& [f, whole] : tied)
      if (f == file) return;
    tied.emplace_back(file, underRoot && k == fparts.size());
  };
  // A file that does not share the frame's name shares no trailing component with it.
  files();
  if (auto named = files_->byName.find(parts.back()); named != files_->byName.end())
    for (size_t i : named->second) consider(files_->files[i]);
  for (const auto& d : open_) consider(d);
  if (tied.size() == 1) return found(tied.front().first);
  std::vector<fs::path> whole;
  for (const auto& [f, w] : tied)
    if (w) whole.push_back(f);
  if (whole.size() == 1) return found(whole.front());
  for (const auto& [f, w] : tied) out.candidates.push_back(f);
  return out;
}

}  // namespace denpex::io
