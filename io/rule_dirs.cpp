// Rule folders (see rule_dirs.h).
#include "io/rule_dirs.h"

#include <algorithm>

#include "core/rules/rule_bundle.h"
#include "io/files.h"
#include "io/rule_cache.h"

namespace denpex::io {

namespace fs = std::filesystem;

std::vector<core::RuleSource> readRuleDir(const fs::path& dir, std::vector<core::RuleError>& errors) {
  std::vector<core::RuleSource> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    errors.push_back({dir.string(), 0, "not a folder of rules"});
    return out;
  }
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    auto ext = it->path().extension();
    if (ext == ".yaml" || ext == ".yml") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string error;
    // Past the loader's limit it would be refused anyway: not read at all.
    if (auto size = fs::file_size(f, ec); !ec && size > (uintmax_t{1} << 20)) {
      errors.push_back({f.string(), 0, "the file is " + std::to_string(size >> 10) + " KiB; a rule file may be at most 1024 KiB"});
      continue;
    }
    auto text = readFile(f, error);
    if (!text) {
      errors.push_back({f.string(), 0, error});
      continue;
    }
    out.push_back({f.string(), std::move(*text)});
  }
  return out;
}

LoadedRules loadRules(const RuleLoadOptions& options) {
  LoadedRules load;
  if (options.builtin) {
    // The bundle made at build time; its YAML only if the bundle were unreadable (never, in a
    // build that made it).
    auto bundled = core::decodeRules(core::builtinRuleBundle());
    if (bundled) {
      load.rules.addParsed(std::move(*bundled));
    } else {
      auto errs = load.rules.add(core::builtinRuleSources(), core::RuleOrigin::kShipped);
      load.errors.insert(load.errors.end(), errs.begin(), errs.end());
    }
  }
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const auto& root : options.roots) {
    fs::path d = root.empty() ? fs::path(".denpex/rules") : root / ".denpex/rules";
    if (fs::is_directory(d, ec)) dirs.push_back(d);
  }
  for (const auto& d : options.extraDirs) {
    fs::path p(d);
    if (p.is_relative() && !options.base.empty()) p = options.base / p;
    dirs.push_back(p);
  }
  for (const auto& d : dirs) {
    auto sources = readRuleDir(d, load.errors);
    auto errs = load.rules.add(parseRuleFilesCached(sources), core::RuleOrigin::kUser);
    load.errors.insert(load.errors.end(), errs.begin(), errs.end());
    size_t count = 0;
    for (const auto& s : sources)
      for (const auto& r : load.rules.rules()) count += r->file == s.path;
    load.folders.emplace_back(d.string(), count);
  }
  load.matcher = std::make_unique<core::Matcher>(load.rules);
  return load;
}

}  // namespace denpex::io
