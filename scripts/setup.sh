#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install, build, and diagnose an example log.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
echo
echo "== build/denpex diagnose examples/fp16-adamw/train.log"
echo
# Exit status 1 means "a failure was diagnosed", which is what this example shows.
build/denpex diagnose examples/fp16-adamw/train.log || [[ $? -eq 1 ]]
