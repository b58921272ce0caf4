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
  auto bytes = readCacheFile(fileFor(matcher, literals), kMaxFileBytes);
  if (!bytes) return nullptr;
  std::string_view in(*bytes);
  if (in.substr(0, kMagic.size()) != kMagic) return nullptr;
  in.remove_prefix(kMagic.size());
  std::string key = keyOf(matcher, literals);
  size_t nl = in.find('\n');
  if (nl == std::string_view::npos || in.substr(0, nl) != std::to_string(key.size())) return nullptr;
  in.remove_prefix(nl + 1);
  if (in.substr(0, key.size()) != key) return nullptr;  // other patterns under the same hash
  in.remove_prefix(key.size());
  return core::Prefilter::load(matcher, literals, in);
}

bool storeCachedPrefilter(const core::Matcher& matcher, const std::vector<core::PrefilterLiteral>& literals,
                          const core::Prefilter& prefilter) {
  std::string saved = prefilter.save();
  if (saved.empty()) return false;
  std::string key = keyOf(matcher, literals);
  std::string out(kMagic);
  out += std::to_string(key.size());
  out += '\n';
  out += key;
  out += saved;
  if (out.size() > kMaxFileBytes || !writeCacheFile(fileFor(matcher, literals), out)) return false;
  keepNewestCacheFiles("prefilter-", kMaxFiles);
  return true;
}

}  // namespace denpex::io
