// Compiled prefilters cached on disk (see prefilter_cache.h).
#include "io/prefilter_cache.h"

#include <cstdio>
#include <string>
#include <system_error>

#include "io/cache_files.h"

namespace denpex::io {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "denpex-prefilter-cache-1\n";
constexpr size_t kMaxFileBytes = 256u << 20;
constexpr size_t kMaxFiles = 16;

// What the database was compiled from, in full: compared byte for byte before it is used.
std::string keyOf(const core::Matcher& matcher, const std::vector<core::PrefilterLiteral>& literals) {
  std::string key;
  auto add = [&](std::string_view s) {
    key += std::to_string(s.size());
    key += ':';
    key += s;
  };
  for (size_t i = 0; i < matcher.patternCount(); ++i) add(matcher.patternText(i));
  key += "|literals|";
  for (const auto& l : literals) {
    add(l.text);
    key += l.caseless ? 'i' : '-';
  }
  return key;
}

std::string fileFor(const core::Matcher& matcher, const std::vector<core::PrefilterLiteral>& literals) {
  char name[64];
  std::snprintf(name, sizeof name, "prefilter-%016llx.bin",
                static_cast<unsigned long long>(core::Prefilter::fingerprint(matcher, literals)));
  return name;
}

}  // namespace

std::optional<fs::path> prefilterCacheDir() { return cacheDir(); }

std::unique_ptr<core::Prefilter> loadCachedPrefilter(const core::Matcher& matcher,
                                                     const std::vector<core::PrefilterLiteral>& literals) {
  auto saved = readKeyedCacheFile(fileFor(matcher, literals), kMagic, keyOf(matcher, literals), kMaxFileBytes);
  return saved ? core::Prefilter::load(matcher, literals, *saved) : nullptr;
}

bool storeCachedPrefilter(const core::Matcher& matcher, const std::vector<core::PrefilterLiteral>& literals,
                          const core::Prefilter& prefilter) {
  std::string saved = prefilter.save();
  if (saved.empty()) return false;
  if (!writeKeyedCacheFile(fileFor(matcher, literals), kMagic, keyOf(matcher, literals), saved, kMaxFileBytes)) return false;
  keepNewestCacheFiles("prefilter-", kMaxFiles);
  return true;
}

}  // namespace denpex::io
