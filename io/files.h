// Reading files from disk, with the error a user can act on.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace denpex::io {

// Reads a whole file; nullopt with `error` set ("<path>: no such file", "...: is a directory",
// "...: cannot be read (permission denied?)", "...: read error") otherwise. Thread-safe.
std::optional<std::string> readFile(const std::filesystem::path& path, std::string& error);

}  // namespace denpex::io
