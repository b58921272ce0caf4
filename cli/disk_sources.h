// Files on disk for fixes: reading them, and a SourceProvider over a folder. Shared by the CLI
// and the language server (which puts the editor's open buffers in front of it).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnoser.h"
#include "core/fix_planner.h"
#include "core/rule.h"

namespace denpex::cli {

// Reads a whole file; nullopt with `error` set when it is missing, a directory or unreadable.
std::optional<std::string> readFile(const std::filesystem::path& path, std::string& error);

// Reads every *.yaml / *.yml file below `dir`, sorted by path. Unreadable entries become errors.
std::vector<core::RuleSource> readRuleDir(const std::filesystem::path& dir, std::vector<core::RuleError>& errors);

// One log of a run: a file, the name to show, and the rank it belongs to (-1: the lines say).
struct LogInput {
  std::filesystem::path path;
  std::string name;
  int rank = -1;
  bool errorFile = false;  // torchelastic's error.json: its traceback, not log lines
};

// The logs in a folder of per-rank logs: torchrun's --log_dir layout
// (<run>/attempt_N/<rank>/stdout.log, stderr.log, error.json), DeepSpeed's or a launcher's one
// file per rank ("rank3.log", "worker-3.log", "node_3.out") or per host. Sorted by path. The
// rank comes from the nearest all-digit folder, else from the file name.
std::vector<LogInput> logsInFolder(const std::filesystem::path& dir);

// The text to diagnose for an input: the file, or for error.json its recorded traceback.
std::optional<std::string> readLogInput(const LogInput& input, std::string& error);

// Feeds every log of a per-rank folder into `diagnoser`, one input per file with its rank, and
// returns the inputs fed. On an unreadable file sets `error` and stops. `texts`, when given,
// receives each input's text (the language server publishes on the files).
std::vector<LogInput> feedFolder(const std::filesystem::path& dir, core::Diagnoser& diagnoser, std::string& error,
                                 std::vector<std::string>* texts = nullptr);

// Files on disk under a root folder. Paths from tracebacks are tried as given, then relative
// to the root, then by their trailing components below the root (a log recorded on another
// machine names the same train.py under another prefix).
class DiskSources : public core::SourceProvider {
 public:
  explicit DiskSources(std::filesystem::path root) : root_(std::move(root)) {}
  std::optional<core::SourceFile> open(const std::string& path) override;
  std::vector<std::string> candidates() override;

  // The file a traceback path names, below the root (see above); nullopt when none.
  std::optional<std::filesystem::path> resolve(const std::string& path);
  // The .py and .json files below the root, skipping virtual environments, caches and VCS
  // folders; bounded so that a home folder given by mistake does not take minutes.
  const std::vector<std::filesystem::path>& walk();
  const std::filesystem::path& root() const { return root_; }

 private:

  std::filesystem::path root_;
  std::optional<std::vector<std::filesystem::path>> files_;
};

}  // namespace denpex::cli
