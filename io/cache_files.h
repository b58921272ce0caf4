// Files in denpex's cache folder, read and written safely whatever else shares the folder: the
// compiled prefilters (prefilter_cache.h), parsed rule folders (rule_cache.h) and what nvidia-smi
// said (machine_probe.h).
//
// Where: $XDG_CACHE_HOME/denpex, else $HOME/.cache/denpex; DENPEX_CACHE_DIR overrides both, and
// DENPEX_CACHE_DIR=off turns the cache off. Only a folder and files owned by this user and
// writable by no one else are read, links are not followed, and files are written whole (a
// temporary file, then a rename), readable by this user alone. Nothing here ever fails what uses
// it: a cache that cannot be read or written is no cache.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace denpex::io {

// The cache folder in use, or none (turned off, or no home).
std::optional<std::filesystem::path> cacheDir();

// The content of the cache file `name` (a plain file name), or none: no cache, no such file, a
// file or folder another user could have written, or one over `maxBytes`.
std::optional<std::string> readCacheFile(const std::string& name, size_t maxBytes);

// Writes the cache file `name` whole, creating the folder; false when it could not.
bool writeCacheFile(const std::string& name, std::string_view bytes);

// A cache file that holds what it was made from: `magic`, then `key` in full, then the payload.
// readKeyedCacheFile gives the payload only when the file's key is exactly `key` (never merely
// one with the same hash in its name); writeKeyedCacheFile is false when it could not write or
// the whole would pass `maxBytes`.
std::optional<std::string> readKeyedCacheFile(const std::string& name, std::string_view magic, std::string_view key,
                                              size_t maxBytes);
bool writeKeyedCacheFile(const std::string& name, std::string_view magic, std::string_view key, std::string_view payload,
                         size_t maxBytes);

// Removes all but the newest `keep` cache files whose names start with `prefix`.
void keepNewestCacheFiles(std::string_view prefix, size_t keep);

// The build-id of the running denpex (the linker's hash of its code and data), empty when it has
// none: what is cached from this build's own reading of files is valid for this build alone.
std::string_view thisBuild();

}  // namespace denpex::io
