#!/usr/bin/env bash
# Configures build-asan/: everything built with clang, AddressSanitizer, UndefinedBehaviorSanitizer
# and libFuzzer's coverage, at -O1 without debug tables (a quicker build; reports still name the
# line). scripts/sanitize.sh runs the tests from it; scripts/fuzz.sh its fuzz targets.
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=clang++-14 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only" \
  -DDENPEX_FUZZ=ON -DDENPEX_TESTS=ON >/dev/null
