#!/usr/bin/env bash
# Configures and builds everything C++ into build/ (two parallel jobs: the machines have 2 cores).
# Extra arguments go to cmake's configure step, e.g. -DDENPEX_WERROR=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j "${DENPEX_JOBS:-2}"
