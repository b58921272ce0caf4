#!/usr/bin/env bash
# Runs tests/clients/nvim/lsp_flow.lua in headless Neovim on a scratch copy of the seed example.
#   run.sh DENPEX_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
command -v nvim >/dev/null || { echo "nvim is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src"/examples/fp16-adamw/{train.py,fp16_adamw_cpu.py,train.log} "$work"/
export DENPEX_BINARY=$1 WORKDIR=$work XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config
timeout 120 nvim --headless --clean -n -c "luafile $here/lsp_flow.lua" 2>&1
