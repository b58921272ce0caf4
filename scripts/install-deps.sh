#!/usr/bin/env bash
# Installs what denpex needs to build and test on Debian 12, from Debian's registry only.
# Idempotent: asks apt only for packages that are missing.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config ccache
  libre2-dev nlohmann-json3-dev libyaml-cpp-dev libspdlog-dev
  libvectorscan-dev  # one multi-pattern pass over a block of log lines (big logs)
  libboost-dev libboost-filesystem-dev
  libgtest-dev
  python3            # the tests check that edited Python still compiles (py_compile)
  time               # bench/run.sh measures peak memory with /usr/bin/time
  ripgrep            # bench/run.sh compares with rg
  python3-yaml       # bench/grep_patterns.py reads the rules
  neovim             # Neovim 0.7's built-in LSP client drives `denpex lsp` in a test
  clang-14 libfuzzer-14-dev  # the fuzz targets (scripts/fuzz.sh): libFuzzer with ASan and UBSan
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# Node.js and npm: the machines come with Node 20; install Debian's where they do not.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >&2
fi
