// Metric samples (step, loss, grad norm, learning rate, loss scale) in the formats training
// loops commonly print. Pure functions; safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace denpex::core {

// A metric sample printed on one line. Fields the line did not print stay empty.
struct MetricSample {
  uint32_t source = 0;
  uint64_t lineNo = 0;
  std::optional<long long> step;
  std::optional<double> loss;
  std::optional<double> gradNorm;
  std::optional<double> lr;
  std::optional<double> lossScale;

  bool empty() const { return !loss && !gradNorm && !lr && !lossScale; }
};

// Recognises `step 3 | loss 2.1 | grad_norm 0.5`, `loss=nan`, `{'loss': nan, 'grad_norm': ...}`
// (Hugging Face Trainer), Lightning progress bars (`..., loss=2.31, v_num=0]`), Megatron's
// `lm loss: 2.3E+00 | grad norm: 1.2 | loss scale: 1024.0` and DeepSpeed's loss-scale lines.
// Evaluation losses (`eval_loss`, `val_loss`) are not training losses and are skipped.
MetricSample extractMetrics(std::string_view message);

}  // namespace denpex::core
