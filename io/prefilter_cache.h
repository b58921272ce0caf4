// A cache of compiled prefilters on disk, so that rules of one's own cost the Vectorscan compile
// once, not on every run: `denpex diagnose --rules DIR` on a big log, the language server's
// first big log after a start. The shipped rules never need it (their database is in the binary).
//
// In the cache folder (io/cache_files.h: where it is, and how its files are read and written
// safely): one file per rule set, named by a hash of its patterns, holding the exact patterns it
// was compiled from: a file for other patterns (a hash collision) is never used. At most 16 are
// kept. Nothing here ever fails a diagnosis: a cache that cannot be read or written is no cache.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "core/rules/prefilter.h"

namespace denpex::io {

// The cache folder in use, or none (turned off, or no home).
std::optional<std::filesystem::path> prefilterCacheDir();

// The prefilter cached for exactly these patterns and literals, or null.
std::unique_ptr<core::Prefilter> loadCachedPrefilter(const core::Matcher& matcher,
                                                     const std::vector<core::PrefilterLiteral>& literals);
// Stores `prefilter` (made from these patterns and literals); false when it could not.
bool storeCachedPrefilter(const core::Matcher& matcher, const std::vector<core::PrefilterLiteral>& literals,
                          const core::Prefilter& prefilter);

}  // namespace denpex::io
