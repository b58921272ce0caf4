// Lint: what a rule needs before it ships, beyond what loading checks (see lint.h).
#include "core/rules/lint.h"

namespace denpex::core {

std::vector<RuleError> lintRule(const Rule& rule) {
  std::vector<RuleError> out;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) out.push_back({rule.file, 0, "rule '" + rule.id + "': " + what});
  };
  std::string base = rule.file.substr(rule.file.find_last_of("/\\") + 1);
  if (base.size() > 5 && base.substr(base.size() - 5) == ".yaml")
    need(base.substr(0, base.size() - 5) == rule.id, "id must equal the file name ('" + base + "')");
  need(!rule.rootCause.empty(), "missing 'root_cause'");
  need(!rule.fix.empty(), "missing 'fix'");
  need(!rule.confirm.empty(), "missing 'confirm' checklist");
  need(!rule.verify.empty(), "missing 'verify'");
  // The fallback rule too: its examples are exceptions no other rule explains, and ones they do.
  need(rule.matchExamples.size() >= 2, "needs at least 2 examples that must match (has " +
                                           std::to_string(rule.matchExamples.size()) + ")");
  need(rule.noMatchExamples.size() >= 2, "needs at least 2 examples that must not match (has " +
                                             std::to_string(rule.noMatchExamples.size()) + ")");
  return out;
}

}  // namespace denpex::core
