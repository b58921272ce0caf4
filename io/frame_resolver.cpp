// Frame paths to files (see frame_resolver.h).
#include "io/frame_resolver.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace denpex::io {

namespace fs = std::filesystem;

namespace {

fs::path normal(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  return (ec ? p : abs).lexically_normal();
}

bool skipDir(const fs::path& p) {
  static const std::set<std::string> kSkip{".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv",
                                           "venv", "env", ".tox", "site-packages", "dist-packages", "build",
                                           "dist", ".mypy_cache", ".pytest_cache", "wandb", "outputs"};
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
  if (files_) return *files_;
  auto files = std::make_shared<std::vector<fs::path>>();
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
  files_ = std::move(files);
  return *files_;
}

std::optional<fs::path> FrameResolver::resolve(const std::string& framePath) {
  if (framePath.empty()) return std::nullopt;
  std::error_code ec;
  fs::path p(framePath);
  auto isOpen = [&](const fs::path& q) { return std::find(open_.begin(), open_.end(), q) != open_.end(); };
  // 1. Absolute.
  if (p.is_absolute()) {
    fs::path q = p.lexically_normal();
    if (isOpen(q) || fs::is_regular_file(q, ec)) return q;
  } else {
    // 2. Relative to a root.
    for (const auto& root : roots_) {
      fs::path q = (root / p).lexically_normal();
      if (isOpen(q) || fs::is_regular_file(q, ec)) return q;
    }
  }
  // 3. The longest match of trailing components; ties to the shallowest, then root order.
  std::vector<std::string> parts = components(p);
  if (parts.empty()) return std::nullopt;
  std::optional<fs::path> best;
  std::tuple<size_t, size_t, size_t> bestKey{0, 0, 0};  // (-shared, depth, root) smaller is better
  bool any = false;
  auto consider = [&](const fs::path& file) {
    size_t rootIndex = roots_.size(), depth = 0;
    std::vector<std::string> fparts;
    for (size_t r = 0; r < roots_.size(); ++r) {
      fs::path rel = file.lexically_relative(roots_[r]);
      if (!rel.empty() && *rel.begin() != "..") {
        rootIndex = r;
        fparts = components(rel);
        break;
      }
    }
    if (rootIndex == roots_.size()) fparts = components(file);  // an open document outside the roots
    depth = fparts.size();
    size_t k = 0;
    while (k < parts.size() && k < fparts.size() && parts[parts.size() - 1 - k] == fparts[fparts.size() - 1 - k]) ++k;
    if (k == 0) return;
    std::tuple<size_t, size_t, size_t> key{parts.size() - k, depth, rootIndex};
    if (!any || key < bestKey) {
      any = true;
      bestKey = key;
      best = file;
    }
  };
  for (const auto& f : files()) consider(f);
  for (const auto& d : open_) consider(d);
  return best;
}

}  // namespace denpex::io
