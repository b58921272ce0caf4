// Rule folders on disk and the order in which they override each other. The CLI and the
// language server load rules through the same function, so a rule that works in one works in
// the other.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/rules/matcher.h"
#include "core/rules/rule.h"

namespace denpex::io {

// Reads every *.yaml / *.yml file below `dir`, sorted by path. A missing folder or an
// unreadable file becomes an error in `errors`; the other files are read.
std::vector<core::RuleSource> readRuleDir(const std::filesystem::path& dir, std::vector<core::RuleError>& errors);

struct RuleLoadOptions {
  bool builtin = true;                      // the shipped rules, embedded in the binary
  std::vector<std::filesystem::path> roots; // trusted workspace folders: each one's .denpex/rules, when present
  std::vector<std::string> extraDirs;       // --rules DIR / the `rules` setting, in order
  std::filesystem::path base;               // relative extra dirs are taken below this (empty: as given)
};

// The loaded rules compiled with their matcher. Immutable once made: share it between threads
// through a shared_ptr<const LoadedRules>.
struct LoadedRules {
  core::RuleSet rules;
  std::vector<core::RuleError> errors;  // per file and line; the other rules loaded
  // The rule folders read besides the shipped rules, with how many rules each gave, in order:
  // what a user is told is in use.
  std::vector<std::pair<std::string, size_t>> folders;
  std::unique_ptr<core::Matcher> matcher;
};

// Loads the shipped rules, then each root's .denpex/rules, then each extra folder, as user rules
// (see RuleSet::add: a shipped rule is replaced only by a rule that says `overrides:`, and two
// user rules may not share an id); compiles the matcher. Never fails as a whole: problems are
// in `errors`. Rules from a folder are code from wherever the folder came from: callers pass
// roots and folders only where the user asked for them or trusts the workspace.
LoadedRules loadRules(const RuleLoadOptions& options);

}  // namespace denpex::io
