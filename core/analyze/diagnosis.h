// Diagnosis: what the diagnoser returns. Findings in their final order and the incident across
// ranks that refers to them by index. A plain value: copyable, immutable once made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analyze/finding.h"
#include "core/analyze/incident.h"

namespace denpex::core {

struct Diagnosis {
  std::vector<std::string> sources;  // names of the inputs, indexed by Evidence::source
  std::vector<Finding> findings;     // the initiating failure first, then root causes, symptoms, collateral
  uint64_t lines = 0;
  // Lines that named a rank the run cannot have (at or past the world size the log stated, or
  // past the rank table's 8192 ranks), read as lines without a rank.
  uint64_t linesOutsideRanks = 0;
  Incident incident;                 // across ranks; empty for a single-process log

  // The incident's initiating failure.
  bool initiating(size_t finding) const { return incident.initiatingFinding == finding; }
  // The finding's rule's role, unless the incident showed it to be collateral.
  Role role(size_t finding) const {
    return incident.collateralFindings.count(finding) ? Role::kCollateral : findings[finding].rule->role;
  }
  // Why the incident made the finding collateral; empty when it did not.
  std::string collateralReason(size_t finding) const {
    auto it = incident.collateralFindings.find(finding);
    return it == incident.collateralFindings.end() ? std::string() : it->second;
  }
};

}  // namespace denpex::core
