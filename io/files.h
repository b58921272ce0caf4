// Reading files from disk, with the error a user can act on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace denpex::io {

struct ReadLimits {
  // Refuse what is not a regular file (a FIFO would block, /dev/zero would never end).
  bool regularOnly = false;
  uintmax_t maxBytes = UINTMAX_MAX;
};

// Reads a whole file; nullopt with `error` set ("<path>: no such file", "...: is a directory",
// "...: cannot be read (permission denied?)", "...: read error", "...: not a regular file",
// "...: N MiB, over the limit of M MiB") otherwise. Thread-safe.
std::optional<std::string> readFile(const std::filesystem::path& path, std::string& error, ReadLimits limits = {});

// Opens a log to be read as a stream, never held whole: a regular file only, with readFile's
// errors (no size limit: the reader's memory does not grow with the file). `size` is its size
// when it was opened (for progress). Nullopt with `error` set otherwise.
std::optional<std::ifstream> openLogStream(const std::filesystem::path& path, std::string& error, uintmax_t* size = nullptr);

// The text of some lines of a file (0-based numbers; any order, repeats allowed), read in one
// pass that stops after the last of them: each without its '\n' (and a '\r' before it), cut to
// `maxLineBytes`. A streamed diagnosis keeps no text: the editor's positions of its evidence are
// measured on these lines, read again. Lines past the end of the file (it shrank) are absent.
// Nullopt with `error` set when the file cannot be read.
std::optional<std::map<uint64_t, std::string>> readLinesAt(const std::filesystem::path& path, std::vector<uint64_t> lines,
                                                          std::string& error, size_t maxLineBytes = size_t{1} << 20);

// A config that another file names (the DeepSpeed JSON a script's TrainingArguments point at) is
// read only to be compared, and only when it is a regular *.json file of at most 1 MiB: nullopt
// for another name, the limits to read it within otherwise.
std::optional<ReadLimits> namedConfigLimits(const std::filesystem::path& path);

// Replaces the contents of an existing regular file whose contents are still `expected`, so that
// a reader never sees half a file: a temporary file is created exclusively beside it (a name no
// one can plant a link at), written, given the file's mode, owner and group, and renamed over it.
// Refuses, with `error` set and the file untouched: a symbolic link (its target is what would
// change), a file with other hard links (they would keep the old text), a file this user may not
// write, a file whose owner or group cannot be kept, and a file that changed since it was read.
bool replaceFile(const std::filesystem::path& path, const std::string& expected, const std::string& contents,
                 std::string& error);

// The project a folder belongs to: the nearest folder at or above it holding a `.git` (a
// repository's root), else the folder itself. Absolute and lexically normal.
std::filesystem::path projectRoot(const std::filesystem::path& folder);

// denpex's documentation folder (the one holding rules/README.md), found beside the running
// binary: docs/ next to it (the editor extension's server folder), or in the source tree it was
// built in (build/denpex, build/tests/...), or share/denpex/docs of an installation. None when
// there is none.
std::optional<std::filesystem::path> installedDocs();

}  // namespace denpex::io
