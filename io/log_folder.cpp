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

uintmax_t folderLogBytes(const fs::path& dir) {
  uintmax_t total = 0;
  std::error_code ec;
  for (const auto& input : logsInFolder(dir)) {
    uintmax_t size = fs::file_size(input.path, ec);
    if (!ec) total += size;
  }
  return total;
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
  // Opens the next input that can be read: its text (an error file, or every file when the
  // caller keeps the texts) or its stream. False at the end, or once cancelled.
  size_t at = 0;
  std::ifstream in;
  std::string text;
  bool inMemory = false;
  auto open = [&]() -> bool {
    while (at < inputs.size()) {
      if (feed.cancel && feed.cancel->load(std::memory_order_relaxed)) return false;
      const LogInput& input = inputs[at++];
      if (input.errorFile || texts) {
        std::string why;
        std::optional<std::string> read =
            texts && !input.errorFile ? readFile(input.path, why, {true, maxTextBytes}) : readLogInput(input, why);
        if (!read) {
          skip(why);
          continue;
        }
        text = std::move(*read);
        inMemory = true;
      } else {
        in = std::ifstream(input.path, std::ios::binary);
        if (!in) {
          skip(input.path.string() + ": cannot be read (permission denied?)");
          continue;
        }
        inMemory = false;
      }
      fed.push_back(input);
      return true;
    }
    return false;
  };
  // After an input was read: a failed read said, its text kept for the caller.
  auto close = [&](bool readError) {
    if (readError && warnings) warnings->push_back("stopped reading " + fed.back().path.string() + ": read error");
    if (inMemory && texts) texts->push_back(std::move(text));
    in.close();
  };
  // Input k (0-based) of those fed begins: the one before it is done.
  auto begun = [&](size_t k) {
    if (feed.progress && k > 0) feed.progress(k, inputs.size(), fed[k - 1].name);
  };

  if (feed.matcher) {
    // Every input through one pipeline, on every core.
    bool readError = false, pending = false;
    auto next = [&](FeedSource& source) {
      if (pending) close(readError);
      readError = false;
      pending = open();
      if (!pending) return false;
      source.name = fed.back().name;
      source.rank = fed.back().rank;
      if (inMemory) {
        source.text = text;
      } else {
        source.stream = &in;
        source.failed = &readError;
      }
      return true;
    };
    FeedOptions options = feed.options;
    options.cancel = feed.cancel;
    feedSources(diagnoser, *feed.matcher, next, begun, options);
    if (pending) close(readError);
  } else {
    while (open()) {
      begun(fed.size() - 1);
      diagnoser.beginSource(fed.back().name, fed.back().rank);
      bool readError = false;
      if (inMemory) {
        diagnoser.addText(text);
      } else {  // a megabyte at a time
        std::string chunk(size_t{1} << 20, '\0');
        while (in) {
          in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
          diagnoser.addText(std::string_view(chunk.data(), static_cast<size_t>(in.gcount())));
        }
        readError = in.bad();
      }
      close(readError);
    }
  }
  if (fed.empty() && !firstProblem.empty()) error = firstProblem;
  return fed;
}

}  // namespace denpex::io
