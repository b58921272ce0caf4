// Reading files and the on-disk SourceProvider (see disk_sources.h).
#include "cli/disk_sources.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace denpex::cli {

namespace fs = std::filesystem;

std::optional<std::string> readFile(const fs::path& path, std::string& error) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    error = path.string() + ": no such file";
    return std::nullopt;
  }
  if (fs::is_directory(status)) {
    error = path.string() + ": is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path.string() + ": cannot be read (permission denied?)";
    return std::nullopt;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    error = path.string() + ": read error";
    return std::nullopt;
  }
  return buf.str();
}

std::vector<core::RuleSource> readRuleDir(const fs::path& dir, std::vector<core::RuleError>& errors) {
  std::vector<core::RuleSource> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    errors.push_back({dir.string(), 0, "not a folder of rules"});
    return out;
  }
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    auto ext = it->path().extension();
    if (ext == ".yaml" || ext == ".yml") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string error;
    auto text = readFile(f, error);
    if (!text) {
      errors.push_back({f.string(), 0, error});
      continue;
    }
    out.push_back({f.string(), std::move(*text)});
  }
  return out;
}

namespace {

bool skipDir(const fs::path& p) {
  static const std::set<std::string> kSkip{".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv",
                                           "venv", "env", ".tox", "site-packages", "dist-packages", "build",
                                           "dist", ".mypy_cache", ".pytest_cache", "wandb", "outputs"};
  std::string name = p.filename().string();
  return kSkip.count(name) > 0 || (name.size() > 1 && name[0] == '.' && name != ".denpex");
}

}  // namespace

const std::vector<fs::path>& DiskSources::walk() {
  if (files_) return *files_;
  files_.emplace();
  std::error_code ec;
  size_t visited = 0;
  constexpr size_t kMaxVisited = 20000;  // a home folder by mistake must not take minutes
  for (auto it = fs::recursive_directory_iterator(root_, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator() && visited < kMaxVisited; it.increment(ec), ++visited) {
    if (it->is_directory(ec)) {
      if (skipDir(it->path()) || it.depth() > 8) it.disable_recursion_pending();
      continue;
    }
    auto ext = it->path().extension();
    if ((ext == ".py" || ext == ".json") && it->is_regular_file(ec)) files_->push_back(it->path());
  }
  std::sort(files_->begin(), files_->end());
  return *files_;
}

std::optional<fs::path> DiskSources::resolve(const std::string& path) {
  std::error_code ec;
  fs::path p(path);
  if (p.is_absolute() && fs::is_regular_file(p, ec)) return p;
  if (!p.is_absolute() && fs::is_regular_file(root_ / p, ec)) return root_ / p;
  // Match by trailing components: /home/a/proj/src/train.py -> <root>/src/train.py
  std::vector<std::string> parts;
  for (const auto& c : p) {
    std::string s = c.string();
    if (!s.empty() && s != "/") parts.push_back(s);
  }
  std::optional<fs::path> best;
  size_t bestDepth = 0;
  for (const auto& f : walk()) {
    std::vector<std::string> fparts;
    for (const auto& c : fs::relative(f, root_, ec)) fparts.push_back(c.string());
    size_t k = 0;
    while (k < parts.size() && k < fparts.size() && parts[parts.size() - 1 - k] == fparts[fparts.size() - 1 - k]) ++k;
    if (k > bestDepth) {
      bestDepth = k;
      best = f;
    }
  }
  return best;
}

std::optional<core::SourceFile> DiskSources::open(const std::string& path) {
  auto resolved = resolve(path);
  if (!resolved) return std::nullopt;
  std::string error;
  auto text = readFile(*resolved, error);
  if (!text) return std::nullopt;
  std::error_code ec;
  fs::path shown = fs::relative(*resolved, fs::current_path(ec), ec);
  if (ec || shown.empty() || shown.string().rfind("..", 0) == 0) shown = *resolved;
  return core::SourceFile{shown.string(), std::move(*text), std::nullopt};
}

std::vector<std::string> DiskSources::candidates() {
  std::vector<std::string> out;
  for (const auto& f : walk()) out.push_back(f.string());
  return out;
}

}  // namespace denpex::cli
