// The shipped rules as one binary bundle, made at build time from their YAML: loading it at
// start-up costs a copy of its bytes, where parsing the YAML cost most of denpex's start-up.
// The fields are listed once, for writing and reading alike (rule_bundle.cpp), and a test checks
// that every shipped rule comes back from the bundle as its YAML says.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/expected.h"
#include "core/rules/rule.h"

namespace denpex::core {

std::string encodeRules(const std::vector<std::shared_ptr<const Rule>>& rules);
// Fails on bytes that are not a bundle of this version (never on a bundle this build made).
// Signals come without compiled regexes: the Matcher compiles them.
Expected<std::vector<Rule>> decodeRules(std::string_view bytes);

// Parsed rule files (their rules and their problems) to bytes and back, in the same format: what
// a cache of parsed rule folders holds. Fails on bytes that are not such a list of this version.
std::string encodeParsedRuleFiles(const std::vector<ParsedRuleFile>& files);
Expected<std::vector<ParsedRuleFile>> decodeParsedRuleFiles(std::string_view bytes);

// The bundle built from rules/ (generated at build time).
std::string_view builtinRuleBundle();
// The shipped rules' line prefilter (Prefilter::save), compiled at build time for any x86-64.
std::string_view builtinPrefilter();

}  // namespace denpex::core
