#!/usr/bin/env bash
# The whole C++ test suite again, in a build with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-asan/): a sanitizer report ends the process with an error, so the test that caused it
# fails. The VS Code lane and the benchmark are left to the plain build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDENPEX_SANITIZE=ON -DDENPEX_WERROR=ON >/dev/null
cmake --build build-asan -j "${DENPEX_JOBS:-2}"
cd build-asan
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest -j2 -LE 'vscode|bench' --output-on-failure
