// Machine probes: the probe file format and the readers of what the probes print (see machine.h).
#include "core/check/machine.h"

#include <re2/re2.h>

#include <algorithm>
#include <memory>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/text.h"

namespace denpex::core {

using nlohmann::json;

namespace {
constexpr int kProbeFormat = 1;
}

std::string probeToJson(const MachineProbe& probe) {
  json j;
  j["denpex_probe"] = kProbeFormat;
  j["gpus"] = json::array();
  for (const auto& g : probe.gpus)
    j["gpus"].push_back({{"name", g.name}, {"compute_capability", std::to_string(g.major) + "." + std::to_string(g.minor)}});
  j["driver"] = probe.driver ? json(*probe.driver) : json(nullptr);
  j["shm_bytes"] = probe.shmBytes ? json(*probe.shmBytes) : json(nullptr);
  j["container"] = probe.container;
  j["torch"] = {{"version", probe.torchVersion ? json(*probe.torchVersion) : json(nullptr)},
                {"cuda", probe.torchCuda ? json(*probe.torchCuda) : json(nullptr)},
                {"conda", probe.torchFromConda}};
  j["deepspeed"] = {{"version", probe.deepspeedVersion ? json(*probe.deepspeedVersion) : json(nullptr)}};
  j["cuda_compat_driver"] = probe.cudaCompatDriver ? json(*probe.cudaCompatDriver) : json(nullptr);
  j["notes"] = probe.notes;
  return j.dump(2) + "\n";
}

Expected<MachineProbe> probeFromJson(std::string_view text, const std::string& origin) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{origin + ": not a probe file (JSON object expected)"};
  if (!j.contains("denpex_probe") || j["denpex_probe"] != kProbeFormat)
    return Error{origin + ": not a probe file of format " + std::to_string(kProbeFormat) + " (made by 'denpex probe --output FILE')"};
  MachineProbe p;
  p.origin = origin;
  auto optString = [&](const json& v, const char* what) -> Expected<std::optional<std::string>> {
    if (v.is_null()) return std::optional<std::string>();
    if (!v.is_string()) return Error{origin + ": '" + std::string(what) + "' must be a string or null"};
    return std::optional<std::string>(v.get<std::string>());
  };
  static const RE2& capability = *new RE2(R"((\d{1,2})\.(\d{1,2}))");
  for (const auto& g : j.value("gpus", json::array())) {
    if (!g.is_object() || !g.contains("name") || !g["name"].is_string() || !g.contains("compute_capability") ||
        !g["compute_capability"].is_string())
      return Error{origin + ": each of 'gpus' needs a 'name' and a 'compute_capability' (\"8.0\")"};
    MachineProbe::Gpu gpu;
    gpu.name = g["name"].get<std::string>();
    if (!RE2::FullMatch(g["compute_capability"].get<std::string>(), capability, &gpu.major, &gpu.minor))
      return Error{origin + ": compute_capability '" + g["compute_capability"].get<std::string>() + "' is not like 8.0"};
    p.gpus.push_back(std::move(gpu));
  }
  auto driver = optString(j.value("driver", json()), "driver");
  if (!driver) return Error{driver.error()};
  p.driver = *driver;
  const json& shm = j.value("shm_bytes", json());
  if (!shm.is_null() && !shm.is_number_unsigned()) return Error{origin + ": 'shm_bytes' must be a number of bytes or null"};
  if (!shm.is_null()) p.shmBytes = shm.get<uint64_t>();
  const json& container = j.value("container", json(false));
  if (!container.is_boolean()) return Error{origin + ": 'container' must be true or false"};
  p.container = container.get<bool>();
  const json torch = j.value("torch", json::object());
  if (!torch.is_object()) return Error{origin + ": 'torch' must be an object"};
  auto version = optString(torch.value("version", json()), "torch.version");
  auto cuda = optString(torch.value("cuda", json()), "torch.cuda");
  if (!version) return Error{version.error()};
  if (!cuda) return Error{cuda.error()};
  p.torchVersion = *version;
  p.torchCuda = *cuda;
  // Absent from the probe files of earlier releases: not from conda.
  const json& conda = torch.contains("conda") ? torch["conda"] : json(false);
  if (!conda.is_boolean()) return Error{origin + ": 'torch.conda' must be true or false"};
  p.torchFromConda = conda.get<bool>();
  // Absent from the probe files of earlier releases: DeepSpeed unknown.
  const json deepspeed = j.value("deepspeed", json::object());
  if (!deepspeed.is_object()) return Error{origin + ": 'deepspeed' must be an object"};
  auto dsVersion = optString(deepspeed.value("version", json()), "deepspeed.version");
  if (!dsVersion) return Error{dsVersion.error()};
  p.deepspeedVersion = *dsVersion;
  auto compat = optString(j.value("cuda_compat_driver", json()), "cuda_compat_driver");
  if (!compat) return Error{compat.error()};
  p.cudaCompatDriver = *compat;
  return p;
}

std::optional<std::pair<int, int>> computeCapabilityOfName(std::string_view name) {
  struct Family {
    const char* pattern;
    int major, minor;
  };
  // Newest first. Names of later generations (Ada, Hopper, Blackwell) are not here: the drivers
  // that run them report compute_cap themselves, and a name this table mistook would turn into a
  // wrong finding.
  static const Family kFamilies[] = {
      {R"(\bA100\b|\bA800\b|\bA30\b)", 8, 0},
      {R"(\bA10G?\b|\bA40\b|\bA16\b|\bA2\b|\bRTX A\d{4}\b|\bRTX 30[5-9]0\b)", 8, 6},
      {R"(\bT4\b|\bRTX 20[6-8]0\b|\bTITAN RTX\b|\bQuadro RTX [3-8]000\b|\bGTX 16[56]0\b)", 7, 5},
      {R"(\bV100S?\b|\bTITAN V\b|\bQuadro GV100\b)", 7, 0},
      {R"(\bP100\b|\bQuadro GP100\b)", 6, 0},
      {R"(\bP40\b|\bP4\b|\bP6\b|\bGTX 10[5-8]0\b|\bTITAN Xp\b|\bTITAN X \(Pascal\)|\bQuadro P[1-6]000\b)", 6, 1},
      {R"(\bM40\b|\bM60\b|\bM6\b|\bGTX 9[5-8]0\b|\bGTX TITAN X\b|\bQuadro M[2-6]000\b)", 5, 2},
      {R"(\bM10\b|\bGTX 750\b)", 5, 0},
      {R"(\bK80\b)", 3, 7},
      {R"(\bK40[cm]?\b|\bK20[cmX]?\b|\bGTX 780\b|\bGTX TITAN\b)", 3, 5},
  };
  static const std::vector<std::unique_ptr<RE2>>& kCompiled =
      *new std::vector<std::unique_ptr<RE2>>([] {
        std::vector<std::unique_ptr<RE2>> out;
        RE2::Options o;
        o.set_case_sensitive(false);
        for (const auto& f : kFamilies) out.push_back(std::make_unique<RE2>(f.pattern, o));
        return out;
      }());
  // A later generation's name that an older one's pattern would also match ("RTX 6000 Ada").
  static const RE2& later =
      *new RE2(R"((?i)\bAda\b|\bHopper\b|\bBlackwell\b|\b[BGH][12]\d\d\b|\bL40S?\b|\bL4\b)");
  if (RE2::PartialMatch(name, later)) return std::nullopt;
  for (size_t i = 0; i < kCompiled.size(); ++i)
    if (RE2::PartialMatch(name, *kCompiled[i])) return std::make_pair(kFamilies[i].major, kFamilies[i].minor);
  return std::nullopt;
}

void readNvidiaSmi(std::string_view csv, MachineProbe& probe) {
  static const RE2& line = *new RE2(R"(\s*([^,]+?)\s*,\s*(\d{1,2})\.(\d{1,2})\s*,\s*([0-9.]+)\s*)");
  static const RE2& nameOnly = *new RE2(R"(\s*([^,]+?)\s*,\s*([0-9]+\.[0-9.]+)\s*)");
  // Eight GPUs of one kind say it once.
  auto note = [&](std::string text) {
    if (std::find(probe.notes.begin(), probe.notes.end(), text) == probe.notes.end()) probe.notes.push_back(std::move(text));
  };
  size_t at = 0;
  while (at < csv.size()) {
    size_t end = csv.find('\n', at);
    if (end == std::string_view::npos) end = csv.size();
    std::string_view l = text::trim(csv.substr(at, end - at));
    at = end + 1;
    MachineProbe::Gpu gpu;
    std::string driver;
    if (!RE2::FullMatch(l, line, &gpu.name, &gpu.major, &gpu.minor, &driver)) {
      if (!RE2::FullMatch(l, nameOnly, &gpu.name, &driver)) continue;
      auto capability = computeCapabilityOfName(gpu.name);
      if (!capability) {
        note(gpu.name + ": compute capability unknown (this driver's nvidia-smi cannot report it, and the name is not in denpex's table), not checked");
        if (!probe.driver) probe.driver = driver;
        continue;
      }
      std::tie(gpu.major, gpu.minor) = *capability;
      note(gpu.name + ": compute capability " + std::to_string(gpu.major) + "." + std::to_string(gpu.minor) +
                            " from the GPU's name (this driver's nvidia-smi cannot report it)");
    }
    probe.gpus.push_back(std::move(gpu));
    if (!probe.driver) probe.driver = driver;
  }
}

std::optional<std::string> driverFromProcVersion(std::string_view text) {
  static const RE2& version =
      *new RE2(R"(Kernel Module(?: for [^ ]+)?\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?))");
  std::string v;
  if (RE2::PartialMatch(text, version, &v)) return v;
  return std::nullopt;
}

void readTorchVersionFile(std::string_view text, MachineProbe& probe) {
  static const RE2& version = *new RE2(R"((?m)^__version__\s*=\s*['"]([^'"]+)['"])");
  static const RE2& cuda = *new RE2(R"((?m)^cuda\s*(?::\s*[\w\[\]]+\s*)?=\s*['"]([0-9.]+)['"])");
  std::string v;
  if (RE2::PartialMatch(text, version, &v)) probe.torchVersion = v;
  if (RE2::PartialMatch(text, cuda, &v)) probe.torchCuda = v;
}

void readDeepSpeedVersionFile(std::string_view text, MachineProbe& probe) {
  static const RE2& version = *new RE2(R"((?m)^version\s*=\s*['"]([^'"]+)['"])");
  std::string v;
  if (RE2::PartialMatch(text, version, &v)) probe.deepspeedVersion = v;
}

int compareVersions(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    uint64_t x = 0, y = 0;
    while (i < a.size() && a[i] != '.') x = x * 10 + static_cast<uint64_t>(text::isDigit(a[i]) ? a[i] - '0' : 0), ++i;
    while (j < b.size() && b[j] != '.') y = y * 10 + static_cast<uint64_t>(text::isDigit(b[j]) ? b[j] - '0' : 0), ++j;
    if (x != y) return x < y ? -1 : 1;
    ++i, ++j;
  }
  return 0;
}

std::optional<std::string> minimumDriverFor(const std::string& cuda) {
  // NVIDIA's CUDA release notes: the oldest Linux driver of each CUDA major version (minor-version
  // compatibility), and per minor version before CUDA 11.
  static const std::pair<const char*, const char*> kTable[] = {
      {"13", "580.65.06"}, {"12", "525.60.13"}, {"11", "450.80.02"}, {"10.2", "440.33"}, {"10.1", "418.39"}, {"10.0", "410.48"},
  };
  for (const auto& [version, driver] : kTable) {
    std::string v(version);
    if (cuda == v || cuda.rfind(v + ".", 0) == 0) return std::string(driver);
  }
  return std::nullopt;
}

std::optional<std::string> cudaCannotBuildFor(const std::string& cuda, int major, int minor) {
  // NVIDIA's CUDA release notes and compute capability tables: the first CUDA that builds for
  // each capability, and the first that no longer does (CUDA 12.0 dropped Kepler; CUDA 13.0
  // dropped Maxwell, Pascal and Volta). "" where that is older than any CUDA torch was built
  // with, or has not happened.
  struct Arch {
    int major, minor;
    const char* first;
    const char* dropped;
  };
  static const Arch kArchs[] = {
      {3, 5, "", "12.0"},     {3, 7, "", "12.0"},     {5, 0, "", "13.0"},     {5, 2, "", "13.0"}, {5, 3, "", "13.0"},
      {6, 0, "", "13.0"},     {6, 1, "", "13.0"},     {6, 2, "", "13.0"},     {7, 0, "", "13.0"}, {7, 2, "10.0", "13.0"},
      {7, 5, "10.0", ""},     {8, 0, "11.0", ""},     {8, 6, "11.1", ""},     {8, 7, "11.4", ""}, {8, 9, "11.8", ""},
      {9, 0, "11.8", ""},     {10, 0, "12.8", ""},    {10, 3, "12.9", ""},    {12, 0, "12.8", ""}, {12, 1, "12.9", ""},
  };
  if (cuda.empty() || !text::isDigit(cuda[0])) return std::nullopt;
  const std::string capability = std::to_string(major) + "." + std::to_string(minor);
  for (const Arch& a : kArchs) {
    if (a.major != major || a.minor != minor) continue;
    if (*a.first && compareVersions(cuda, a.first) < 0)
      return "compute capability " + capability + " needs CUDA " + a.first + " or newer";
    if (*a.dropped && compareVersions(cuda, a.dropped) >= 0)
      return "CUDA " + std::string(a.dropped) + " and later no longer build for compute capability " + capability;
    return std::nullopt;
  }
  return std::nullopt;
}

bool isReleaseWheel(std::string_view version) {
  // X.Y.Z, optionally +cuNNN: nothing else before or after.
  size_t at = 0, dots = 0;
  while (at < version.size() && (text::isDigit(version[at]) || version[at] == '.')) dots += version[at++] == '.';
  if (at == 0 || dots != 2 || version[at - 1] == '.') return false;
  if (at == version.size()) return true;
  std::string_view local = version.substr(at);
  if (local.rfind("+cu", 0) != 0 || local.size() == 3) return false;
  for (char c : local.substr(3))
    if (!text::isDigit(c)) return false;
  return true;
}

}  // namespace denpex::core
