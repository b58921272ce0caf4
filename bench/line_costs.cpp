// What reading one line costs, per kind of line the bench log holds: the parse (prefix, rank,
// timestamp, terminal noise) and the metric extraction, each against a reference measured in the
// same run on the same line: finding its end and copying it (what any reader does). The whole
// pipeline's figures (bench/run.sh) move by more than a per-line change on a shared machine; these
// show which function a change made cheaper, and by how much.
//   line_costs [ITERATIONS]   (default 200000 per measurement; the best of 5 is printed)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/parse/log_line.h"
#include "core/parse/metrics.h"

using namespace denpex;

namespace {

// Keeps a value alive so the measured work is not optimised away.
volatile size_t g_sink = 0;

template <class F>
double bestNs(int iterations, F&& body) {
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) body(i);
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / iterations;
    best = std::min(best, ns);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 200000;
  if (iterations < 1) {
    std::fprintf(stderr, "line_costs: ITERATIONS must be at least 1\n");
    return 2;
  }
  // The kinds of line bench/gen_log.py writes, and the language server bench's metric line.
  struct Kind {
    const char* name;
    std::string line;
  };
  const std::vector<Kind> kinds = {
      {"metric line, five keys", "[rank17]:step 374308 | loss 0.618000 | grad_norm 0.126000 | lr 1.0e-05 | loss_scale 65536.0"},
      {"metric line, four keys (the server's bench)", "[rank3]:step 12 | loss 0.6931 | grad_norm 0.1234 | lr 1.0e-03"},
      {"HF Trainer dict", "[rank0]:{'loss': 0.6180, 'grad_norm': 0.1260, 'learning_rate': 1e-05, 'epoch': 74.86}"},
      {"tqdm bar in colour", "[rank0]:\x1b[32m  8%|#####     | 374308/100000 [00:01<00:00, 20.1it/s]\x1b[0m"},
      {"NCCL INFO", "[rank36]:node4:4036:4136 [4] NCCL INFO Channel 04/32 : 36[4] -> 37[5] via P2P/IPC/read"},
      {"logging, with a timestamp", "[rank3]:2026-11-30 08:58:31,311 - INFO - data - prefetched shard 1575 of 4096 (1024 samples, 3.2 s)"},
      {"warning with a path",
       "[rank50]:/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:429: UserWarning: torch.utils.checkpoint: please "
       "pass in use_reentrant=True or use_reentrant=False explicitly."},
  };
  std::printf("| line (%d calls a measurement, best of 5) | read (find its end, copy it) | parse | metrics | parse / read | metrics / read |\n",
              iterations);
  std::printf("| --- | --- | --- | --- | --- | --- |\n");
  core::ParsedLine parsed;
  std::string copy;
  for (const auto& kind : kinds) {
    // The reference: the line with its '\n', found and copied.
    const std::string withEnd = kind.line + "\n";
    double read = bestNs(iterations, [&](int) {
      const void* nl = std::memchr(withEnd.data(), '\n', withEnd.size());
      size_t n = static_cast<size_t>(static_cast<const char*>(nl) - withEnd.data());
      copy.assign(withEnd.data(), n);
      g_sink = g_sink + copy.size();
    });
    double parse = bestNs(iterations, [&](int i) {
      core::parseLineInto(kind.line, 0, static_cast<uint64_t>(i), parsed);
      g_sink = g_sink + parsed.bodyBegin + static_cast<size_t>(parsed.rank + 1);
    });
    core::parseLineInto(kind.line, 0, 0, parsed);
    const std::string message(parsed.message());
    double metrics = bestNs(iterations, [&](int) {
      core::MetricSample s = core::extractMetrics(message);
      g_sink = g_sink + (s.loss ? 1 : 0) + (s.step ? 2 : 0);
    });
    std::printf("| %s | %.0f ns | %.0f ns | %.0f ns | %.1f | %.1f |\n", kind.name, read, parse, metrics, parse / read,
                metrics / read);
  }
  return 0;
}
