// Finding order (see order.h).
#include "core/analyze/order.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace denpex::core {

void orderFindings(std::vector<Finding>& findings, Incident& incident) {
  auto role = [&](size_t i) {
    return incident.collateralFindings.count(i) ? Role::kCollateral : findings[i].rule->role;
  };
  auto key = [&](size_t i) {
    const Finding& f = findings[i];
    int fallback = f.rule->fallback ? 1 : 0;  // unexplained exceptions after explained ones
    return std::make_tuple(incident.initiatingFinding == i ? 0 : 1, static_cast<int>(role(i)), fallback,
                           -f.rule->priority);
  };
  std::vector<size_t> order(findings.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    auto ka = key(a), kb = key(b);
    if (ka != kb) return ka < kb;
    const Evidence& ea = findings[a].evidence.front();
    const Evidence& eb = findings[b].evidence.front();
    return std::tie(ea.source, ea.line) < std::tie(eb.source, eb.line);
  });
  std::vector<Finding> sorted;
  sorted.reserve(findings.size());
  std::vector<size_t> newIndex(findings.size());
  for (size_t k = 0; k < order.size(); ++k) {
    newIndex[order[k]] = k;
    sorted.push_back(std::move(findings[order[k]]));
  }
  findings = std::move(sorted);
  if (incident.initiatingFinding) incident.initiatingFinding = newIndex[*incident.initiatingFinding];
  std::map<size_t, std::string> collateral;
  for (auto& [i, reason] : incident.collateralFindings) collateral.emplace(newIndex[i], std::move(reason));
  incident.collateralFindings = std::move(collateral);
}

}  // namespace denpex::core
