// Lint: whether a loaded rule is complete enough to ship: the knowledge fields, at least two
// examples each way, an id equal to its file name. Pure.
#pragma once

#include <vector>

#include "core/rules/rule.h"

namespace denpex::core {

// Returns the problems found, each with the rule's file; empty when the rule may ship.
std::vector<RuleError> lintRule(const Rule& rule);

}  // namespace denpex::core
