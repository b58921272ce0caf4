#!/usr/bin/env bash
# The whole C++ test suite again, built with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# into build-asan/ (the same build holds the fuzz targets: scripts/fuzz.sh): a sanitizer report
# ends the process with an error, so the test that caused it fails. The VS Code lane and the
# benchmark are left to the plain build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/configure-asan.sh
cmake --build build-asan -j "${DENPEX_JOBS:-2}"
cd build-asan
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The sweeps over every committed log (golden outputs, SARIF schema, parallel-versus-serial) read
# every 8th log here: the plain pass has compared them all, and instrumented they took two thirds
# of this pass.
export DENPEX_SWEEP_STRIDE=${DENPEX_SWEEP_STRIDE:-8}
ctest -j2 -LE 'vscode|bench' --output-on-failure
