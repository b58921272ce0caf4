// The language server with a big log open, over real pipes to the built binary: how soon the big
// log is diagnosed after didOpen, what appending 100 lines costs, how long hovers and code
// actions on a small document take while the big one is open, and the server's peak memory.
// Message bodies are serialised before the clock starts: what is timed is the server.
// With a log on disk, also what VS Code users run on a log over the 50 MB it hands to extensions
// ("Diagnose File": the server reads it from disk): the time to the command's answer and the
// peak memory of a server that did nothing else, against `denpex diagnose` on the same file.
//   lsp_latency [SIZE_MIB] [LOG_ON_DISK]   (default 100)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../tests/support/pipe_client.h"

using namespace denpex::test;
using Clock = std::chrono::steady_clock;

static double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// The server's peak resident memory (VmHWM), in MiB.
static double peakRssMib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024;
  return 0;
}

static double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

int main(int argc, char** argv) {
  double sizeMb = argc > 1 ? std::atof(argv[1]) : 100;
  std::string big;
  big.reserve(static_cast<size_t>(sizeMb * 1048576) + 4096);
  big += "[rank0]:param dtype: torch.float16\n[rank0]:    eps: 1e-08\n";
  for (long step = 1; big.size() < sizeMb * 1048576; ++step) {
    for (int r = 0; r < 8; ++r)
      big += "[rank" + std::to_string(r) + "]:step " + std::to_string(step) + " | loss 0.6931 | grad_norm 0.1234 | lr 1.0e-03\n";
    big += "[rank" + std::to_string(step % 8) + "]:node0:1234:1234 [0] NCCL INFO Channel 00/32 : 0[0] -> 1[1] via P2P/IPC\n";
  }
  std::ifstream seed(std::string(DENPEX_SOURCE_DIR) + "/examples/fp16-adamw/train.log");
  std::stringstream small;
  small << seed.rdbuf();
  const std::string bigUri = "file:///tmp/big.log", smallUri = "file:///tmp/small.log";
  auto open = [](const std::string& uri, const std::string& text) {
    return json{{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                {"params", {{"textDocument", {{"uri", uri}, {"languageId", "log"}, {"version", 1}, {"text", text}}}}}}.dump();
  };
  auto isPublish = [](const std::string& uri, int version) {
    return [uri, version](const json& p) { return p["uri"] == uri && p.value("version", 0) == version; };
  };

  PipeClient c({"lsp", "--log-level", "warn"});
  c.initialize("file:///tmp");
  c.notify("textDocument/didOpen", json::parse(open(smallUri, small.str()))["params"]);
  c.notification("textDocument/publishDiagnostics", isPublish(smallUri, 1), std::chrono::minutes(1));

  // didOpen of the big log: the time to its first diagnostics.
  std::string bigOpen = open(bigUri, big);
  auto t0 = Clock::now();
  c.sendRaw(bigOpen);
  bigOpen.clear();
  bigOpen.shrink_to_fit();
  c.notification("textDocument/publishDiagnostics", isPublish(bigUri, 1), std::chrono::minutes(5));
  double openMs = ms(Clock::now() - t0);

  // Hovers and code actions on the small document while the big one is open.
  json hover = {{"textDocument", {{"uri", smallUri}}}, {"position", {{"line", 16}, {"character", 0}}}};
  json action = {{"textDocument", {{"uri", smallUri}}},
                 {"range", {{"start", {{"line", 16}, {"character", 0}}}, {"end", {{"line", 16}, {"character", 0}}}}},
                 {"context", {{"diagnostics", json::array()}}}};
  std::vector<double> hovers, actions;
  for (int i = 0; i < 200; ++i) {
    auto h0 = Clock::now();
    json h = c.call("textDocument/hover", hover);
    hovers.push_back(ms(Clock::now() - h0));
    auto a0 = Clock::now();
    json a = c.call("textDocument/codeAction", action);
    actions.push_back(ms(Clock::now() - a0));
    // A failed request is no fast answer: the hover must explain the finding, the code action
    // must answer with a list.
    if (!h.contains("result") || !h["result"].is_object() || h["result"].dump().find("Root cause") == std::string::npos ||
        !a.contains("result") || !a["result"].is_array()) {
      std::fprintf(stderr, "lsp_latency: a hover or code action did not answer as it should:\n%s\n%s\n",
                   h.dump().substr(0, 500).c_str(), a.dump().substr(0, 500).c_str());
      return 1;
    }
  }

  // Append 100 lines at the end of the big log.
  uint32_t lines = static_cast<uint32_t>(std::count(big.begin(), big.end(), '\n'));
  std::string tail;
  for (int i = 0; i < 100; ++i) tail += "[rank0]:step 999999 | loss nan | grad_norm nan | lr 1.0e-03\n";
  json range = {{"start", {{"line", lines}, {"character", 0}}}, {"end", {{"line", lines}, {"character", 0}}}};
  std::string append = json{{"jsonrpc", "2.0"}, {"method", "textDocument/didChange"},
                            {"params", {{"textDocument", {{"uri", bigUri}, {"version", 2}}},
                                        {"contentChanges", {{{"range", range}, {"text", tail}}}}}}}.dump();
  auto a0 = Clock::now();
  c.sendRaw(append);
  c.notification("textDocument/publishDiagnostics", isPublish(bigUri, 2), std::chrono::minutes(5));
  double appendMs = ms(Clock::now() - a0);
  double rss = peakRssMib(c.pid());
  c.call("shutdown", nullptr);
  c.notify("exit", nullptr);

  // A log on disk, not open: "Diagnose File", in a server of its own; then the CLI on the same file.
  double diskMs = -1, diskRss = 0, cliMs = -1, diskMib = 0;
  if (argc > 2) {
    const std::string path = std::filesystem::absolute(argv[2]).string();
    diskMib = static_cast<double>(std::filesystem::file_size(path)) / 1048576.0;
    PipeClient d({"lsp", "--log-level", "warn"});
    d.initialize("file:///tmp");
    auto d0 = Clock::now();
    json r = d.response(
        d.request("workspace/executeCommand", {{"command", "denpex.diagnose"}, {"arguments", {{{"uri", "file://" + path}}}}}),
        std::chrono::minutes(10));
    diskMs = ms(Clock::now() - d0);
    json published = d.notification("textDocument/publishDiagnostics", [&](const json& p) { return p["uri"] == "file://" + path; });
    diskRss = peakRssMib(d.pid());
    d.call("shutdown", nullptr);
    d.notify("exit", nullptr);
    if (!r.contains("result") || r["result"]["findings"].empty() || published["diagnostics"].empty()) {
      std::fprintf(stderr, "lsp_latency: Diagnose File found nothing in %s:\n%s\n", path.c_str(), r.dump().substr(0, 500).c_str());
      return 1;
    }
    // The CLI on the same file, its output thrown away (exit status 1: findings).
    auto c0 = Clock::now();
    pid_t pid = fork();
    if (pid == 0) {
      std::freopen("/dev/null", "w", stdout);
      execl(DENPEX_BINARY, DENPEX_BINARY, "diagnose", "--format", "json", path.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    cliMs = ms(Clock::now() - c0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
      std::fprintf(stderr, "lsp_latency: denpex diagnose %s did not exit with findings\n", path.c_str());
      return 1;
    }
  }

  double textMib = big.size() / 1048576.0;
  std::printf("| language server, %.0f MiB log open | measured | goal |\n| --- | --- | --- |\n", textMib);
  std::printf("| didOpen to its diagnostics | %.0f ms | <= 1000 ms |\n", openMs);
  std::printf("| 100 lines appended, to their diagnostics | %.0f ms | <= 20 ms |\n", appendMs);
  std::printf("| hover on another document, p50 / p99 | %.2f / %.2f ms | p99 <= 5 ms |\n", percentile(hovers, 0.5), percentile(hovers, 0.99));
  std::printf("| code action on another document, p50 / p99 | %.2f / %.2f ms | p99 <= 5 ms |\n", percentile(actions, 0.5),
              percentile(actions, 0.99));
  std::printf("| server peak RSS / (1.5 x the text + 50 MiB) | %.2f (%.0f MiB) | <= 1.0 |\n", rss / (1.5 * textMib + 50), rss);
  if (diskMs >= 0) {
    std::printf("| Diagnose File: a %.0f MiB log on disk, not open, to the command's answer | %.0f ms | |\n", diskMib, diskMs);
    std::printf("| that / `denpex diagnose` on the same file (%.0f ms) | %.2f | |\n", cliMs, diskMs / std::max(cliMs, 1.0));
    std::printf("| that server's peak RSS (no text open: 1.5 x 0 + 50 MiB) | %.0f MiB | <= 50 MiB |\n", diskRss);
  }
  return 0;
}
