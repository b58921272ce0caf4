// Parsed rule folders cached on disk (see rule_cache.h).
#include "io/rule_cache.h"

#include <cstdio>
#include <string>
#include <string_view>

#include "core/base/text.h"
#include "core/rules/rule_bundle.h"
#include "io/cache_files.h"

namespace denpex::io {

namespace {

constexpr std::string_view kMagic = "denpex-rule-cache-1\n";
constexpr size_t kMaxFileBytes = 64u << 20;
constexpr size_t kMaxFiles = 16;

// What a parse was made from, in full: this build, then each file's path and bytes.
std::string keyOf(std::string_view build, const std::vector<core::RuleSource>& sources) {
  std::string key;
  auto add = [&](std::string_view s) {
    key += std::to_string(s.size());
    key += ':';
    key += s;
  };
  add(build);
  for (const auto& s : sources) {
    add(s.path);
    add(s.text);
  }
  return key;
}

std::string fileFor(const std::string& key) {
  char name[64];
  std::snprintf(name, sizeof name, "rules-%016llx.bin", static_cast<unsigned long long>(core::text::fnv1a(key)));
  return name;
}

std::optional<std::vector<core::ParsedRuleFile>> load(const std::string& key) {
  auto payload = readKeyedCacheFile(fileFor(key), kMagic, key, kMaxFileBytes);
  if (!payload) return std::nullopt;
  auto files = core::decodeParsedRuleFiles(*payload);
  if (!files) return std::nullopt;
  return std::move(*files);
}

void store(const std::string& key, const std::vector<core::ParsedRuleFile>& files) {
  if (writeKeyedCacheFile(fileFor(key), kMagic, key, core::encodeParsedRuleFiles(files), kMaxFileBytes))
    keepNewestCacheFiles("rules-", kMaxFiles);
}

}  // namespace

std::vector<core::ParsedRuleFile> parseRuleFilesCached(const std::vector<core::RuleSource>& sources) {
  std::string_view build = thisBuild();
  if (build.empty() || sources.empty()) return core::parseRuleFiles(sources);
  std::string key = keyOf(build, sources);
  if (auto cached = load(key)) return std::move(*cached);
  auto files = core::parseRuleFiles(sources);
  store(key, files);
  return files;
}

}  // namespace denpex::io
