// Incident: across ranks, which failure came first and which ones only followed from it.
//
// When a distributed job dies every rank prints an error, and the loudest one is usually not
// the cause. The incident names the initiating rank and its failure, and marks every other
// rank's failure as collateral (with the reason) or independent. It also reads what the
// launcher said (torchrun's failure summary: ranks, exit codes, pids, signals, and its own
// "Root Cause (first observed failure)") and says where that disagrees.
//
// The incident is a value computed from the findings; it never writes into them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/analyze/finding.h"
#include "core/parse/launcher.h"

namespace denpex::core {

struct RankRole {
  int rank = -1;
  std::string host;
  std::string role;     // initiator | collateral | independent | no-error
  std::string reason;   // why this role
  std::string failure;  // the rule id of the rank's first failure ("" when none)
  std::string title;    // its verdict
  std::string time;     // the first failure's timestamp as printed, "" when none
  std::optional<int> exitCode;
  bool hasEvidence = false;
  uint32_t source = 0;
  uint64_t line = 0;    // the first failure's line (0-based)
};

struct Incident {
  std::optional<int> initiatingRank;
  std::string initiatingReason;            // how the initiator was chosen
  std::vector<RankRole> ranks;             // ascending by rank
  std::optional<int> launcherRootCause;    // torchrun's "first observed failure"
  std::string launcherNote;                // where denpex disagrees with it, and why
  // Indices into the findings it was built from (Diagnosis::findings once they are ordered):
  // the initiating failure, and the findings seen only on collateral ranks after it, with why.
  std::optional<size_t> initiatingFinding;
  std::map<size_t, std::string> collateralFindings;
  bool empty() const { return ranks.empty(); }
};

// Names the initiating rank and failure and gives every rank its role. `findings` are the
// diagnosis's findings in any order (the incident's finding indices refer to that order);
// `ranksSeen` are the ranks that printed any line. Returns an empty incident for a log of one
// process. Pure: reads its arguments only.
Incident buildIncident(const std::vector<Finding>& findings, const LauncherTracker& launcher,
                       const std::set<int>& ranksSeen);

}  // namespace denpex::core
