// Metric signals: a rank's metric history (non-finite values, the grad-norm window before the
// loss turned non-finite, the loss-scale trend) and the rule tests evaluated on it. Plain
// values; evalMetric is pure.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analyze/finding.h"
#include "core/rules/rule.h"

namespace denpex::core {

// One metric value and the line that printed it.
struct Sample {
  long long step = 0;
  uint32_t rawEnd = 0;
  double value = 0;
  uint32_t source = 0;
  uint64_t line = 0;
  std::string text;
  int rank = -1;
  std::string timestamp;
  bool timeFromEarlierLine = false;  // as Evidence's
};

enum MetricId { kLoss, kGradNorm, kLr, kLossScale, kMetricCount };

// A rule's metric name ("loss", "grad_norm", "lr", "loss_scale") as an id.
MetricId metricId(const std::string& name);

// What one rank's metric lines showed, in a size that does not grow with the log.
struct Metrics {
  bool any = false;
  long long counter = 0;
  std::optional<Sample> firstNonfinite[kMetricCount];
  // Grad-norm samples before the loss turned non-finite; made on the first one (an empty deque
  // still allocates, and a big job has thousands of ranks that never print a grad norm).
  std::optional<std::deque<Sample>> gradWindow;
  // The loss scale's first and last values (only the lowest one is ever shown as evidence: the
  // others keep no line, which spared a copy of every loss-scale line).
  std::optional<double> firstScale;
  std::optional<double> lastScale;
  std::optional<Sample> minScale;
  int scaleDecreases = 0;
};

// A signal's value for one rank: whether it holds, the lines that show it, what was observed.
struct SignalValue {
  bool value = false;
  std::vector<Evidence> evidence;
  std::vector<std::pair<std::string, std::string>> captures;
  std::string observed;
  std::optional<long long> step;
};

// Evaluates a metric signal (Signal::metric set) on a rank's metrics.
SignalValue evalMetric(const Signal& signal, const Metrics& metrics);

}  // namespace denpex::core
