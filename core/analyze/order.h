// The order findings are read in: the incident's initiating failure first, then root causes,
// symptoms and collateral failures (ARCHITECTURE.md, "Ordering of findings").
#pragma once

#include <vector>

#include "core/analyze/finding.h"
#include "core/analyze/incident.h"

namespace denpex::core {

// Sorts `findings` (stable) and re-points the incident's finding indices at the new order.
void orderFindings(std::vector<Finding>& findings, Incident& incident);

}  // namespace denpex::core
