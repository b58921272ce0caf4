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
  auto bytes = readCacheFile(fileFor(key), kMaxFileBytes);
  if (!bytes) return std::nullopt;
  std::string_view in(*bytes);
  if (in.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  in.remove_prefix(kMagic.size());
  size_t nl = in.find('\n');
  if (nl == std::string_view::npos || in.substr(0, nl) != std::to_string(key.size())) return std::nullopt;
  in.remove_prefix(nl + 1);
  if (in.substr(0, key.size()) != key) return std::nullopt;  // other files under the same hash
  in.remove_prefix(key.size());
  auto files = core::decodeParsedRuleFiles(in);
  if (!files) return std::nullopt;
  return std::move(*files);
}

void store(const std::string& key, const std::vector<core::ParsedRuleFile>& files) {
  std::string out(kMagic);
  out += std::to_string(key.size());
  out += '\n';
  out += key;
  out += core::encodeParsedRuleFiles(files);
  if (out.size() > kMaxFileBytes || !writeCacheFile(fileFor(key), out)) return;
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
