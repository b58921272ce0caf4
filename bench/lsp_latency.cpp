// Language-server latency with a large log open: how long other documents wait while a
// 100 MB log is diagnosed, and what appending to the big log costs against diagnosing it anew.
// Prints figures; ratios are against references measured in the same run.
//   lsp_latency [SIZE_MB]   (default 100)
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../tests/support/pipe_client.h"

using namespace denpex::test;
using Clock = std::chrono::steady_clock;

static double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int main(int argc, char** argv) {
  double sizeMb = argc > 1 ? std::atof(argv[1]) : 100;
  std::string big;
  big.reserve(static_cast<size_t>(sizeMb * 1048576) + 4096);
  big += "[rank0]:param dtype: torch.float16\n[rank0]:    eps: 1e-08\n";
  for (long step = 1; big.size() < sizeMb * 1048576; ++step)
    for (int r = 0; r < 8; ++r)
      big += "[rank" + std::to_string(r) + "]:step " + std::to_string(step) + " | loss 0.6931 | grad_norm 0.1234 | lr 1.0e-03\n";
  std::ifstream seed(std::string(DENPEX_SOURCE_DIR) + "/examples/fp16-adamw/train.log");
  std::stringstream small;
  small << seed.rdbuf();

  PipeClient c({"lsp", "--log-level", "warn"});
  c.initialize("file:///tmp");
  auto t0 = Clock::now();
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", "file:///tmp/big.log"}, {"languageId", "log"}, {"version", 1}, {"text", big}}}});
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", "file:///tmp/small.log"}, {"languageId", "log"}, {"version", 1}, {"text", small.str()}}}});
  c.notification("textDocument/publishDiagnostics", [](const json& p) { return p["uri"] == "file:///tmp/small.log"; }, std::chrono::minutes(5));
  auto smallReady = Clock::now();
  double worstHover = 0;
  int hovers = 0;
  bool bigDone = false;
  Clock::time_point bigReady;
  while (!bigDone) {
    auto h0 = Clock::now();
    c.call("textDocument/hover", {{"textDocument", {{"uri", "file:///tmp/small.log"}}}, {"position", {{"line", 16}, {"character", 0}}}});
    worstHover = std::max(worstHover, ms(Clock::now() - h0));
    ++hovers;
    auto m = c.waitFor([](const json& m) { return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == "file:///tmp/big.log"; },
                       std::chrono::milliseconds(20));
    if (m) {
      bigDone = true;
      bigReady = Clock::now();
    }
  }
  // Append 100 lines at the end, then replace the whole text (a full rescan) for reference.
  uint32_t lines = static_cast<uint32_t>(std::count(big.begin(), big.end(), '\n'));
  std::string tail;
  for (int i = 0; i < 100; ++i) tail += "[rank0]:step 999999 | loss nan | grad_norm nan | lr 1.0e-03\n";
  auto a0 = Clock::now();
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", "file:///tmp/big.log"}, {"version", 2}}},
                                      {"contentChanges", {{{"range", {{"start", {{"line", lines}, {"character", 0}}}, {"end", {{"line", lines}, {"character", 0}}}}}, {"text", tail}}}}});
  c.notification("textDocument/publishDiagnostics", [](const json& p) { return p["uri"] == "file:///tmp/big.log" && p["version"] == 2; }, std::chrono::minutes(5));
  double appendMs = ms(Clock::now() - a0);
  auto f0 = Clock::now();
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", "file:///tmp/big.log"}, {"version", 3}}},
                                      {"contentChanges", {{{"text", "# rotated\n" + big + tail}}}}});
  c.notification("textDocument/publishDiagnostics", [](const json& p) { return p["uri"] == "file:///tmp/big.log" && p["version"] == 3; }, std::chrono::minutes(5));
  double fullMs = ms(Clock::now() - f0);
  c.call("shutdown", nullptr);
  c.notify("exit", nullptr);

  std::printf("big log: %.1f MiB\n", big.size() / 1048576.0);
  std::printf("small document diagnosed %.0f ms after the big one was opened\n", ms(smallReady - t0));
  std::printf("big document diagnosed after %.0f ms\n", ms(bigReady - t0));
  std::printf("hover on the small document while the big one was diagnosed: %d requests, worst %.1f ms\n", hovers, worstHover);
  std::printf("append 100 lines to the big log: %.0f ms; replace its text (full rescan): %.0f ms; ratio %.3f\n", appendMs, fullMs,
              appendMs / fullMs);
  return 0;
}
