// What a machine probe says about the machine a run will use: its GPUs and their compute
// capability, the NVIDIA driver, /dev/shm, whether it is a container, and the installed torch's
// version and CUDA build. Probed here (io/machine_probe.h, `denpex probe`) or read from a probe
// file captured on the target (a cluster node) with `denpex probe --output FILE`. The checks that
// use it say which machine it describes. Pure: parsing and printing only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/expected.h"

namespace denpex::core {

struct MachineProbe {
  struct Gpu {
    std::string name;
    int major = 0, minor = 0;  // compute capability
  };
  std::vector<Gpu> gpus;
  std::optional<std::string> driver;        // "535.104.05"
  std::optional<uint64_t> shmBytes;         // the size of /dev/shm
  bool container = false;                   // Docker, Podman, Kubernetes
  std::optional<std::string> torchVersion;  // "2.1.0+cu121"
  std::optional<std::string> torchCuda;     // "12.1"; none for a CPU build
  // torch was installed by conda (a pytorch-*.json in its environment's conda-meta): conda-forge
  // builds carry PTX for their newest architecture, which a newer GPU compiles at run time.
  bool torchFromConda = false;
  // The newest CUDA forward-compatibility driver library found (libcuda.so.VERSION in a compat
  // folder: NGC images, the cuda-compat packages), "550.54.15": on data center GPUs it runs a
  // CUDA newer than the kernel driver supports.
  std::optional<std::string> cudaCompatDriver;
  std::optional<std::string> deepspeedVersion;  // "0.14.4"; none where DeepSpeed is not installed
  std::string origin;                       // "this machine", or the probe file's path
  std::vector<std::string> notes;           // probes that found nothing, and why
};

// The probe as a probe file (JSON, format 1), and back. A file of another format, or one whose
// values have the wrong types, is an error that says which.
std::string probeToJson(const MachineProbe& probe);
Expected<MachineProbe> probeFromJson(std::string_view text, const std::string& origin);

// nvidia-smi's answer to --query-gpu=name,compute_cap,driver_version --format=csv,noheader:
// one GPU per line. Lines it cannot read are left out. Older drivers (470 among them) have no
// compute_cap field and are asked for name,driver_version instead: a line of those two gets its
// compute capability from the GPU's name (computeCapabilityOfName), with a note that says so, or,
// for a name not in the table, is left out with a note.
void readNvidiaSmi(std::string_view csv, MachineProbe& probe);
// The compute capability of a GPU that the drivers without compute_cap run (Kepler to Ampere), by
// the name nvidia-smi prints ("Tesla V100-SXM2-32GB", "NVIDIA A100-SXM4-40GB", "GeForce RTX
// 2080 Ti"), from NVIDIA's table of CUDA GPUs; none for a name it does not know.
std::optional<std::pair<int, int>> computeCapabilityOfName(std::string_view name);
// The driver version in /proc/driver/nvidia/version ("... Kernel Module  535.104.05  ...").
std::optional<std::string> driverFromProcVersion(std::string_view text);
// torch/version.py's `__version__` and `cuda` (None for a CPU build), read as text.
void readTorchVersionFile(std::string_view text, MachineProbe& probe);
// The `version='0.14.4'` that DeepSpeed's installer writes in deepspeed/git_version_info_installed.py.
void readDeepSpeedVersionFile(std::string_view text, MachineProbe& probe);

// The oldest Linux driver that runs CUDA `cuda` ("12.1") with minor-version compatibility; none
// for a version this table does not know.
std::optional<std::string> minimumDriverFor(const std::string& cuda);
// Why a build with CUDA `cuda` ("12.4") can hold no code for a GPU of compute capability
// major.minor: the capability came with a later CUDA ("compute capability 12.0 needs CUDA 12.8 or
// newer"), or CUDA dropped it ("CUDA 13.0 no longer builds for compute capability 7.0"). None
// where it can, or for a capability the table does not know.
std::optional<std::string> cudaCannotBuildFor(const std::string& cuda, int major, int minor);
// Whether torch `version` ("2.5.1+cu124", "2.5.1") is one of PyTorch's release wheels, whose
// kernels are compiled for a list of architectures with no PTX a newer GPU could JIT-compile;
// not a source, NGC or nightly build ("2.3.0a0+40ec155e58.nv24.03", "2.6.0.dev20241112+cu124").
bool isReleaseWheel(std::string_view version);
// Compares dotted versions numerically ("470.57.02" < "525.60.13"): -1, 0 or 1.
int compareVersions(std::string_view a, std::string_view b);

}  // namespace denpex::core
