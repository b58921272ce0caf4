// Reading files and the on-disk SourceProvider (see disk_sources.h).
#include "cli/disk_sources.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>
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

int rankFromName(const std::string& stem) {
  std::string lower = stem;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* key : {"rank", "worker", "node", "proc"}) {
    size_t at = lower.find(key);
    if (at == std::string::npos) continue;
    size_t i = at + std::char_traits<char>::length(key);
    while (i < lower.size() && (lower[i] == '-' || lower[i] == '_' || lower[i] == '.')) ++i;
    size_t d = i;
    while (d < lower.size() && std::isdigit(static_cast<unsigned char>(lower[d]))) ++d;
    if (d > i) return std::stoi(lower.substr(i, d - i));
  }
  return -1;
}

bool allDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::vector<LogInput> logsInFolder(const fs::path& dir) {
  std::vector<LogInput> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    fs::path p = it->path();
    std::string ext = p.extension().string();
    bool errorJson = p.filename() == "error.json";
    if (!errorJson && ext != ".log" && ext != ".txt" && ext != ".out" && ext != ".err") continue;
    LogInput in;
    in.path = p;
    in.errorFile = errorJson;
    in.name = fs::relative(p, dir.parent_path().empty() ? fs::path(".") : dir.parent_path(), ec).string();
    if (ec || in.name.empty()) in.name = p.string();
    for (fs::path q = fs::relative(p, dir, ec).parent_path(); !q.empty(); q = q.parent_path()) {
      if (allDigits(q.filename().string())) {
        in.rank = std::stoi(q.filename().string());
        break;
      }
    }
    if (in.rank < 0) in.rank = rankFromName(p.stem().string());
    out.push_back(std::move(in));
  }
  std::sort(out.begin(), out.end(), [](const LogInput& a, const LogInput& b) { return a.path < b.path; });
  return out;
}

std::optional<std::string> readLogInput(const LogInput& input, std::string& error) {
  auto text = readFile(input.path, error);
  if (!text || !input.errorFile) return text;
  // {"message": {"message": "ValueError: ...", "extraInfo": {"py_callstack": "Traceback ...", "timestamp": "..."}}}
  try {
    auto j = nlohmann::json::parse(*text);
    const auto& m = j.at("message");
    if (m.is_object()) {
      std::string stack = m.value("extraInfo", nlohmann::json::object()).value("py_callstack", std::string());
      if (!stack.empty()) return stack;
      return m.value("message", std::string()) + "\n";
    }
    if (m.is_string()) return m.get<std::string>() + "\n";
  } catch (const nlohmann::json::exception& e) {
    error = input.path.string() + ": not a torchelastic error file (" + e.what() + ")";
    return std::nullopt;
  }
  return std::string();
}

std::vector<LogInput> feedFolder(const fs::path& dir, core::Diagnoser& diagnoser, std::string& error,
                                 std::vector<std::string>* texts) {
  std::vector<LogInput> inputs = logsInFolder(dir);
  for (const auto& input : inputs) {
    auto text = readLogInput(input, error);
    if (!text) return {};
    diagnoser.beginSource(input.name, input.rank);
    diagnoser.addText(*text);
    if (texts) texts->push_back(std::move(*text));
  }
  return inputs;
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
