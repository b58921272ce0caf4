// Probing this machine (see machine_probe.h).
#include "io/machine_probe.h"

#include <sys/statvfs.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/base/text.h"
#include "io/cache_files.h"
#include "io/files.h"

namespace denpex::io {

namespace fs = std::filesystem;

namespace {

// What a shell command prints on its standard output (its errors are dropped), at most 64 KiB.
std::string outputOf(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0 && out.size() < (64u << 10)) out.append(buf, n);
  ::pclose(p);
  return out;
}

std::optional<std::string> smallFile(const fs::path& path) {
  std::string error;
  ReadLimits limits;
  limits.maxBytes = 1 << 20;
  return readFile(path, error, limits);
}

bool inContainer() {
  std::error_code ec;
  if (fs::exists("/.dockerenv", ec) || fs::exists("/run/.containerenv", ec) || std::getenv("KUBERNETES_SERVICE_HOST"))
    return true;
  auto cgroup = smallFile("/proc/1/cgroup");
  if (!cgroup) return false;
  for (const char* marker : {"docker", "kubepods", "containerd", "libpod", "lxc"})
    if (cgroup->find(marker) != std::string::npos) return true;
  return false;
}

// nvidia-smi's list of the GPUs, from the cache where this boot and this loaded driver (`driver`,
// the text of /proc/driver/nvidia/version) answered before; `fromCache` says which.
std::string gpuList(bool fresh, const std::optional<std::string>& driver, bool& fromCache) {
  fromCache = false;
  auto boot = smallFile("/proc/sys/kernel/random/boot_id");
  std::string key;
  if (boot && !core::text::trim(*boot).empty()) {
    key = "denpex-gpu-list-2\n";
    key += core::text::trim(*boot);
    key += "\n";
    const std::string driverText = driver ? *driver : std::string("no driver");
    key += std::to_string(driverText.size()) + "\n" + driverText + "\n";
  }
  constexpr const char* kFile = "gpu-list.txt";
  if (!key.empty() && !fresh) {
    auto cached = readCacheFile(kFile, 1 << 20);
    if (cached && cached->compare(0, key.size(), key) == 0) {
      fromCache = true;
      return cached->substr(key.size());
    }
  }
  std::string smi = outputOf("timeout 10 nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>&1");
  // Older drivers (470 among them) answer 'Field "compute_cap" is not a valid field to query.':
  // then the names, whose compute capability readNvidiaSmi looks up.
  if (smi.find("\"compute_cap\"") != std::string::npos)
    smi = outputOf("timeout 10 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null");
  if (!key.empty()) writeCacheFile(kFile, key + smi);
  return smi;
}

// Whether the torch whose __init__.py is `origin` was installed by conda: its environment
// (PREFIX/lib/pythonX.Y/site-packages/torch/__init__.py) records a `pytorch` package in
// PREFIX/conda-meta as pytorch-VERSION-BUILD.json. A torch that pip put in a conda environment
// has no such record. At most 100,000 entries of the folder are looked at.
bool installedByConda(const fs::path& origin) {
  fs::path prefix = origin.parent_path().parent_path().parent_path().parent_path().parent_path();
  if (origin.parent_path().parent_path().filename() != "site-packages" || prefix.empty()) return false;
  std::error_code ec;
  fs::directory_iterator it(prefix / "conda-meta", ec), end;
  for (size_t seen = 0; !ec && it != end && seen < 100000; it.increment(ec), ++seen) {
    const std::string name = it->path().filename().string();
    if (name.size() > 13 && name.compare(0, 8, "pytorch-") == 0 && core::text::isDigit(name[8]) &&
        name.compare(name.size() - 5, 5, ".json") == 0)
      return true;
  }
  return false;
}

// The newest forward-compatibility libcuda.so.VERSION in the folders the dynamic loader would
// search for it first (LD_LIBRARY_PATH's, those with "compat" in their path) and where NVIDIA
// puts it (NGC images: /usr/local/cuda/compat and its lib.real; the cuda-compat-X-Y packages:
// /usr/local/cuda-X.Y/compat). At most 10,000 entries of each folder are looked at.
std::optional<std::string> forwardCompatDriver() {
  std::vector<fs::path> folders = {"/usr/local/cuda/compat", "/usr/local/cuda/compat/lib", "/usr/local/cuda/compat/lib.real"};
  if (const char* paths = std::getenv("LD_LIBRARY_PATH")) {
    std::string_view rest(paths);
    while (!rest.empty()) {
      size_t colon = rest.find(':');
      std::string_view one = rest.substr(0, colon);
      if (one.find("compat") != std::string_view::npos) folders.emplace_back(std::string(one));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  std::error_code ec;
  fs::directory_iterator local("/usr/local", ec), end;
  for (size_t seen = 0; !ec && local != end && seen < 10000; local.increment(ec), ++seen)
    if (local->path().filename().string().compare(0, 5, "cuda-") == 0) folders.push_back(local->path() / "compat");
  std::optional<std::string> newest;
  for (const auto& folder : folders) {
    std::error_code e;
    fs::directory_iterator it(folder, e);
    for (size_t seen = 0; !e && it != end && seen < 10000; it.increment(e), ++seen) {
      const std::string name = it->path().filename().string();
      if (name.compare(0, 10, "libcuda.so") != 0 || name.size() < 12 || name[10] != '.') continue;
      std::string version = name.substr(11);
      // libcuda.so.1 is a link to the versioned file: only a driver version ("550.54.15") counts.
      if (version.find('.') == std::string::npos || !core::text::isDigit(version[0])) continue;
      if (!newest || core::compareVersions(version, *newest) > 0) newest = version;
    }
  }
  return newest;
}

}  // namespace

core::MachineProbe probeThisMachine(bool fresh) {
  core::MachineProbe probe;
  probe.origin = "this machine";
  const auto driverText = smallFile("/proc/driver/nvidia/version");
  bool fromCache = false;
  std::string smi = gpuList(fresh, driverText, fromCache);
  core::readNvidiaSmi(smi, probe);
  if (fromCache)
    probe.notes.push_back("the GPUs are nvidia-smi's answer earlier in this boot, kept in the cache ('denpex probe' asks again)");
  if (probe.gpus.empty()) probe.notes.push_back("nvidia-smi listed no GPU (not installed, no driver, or no GPU)");
  if (driverText) {
    if (auto driver = core::driverFromProcVersion(*driverText)) probe.driver = driver;
  }
  struct statvfs shm{};
  if (::statvfs("/dev/shm", &shm) == 0) probe.shmBytes = static_cast<uint64_t>(shm.f_blocks) * shm.f_frsize;
  else probe.notes.push_back("/dev/shm is not mounted");
  probe.container = inContainer();
  probe.cudaCompatDriver = forwardCompatDriver();
  // The torch the training script will import: the active virtual environment's, else python3's.
  std::string python = "python3";
  if (const char* venv = std::getenv("VIRTUAL_ENV")) {
    std::string candidate = (fs::path(venv) / "bin" / "python").string();
    std::error_code ec;
    // Quoted for the shell; a path with a quote of its own is not used.
    if (fs::exists(candidate, ec) && candidate.find('\'') == std::string::npos) python = "'" + candidate + "'";
  }
  // Where torch and DeepSpeed are installed, one per line, found without importing either.
  const std::string printed = outputOf(python +
                                       " -c \"import importlib.util as u\nfor m in ('torch', 'deepspeed'):\n"
                                       "    s = u.find_spec(m); print(s.origin if s and s.origin else '')\" 2>/dev/null");
  const size_t newline = printed.find('\n');
  const std::string torch(core::text::trim(std::string_view(printed).substr(0, newline)));
  const std::string deepspeed(newline == std::string::npos ? std::string_view()
                                                           : core::text::trim(std::string_view(printed).substr(newline + 1)));
  if (!torch.empty()) {
    if (auto version = smallFile(fs::path(torch).parent_path() / "version.py")) core::readTorchVersionFile(*version, probe);
    probe.torchFromConda = installedByConda(fs::path(torch));
  } else {
    probe.notes.push_back("no torch found by " + python);
  }
  if (!deepspeed.empty()) {
    if (auto version = smallFile(fs::path(deepspeed).parent_path() / "git_version_info_installed.py"))
      core::readDeepSpeedVersionFile(*version, probe);
  }
  return probe;
}

}  // namespace denpex::io
