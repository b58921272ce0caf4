// Fuzz target: a rule file of arbitrary text. Loading never crashes; a rule that loads is
// compiled into a matcher, linted, and run over its own examples.
#include <cstdint>
#include <string>
#include <vector>

#include "core/analyze/diagnoser.h"
#include "core/rules/lint.h"
#include "core/rules/matcher.h"
#include "core/rules/rule.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  denpex::core::RuleSet set;
  auto errors = set.add({{"fuzz.yaml", text}}, denpex::core::RuleOrigin::kUser);
  if (set.rules().empty()) return 0;
  const denpex::core::Rule& rule = *set.rules().front();
  denpex::core::lintRule(rule);
  denpex::core::Matcher matcher(set);
  for (const auto* list : {&rule.matchExamples, &rule.noMatchExamples})
    for (const auto& ex : *list)
      if (ex.text.size() < 4096) denpex::core::diagnoseText(set, matcher, ex.text, "example");
  return 0;
}
