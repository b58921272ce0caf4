// Probing this machine for the checks that need to know it (core/check/machine.h): GPUs and
// their compute capability (nvidia-smi), the driver (/proc/driver/nvidia/version), the size of
// /dev/shm (statvfs), container markers, and the installed torch's version file (found by
// Python's import machinery without importing torch). Cheap (nvidia-smi is the slow part, at
// most 10 seconds) and explicit: only `denpex probe` and `denpex check --probe local` run it,
// never the language server in an untrusted workspace.
#pragma once

#include "core/check/machine.h"

namespace denpex::io {

core::MachineProbe probeThisMachine();

}  // namespace denpex::io
