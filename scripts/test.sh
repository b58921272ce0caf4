#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install, build (warnings as errors), run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DDENPEX_WERROR=ON
npm ci --no-audit --no-fund --loglevel=error
node scripts/package-vsix.mjs --skip-server-build   # the .vsix the end-to-end test installs
scripts/check-portable.sh                           # and the oldest Linux its server runs on
(cd build && ctest -j2 --output-on-failure)
# The C++ suite again under AddressSanitizer and UndefinedBehaviorSanitizer, then every fuzz
# target for a bounded time (FUZZ_SECONDS each).
scripts/sanitize.sh
FUZZ_SECONDS=${FUZZ_SECONDS:-60} scripts/fuzz.sh
