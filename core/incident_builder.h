// Builds the cross-rank incident from a diagnosis's findings (used by the diagnoser only).
#pragma once

#include <set>
#include <vector>

#include "core/diagnoser.h"
#include "core/incident.h"

namespace denpex::core {

// Names the initiating rank, gives every rank its role, marks the initiating finding and makes
// findings seen only on collateral ranks collateral.
Incident buildIncident(std::vector<Finding>& findings, const LauncherTracker& launcher, const std::set<int>& ranksSeen);

}  // namespace denpex::core
