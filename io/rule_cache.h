// Rule folders parsed once, not on every run. yaml-cpp reads rule files at a few megabytes a
// second: a folder of 70 rules cost 140 ms at every `denpex diagnose --rules DIR`, every start of
// the language server in a workspace with .denpex/rules, and every edit of a rule there.
//
// In the cache folder (io/cache_files.h: where it is, and how its files are read and written
// safely): one file per set of rule files, named by a hash of them, holding what it was made from
// in full (this build's id, then each file's path and bytes), compared byte for byte before its
// parse is used. A file made by another build, or for other bytes, is never used. At most 16 are
// kept. Nothing here ever fails a load: a cache that cannot be read or written is no cache.
#pragma once

#include <vector>

#include "core/rules/rule.h"

namespace denpex::io {

// core::parseRuleFiles(sources), from the cache when this build parsed exactly these files
// before; otherwise parsed, and the result cached.
std::vector<core::ParsedRuleFile> parseRuleFilesCached(const std::vector<core::RuleSource>& sources);

}  // namespace denpex::io
