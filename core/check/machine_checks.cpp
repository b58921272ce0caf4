// Check 6: the script against a probe of the machine it will run on (machine.h). Each finding
// says which machine the probe described: a script is fine or not for a given machine, and the
// one that ran `denpex check` need not be the one that runs the job.
//   - bfloat16 asked for where every GPU is older than compute capability 8.0 (Ampere), which
//     has no native bfloat16 (torch.cuda.is_bf16_supported() may still say yes: it counts
//     emulation);
//   - DataLoader workers in a container whose /dev/shm is smaller than 256 MiB (Docker's
//     default is 64 MiB), where each batch a worker hands over lives;
//   - an NVIDIA driver older than the one the installed torch's CUDA needs;
//   - GPUs that the installed torch can hold no kernels for: a release wheel built with a CUDA
//     older than the GPUs' architecture (a Blackwell card under a CUDA 12.4 wheel), or newer than
//     CUDA's support for it (a V100 under a CUDA 13 wheel).
#include <re2/re2.h>

#include "core/base/text.h"
#include "core/check/machine.h"
#include "core/check/python_script.h"

namespace denpex::core::check_detail {

namespace {

constexpr uint64_t kSmallShm = 256ull << 20;

Finding probeFinding(const Script& script, const std::shared_ptr<const Rule>& rule, const Cast& at, const char* signal) {
  Finding f;
  f.rule = rule;
  f.confidence = 1.0;
  f.evidence.push_back(evidenceAt(script.text, script.lines, script.source, at.line, at.begin, at.end, signal));
  f.userFrame = frameAt(script.path, script.source, at.line);
  return f;
}

// The line that imports torch, where findings about the installed torch are shown.
const RE2& importsTorch() {
  static const RE2& re = *new RE2(R"((^\s*(?:import\s+torch\b|from\s+torch\b)))");
  return re;
}

}  // namespace

std::string describeMachine(const MachineProbe& probe) {
  return probe.origin.empty() || probe.origin == "this machine" ? "this machine (probed now)"
                                                                 : "the machine of the probe file " + probe.origin;
}

bool gpusLackBf16(const MachineProbe& probe) {
  if (probe.gpus.empty()) return false;
  for (const auto& g : probe.gpus)
    if (g.major >= 8) return false;
  return true;
}

std::string noBf16(const MachineProbe& probe) {
  const auto& g = probe.gpus.front();
  return g.name + " (compute capability " + std::to_string(g.major) + "." + std::to_string(g.minor) + ", " +
         describeMachine(probe) + ") has no native bfloat16: that needs 8.0 (Ampere) or newer";
}

void machineChecks(const Script& script, const MachineProbe& probe, const RuleSet& rules, std::vector<Finding>& out) {
  const std::string machine = describeMachine(probe);
  // bfloat16 on GPUs without it.
  auto bf16Rule = ruleById(rules, "bf16-unsupported-gpu");
  if (bf16Rule && gpusLackBf16(probe)) {
    // Asked for, not merely named (a dtype table, a policy object defined for later).
    static const RE2& bf16 = *new RE2(
        R"re((\bbf16\s*=\s*True\b|\b(?:torch_)?dtype\s*=\s*torch\s*\.\s*bfloat16\b|)re"
        R"re(\bmixed_precision\s*=\s*['"]bf16['"]|\bprecision\s*=\s*['"]bf16(?:-mixed|-true)?['"]|)re"
        R"re(\.\s*bfloat16\s*\(\s*\)|\.\s*to\s*\([^)]*\btorch\s*\.\s*bfloat16\b))re");
    if (auto at = script.firstLineMatching(bf16, true)) {
      Finding f = probeFinding(script, bf16Rule, *at, "bf16");
      f.observed.push_back("line " + std::to_string(at->line + 1) + " asks for bfloat16");
      f.observed.push_back(noBf16(probe));
      f.observed.push_back(foreseenFailure(*bf16Rule));
      out.push_back(std::move(f));
    }
  }
  // DataLoader workers and a small /dev/shm.
  auto shmRule = ruleById(rules, "dataloader-shm-exhausted");
  if (shmRule && probe.shmBytes && *probe.shmBytes < kSmallShm) {
    for (const PythonCall* found : script.callsTo({"DataLoader"})) {
      const PythonCall& call = *found;
      auto q = resolvePythonName(script.imports, call.name);
      if (!q || (*q != "torch.utils.data.DataLoader" && *q != "torch.utils.data.dataloader.DataLoader")) continue;
      auto workers = floatLiteral(keywordValue(script.text, call, "num_workers"));
      if (!workers || *workers < 1) continue;
      Evidence e = callEvidence(script.text, script.lines, script.source, call, "num_workers");
      Finding f = probeFinding(script, shmRule, Cast{e.line, e.begin, e.end}, "num_workers");
      f.observed.push_back(call.name + "(...) starts " + std::string(keywordValue(script.text, call, "num_workers")) +
                           " worker processes, which hand every batch over through /dev/shm");
      f.observed.push_back("/dev/shm holds " + std::to_string(*probe.shmBytes >> 20) + " MiB on " + machine +
                           (probe.container ? " (a container)" : ""));
      f.observed.push_back(foreseenFailure(*shmRule));
      out.push_back(std::move(f));
      break;
    }
  }
  // A driver too old for the installed torch's CUDA.
  auto driverRule = ruleById(rules, "cuda-driver-too-old");
  if (driverRule && probe.driver && probe.torchCuda) {
    auto needed = minimumDriverFor(*probe.torchCuda);
    auto at = script.firstLineMatching(importsTorch());
    // A forward-compatibility library new enough lets the old driver run it (data center GPUs).
    const bool compat = needed && probe.cudaCompatDriver && compareVersions(*probe.cudaCompatDriver, *needed) >= 0;
    if (needed && at && !compat && compareVersions(*probe.driver, *needed) < 0) {
      Finding f = probeFinding(script, driverRule, *at, "import_torch");
      f.observed.push_back("torch " + probe.torchVersion.value_or("?") + " is built for CUDA " + *probe.torchCuda +
                           ", which needs NVIDIA driver " + *needed + " or newer");
      f.observed.push_back("the driver of " + machine + " is " + *probe.driver);
      f.observed.push_back(foreseenFailure(*driverRule));
      out.push_back(std::move(f));
    }
  }
  // GPUs the installed torch has no kernels for. Every GPU of the machine, as for bfloat16: with
  // one that works among them the job may well get that one.
  auto archRule = ruleById(rules, "no-kernel-image");
  if (archRule && probe.torchCuda && probe.torchVersion && isReleaseWheel(*probe.torchVersion) && !probe.torchFromConda &&
      !probe.gpus.empty()) {
    std::optional<std::string> why;
    for (const auto& g : probe.gpus) {
      auto reason = cudaCannotBuildFor(*probe.torchCuda, g.major, g.minor);
      if (!reason) {
        why.reset();
        break;
      }
      if (!why) why = reason;
    }
    auto at = why ? script.firstLineMatching(importsTorch()) : std::nullopt;
    if (at) {
      const auto& g = probe.gpus.front();
      Finding f = probeFinding(script, archRule, *at, "import_torch");
      f.observed.push_back(g.name + " (compute capability " + std::to_string(g.major) + "." + std::to_string(g.minor) +
                           ", " + machine + ")");
      f.observed.push_back("torch " + *probe.torchVersion + " is a release wheel built with CUDA " + *probe.torchCuda + ", and " +
                           *why + ": the wheel has no kernels for this GPU, and no PTX it could compile at run time");
      f.observed.push_back(foreseenFailure(*archRule));
      out.push_back(std::move(f));
    }
  }
}

}  // namespace denpex::core::check_detail
