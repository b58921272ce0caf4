// What `denpex rules test --snapshots` checks beyond "the rule fires": a snapshot of every
// example's diagnosis (each finding in order, its role, its evidence lines with columns, its
// captures), and for rules with source fixes the exact fixed files (Semgrep's `.fixed`).
//
// Layout, below an examples folder:
//   <id>/snapshot.txt                 one section per example ("== match/<name>")
//   <id>/fix/<case>/*.log             a log that gives the rule
//   <id>/fix/<case>/<file>            the user's source as it was
//   <id>/fix/<case>/<file>.fixed      the same file after the rule's fix
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/analyze/diagnosis.h"
#include "core/rules/matcher.h"
#include "core/rules/rule.h"

namespace denpex::cli {

// A unified diff from `want` to `got`, for failure messages.
std::string textDiff(const std::string& name, const std::string& want, const std::string& got);

// One example's diagnosis as stable text.
std::string exampleSnapshot(const core::Diagnosis& d);

// The rule's snapshot file: a section per example, must-match ones first, in their order.
std::string ruleSnapshot(const core::Rule& rule, const core::RuleSet& rules, const core::Matcher& matcher);

// Runs the rule's fix cases below `fixDir`; writes the .fixed files when `update`. Returns one
// line per failure (empty: all passed). A rule with edits and no case fails.
std::vector<std::string> checkFixes(const core::Rule& rule, const std::filesystem::path& fixDir, const core::RuleSet& rules,
                                    const core::Matcher& matcher, bool update);

// Patterns of the rule that scan slowly (RE2's DFA gives up on them and its slow path takes
// over: `[ab]*a[ab]{20}z`), measured on the rule's examples and on lines made of the characters
// the pattern names, against a plain pattern on the same text. One line per offender.
std::vector<std::string> slowPatterns(const core::Rule& rule);

}  // namespace denpex::cli
