// Probing this machine for the checks that need to know it (core/check/machine.h): GPUs and
// their compute capability (nvidia-smi), the driver (/proc/driver/nvidia/version), the size of
// /dev/shm (statvfs), container markers, and the version files of the installed torch and
// DeepSpeed (found by Python's import machinery without importing them). Explicit: only
// `denpex probe` and `denpex check --probe local` run it, never the language server. Cheap:
// nvidia-smi, the slow part (up to seconds on a node of many GPUs, at most 10), is asked once per
// boot and loaded driver, its answer kept in the cache folder (io/cache_files.h) under this
// boot's id and the driver's version text, which a reboot or a driver reload changes.
#pragma once

#include "core/check/machine.h"

namespace denpex::io {

// `fresh`: ask nvidia-smi again, whatever the cache holds (and keep its new answer).
core::MachineProbe probeThisMachine(bool fresh = false);

}  // namespace denpex::io
