// Metric signals: what a rank's metric samples say about a rule's metric tests (see
// metric_signals.h).
#include "core/analyze/metric_signals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace denpex::core {
namespace {

std::string formatNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

const char* metricName(MetricId id) {
  switch (id) {
    case kLoss: return "loss";
    case kGradNorm: return "grad_norm";
    case kLr: return "lr";
    default: return "loss scale";
  }
}

Evidence sampleEvidence(const Sample& s, const std::string& signal) {
  Evidence e;
  e.source = s.source;
  e.line = s.line;
  e.begin = 0;
  e.end = s.rawEnd;
  e.signal = signal;
  e.text = s.text;
  e.rank = s.rank;
  e.timestamp = s.timestamp;
  e.timeFromEarlierLine = s.timeFromEarlierLine;
  return e;
}

// Sustained growth: the last three or more samples rise step after step by 10x overall, or the
// window spans three orders of magnitude with its peak at the end.
bool growing(const std::deque<Sample>& w) {
  size_t n = w.size();
  if (n < 3) return false;
  size_t run = 1;
  while (run < n && w[n - run].value > w[n - run - 1].value) ++run;
  if (run >= 3 && w[n - 1].value >= 10 * w[n - run].value) return true;
  double lo = w[0].value, hi = w[0].value;
  size_t hiAt = 0;
  for (size_t i = 0; i < n; ++i) {
    lo = std::min(lo, w[i].value);
    if (w[i].value >= hi) {
      hi = w[i].value;
      hiAt = i;
    }
  }
  return lo > 0 && hi / lo >= 1000 && hiAt + 3 >= n;
}

}  // namespace

MetricId metricId(const std::string& name) {
  if (name == "loss") return kLoss;
  if (name == "grad_norm") return kGradNorm;
  if (name == "lr") return kLr;
  return kLossScale;
}

SignalValue evalMetric(const Signal& sig, const Metrics& m) {
  SignalValue out;
  MetricId id = metricId(sig.metric);
  const auto& lossNan = m.firstNonfinite[kLoss];
  switch (sig.test) {
    case MetricTest::kNonfinite: {
      const auto& first = m.firstNonfinite[id];
      if (!first) break;
      out.value = true;
      out.step = first->step;
      out.evidence.push_back(sampleEvidence(*first, sig.name));
      out.observed = std::string(metricName(id)) + " became " + formatNumber(first->value) +
                     " at step " + std::to_string(first->step);
      break;
    }
    case MetricTest::kStableBeforeNonfinite:
    case MetricTest::kGrowsBeforeNonfinite: {
      if (!lossNan) break;
      static const std::deque<Sample>& kNone = *new std::deque<Sample>();
      const auto& w = m.gradWindow ? *m.gradWindow : kNone;
      const auto& gradNan = m.firstNonfinite[kGradNorm];
      bool gradFirst = gradNan && (gradNan->source < lossNan->source ||
                                   (gradNan->source == lossNan->source && gradNan->line < lossNan->line));
      bool grows = gradFirst || growing(w);
      if (sig.test == MetricTest::kGrowsBeforeNonfinite) {
        // An overflow is growth only from a finite norm printed before it: a run whose first
        // grad norm is already NaN (a half-precision forward pass that overflowed on one batch)
        // shows no divergence.
        bool fromFinite = gradFirst && !w.empty() &&
                          (w.front().source < gradNan->source ||
                           (w.front().source == gradNan->source && w.front().line < gradNan->line));
        if (!fromFinite && !growing(w)) break;
        out.value = true;
        if (fromFinite) {
          out.evidence.push_back(sampleEvidence(*gradNan, sig.name));
          out.observed = "grad_norm overflowed to " + formatNumber(gradNan->value) + " at step " +
                         std::to_string(gradNan->step) + ", before the loss turned " +
                         formatNumber(lossNan->value) + " at step " + std::to_string(lossNan->step);
        } else {
          out.evidence.push_back(sampleEvidence(w.back(), sig.name));
          out.observed = "grad_norm grew from " + formatNumber(w.front().value) + " (step " +
                         std::to_string(w.front().step) + ") to " + formatNumber(w.back().value) +
                         " (step " + std::to_string(w.back().step) + ") before the loss turned " +
                         formatNumber(lossNan->value) + " at step " + std::to_string(lossNan->step);
        }
      } else {
        if (grows || w.empty()) break;
        double lo = w.front().value, hi = w.front().value;
        for (const auto& s : w) {
          lo = std::min(lo, s.value);
          hi = std::max(hi, s.value);
        }
        out.value = true;
        out.evidence.push_back(sampleEvidence(w.back(), sig.name));
        std::string range = w.size() == 1 ? "at step " + std::to_string(w.front().step)
                                          : "over steps " + std::to_string(w.front().step) + "-" +
                                                std::to_string(w.back().step);
        out.observed = "grad_norm stayed small and stable (" + formatNumber(lo) +
                       (w.size() == 1 ? "" : " to " + formatNumber(hi)) + " " + range +
                       "), then the loss turned " + formatNumber(lossNan->value) + " at step " +
                       std::to_string(lossNan->step);
      }
      out.step = lossNan->step;
      break;
    }
    case MetricTest::kFallsToMinimum: {
      if (!m.minScale || m.scaleDecreases < 3 || m.minScale->value > 1.0) break;
      out.value = true;
      out.evidence.push_back(sampleEvidence(*m.minScale, sig.name));
      out.step = m.minScale->step;
      out.observed = "loss scale fell from " + formatNumber(*m.firstScale) + " to " +
                     formatNumber(m.minScale->value) + " (" + std::to_string(m.scaleDecreases) +
                     " reductions) by step " + std::to_string(m.minScale->step);
      break;
    }
  }
  return out;
}

}  // namespace denpex::core
