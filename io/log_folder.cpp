// Per-rank log folders (see log_folder.h).
#include "io/log_folder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <tuple>

#include "io/files.h"

namespace denpex::io {

namespace fs = std::filesystem;

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

std::vector<LogInput> logsInFolder(const fs::path& dir, size_t maxLogs, bool* cut) {
  constexpr size_t kMaxVisited = size_t{1} << 20;
  std::vector<LogInput> out;
  std::error_code ec;
  size_t visited = 0;
  if (cut) *cut = false;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++visited > kMaxVisited || out.size() >= maxLogs) {
      if (cut) *cut = true;
      break;
    }
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
  // Folder by folder; in a folder, the order a process writes its files in: its output (where
  // a training loop prints its metrics), then its errors, then the error file written as it
  // died (torchrun's stdout.log, stderr.log, error.json). Other names sort by name.
  auto order = [](const fs::path& p) {
    std::string name = p.filename().string();
    if (name == "error.json") return 2;
    if (p.stem() == "stdout") return 0;
    return 1;
  };
  std::sort(out.begin(), out.end(), [&](const LogInput& a, const LogInput& b) {
    return std::make_tuple(a.path.parent_path(), order(a.path), a.path.filename()) <
           std::make_tuple(b.path.parent_path(), order(b.path), b.path.filename());
  });
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
                                 std::vector<std::string>* texts, std::vector<std::string>* warnings, uintmax_t maxTextBytes,
                                 const FolderFeed& feed) {
  std::vector<LogInput> fed;
  std::string firstProblem;
  auto skip = [&](const std::string& why) {
    if (firstProblem.empty()) firstProblem = why;
    if (warnings) warnings->push_back("skipped " + why);
  };
  bool cut = false;
  const auto inputs = logsInFolder(dir, kMaxFolderLogs, &cut);
  if (cut && warnings)
    warnings->push_back("read the first " + std::to_string(inputs.size()) + " logs found in " + dir.string() +
                        ": the folder holds more than denpex reads (" + std::to_string(kMaxFolderLogs) + " logs, a million entries)");
  FeedOptions options = feed.options;
  options.cancel = feed.cancel;
  // A small file goes line by line (see FolderFeed): a torchrun folder of a big job holds
  // thousands of small files (6,429 of 12 KiB: 1.7 s line by line, 2.7 s each through the
  // pipeline) and a few big ones.
  auto parallel = [&](uintmax_t bytes) { return feed.matcher && bytes >= feed.pipelineFrom; };
  size_t seen = 0;
  for (const auto& input : inputs) {
    if (feed.cancel && feed.cancel->load(std::memory_order_relaxed)) break;
    if (feed.progress && seen > 0) feed.progress(seen, inputs.size(), inputs[seen - 1].name);
    ++seen;
    if (input.errorFile || texts) {
      std::string why;
      std::optional<std::string> text;
      if (texts && !input.errorFile) text = readFile(input.path, why, {true, maxTextBytes});
      else text = readLogInput(input, why);
      if (!text) {
        skip(why);
        continue;
      }
      diagnoser.beginSource(input.name, input.rank);
      if (parallel(text->size())) feedText(diagnoser, *feed.matcher, *text, options);
      else diagnoser.addText(*text);
      if (texts) texts->push_back(std::move(*text));
      fed.push_back(input);
      continue;
    }
    // A log file: a megabyte at a time.
    std::ifstream in(input.path, std::ios::binary);
    if (!in) {
      skip(input.path.string() + ": cannot be read (permission denied?)");
      continue;
    }
    diagnoser.beginSource(input.name, input.rank);
    bool readError = false;
    std::error_code sizeError;
    uintmax_t size = fs::file_size(input.path, sizeError);
    if (!sizeError && parallel(size)) {
      readError = !feedStream(diagnoser, *feed.matcher, in, options);
    } else {
      std::string chunk(size_t{1} << 20, '\0');
      while (in) {
        in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        diagnoser.addText(std::string_view(chunk.data(), static_cast<size_t>(in.gcount())));
      }
      readError = in.bad();
    }
    if (readError && warnings) warnings->push_back("stopped reading " + input.path.string() + ": read error");
    fed.push_back(input);
  }
  if (fed.empty() && !firstProblem.empty()) error = firstProblem;
  return fed;
}

}  // namespace denpex::io
