// Folders of per-rank logs: which files they hold, which rank each belongs to, and feeding
// them into a diagnoser as one run. Reads the disk; keeps no state; safe from any thread (a
// Diagnoser passed in belongs to the caller's thread).
#pragma once

#include <cstdint>
#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/analyze/diagnoser.h"
#include "io/parallel_feed.h"

namespace denpex::io {

// One log of a run: a file, the name to show, and the rank it belongs to (-1: the lines say).
struct LogInput {
  std::filesystem::path path;
  std::string name;
  int rank = -1;
  bool errorFile = false;  // torchelastic's error.json: its traceback, not log lines
};

// The logs in a folder of per-rank logs: torchrun's --log_dir layout
// (<run>/attempt_N/<rank>/stdout.log, stderr.log, error.json), DeepSpeed's or a launcher's one
// file per rank ("rank3.log", "worker-3.log", "node_3.out") or per host. Folder by folder, and
// in a folder in the order a process writes them (stdout, other files by name, error.json). The
// rank comes from the nearest all-digit folder, else from the file name. At most `maxLogs` logs
// are kept and a million folder entries looked at (a folder of a 4,096-GPU job holds some
// 12,000 logs): past either, `cut` is set and the walk stops, so a folder of millions of files
// costs no more memory than that.
constexpr size_t kMaxFolderLogs = 65536;
std::vector<LogInput> logsInFolder(const std::filesystem::path& dir, size_t maxLogs = kMaxFolderLogs, bool* cut = nullptr);

// The bytes of the logs in a folder (logsInFolder's), for choosing how to read them.
uintmax_t folderLogBytes(const std::filesystem::path& dir);

// The text to diagnose for an input: the file, or for error.json its recorded traceback.
std::optional<std::string> readLogInput(const LogInput& input, std::string& error);

// Feeds every log of a per-rank folder into `diagnoser`, one input per file with its rank, and
// returns the inputs fed. A file that cannot be read is skipped with a line in `warnings`; when
// none can be, `error` says why. Without `texts` a file is read in blocks (memory stays flat
// whatever the folder holds); `texts`, when given, receives each input's text (the language
// server publishes on the files), and a file over `maxTextBytes` is skipped.
// `feed` may stop the reading between files, or inside one (cancel), and hears after each file
// (progress). With its matcher, the files go one after the other through one pipeline on every
// core, with the prefilter its options name (io::feedSources: the same diagnosis as line by
// line, faster, however small the files); without, line by line on this thread.
struct FolderFeed {
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(size_t done, size_t total, const std::string& name)> progress;
  const core::Matcher* matcher = nullptr;  // the diagnoser's
  FeedOptions options;                     // its cancel is `cancel`
};
std::vector<LogInput> feedFolder(const std::filesystem::path& dir, core::Diagnoser& diagnoser, std::string& error,
                                 std::vector<std::string>* texts = nullptr, std::vector<std::string>* warnings = nullptr,
                                 uintmax_t maxTextBytes = UINTMAX_MAX, const FolderFeed& feed = {});

}  // namespace denpex::io
