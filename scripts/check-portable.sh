#!/usr/bin/env bash
# Checks that the server the VS Code package ships runs on any x86-64 Linux, however old its C
# library (RHEL 8 and Ubuntu 20.04 login nodes: glibc 2.28 and 2.31): the binary must be static
# (no interpreter, no shared library, no versioned symbol to resolve) and the package must carry
# nothing else to load. Then it is run where there is no C library at all, a root folder holding
# only the binary and a log: it must diagnose the log there as it does here. Prints what it saw.
#   scripts/check-portable.sh [SERVER_DIR]     (default vscode-client/server; needs root or
#                                               user namespaces, for chroot)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-vscode-client/server}
bin=$dir/denpex
[[ -x $bin ]] || { echo "check-portable: no $bin (run node scripts/package-vsix.mjs)" >&2; exit 1; }
fail() { echo "check-portable: $*" >&2; exit 1; }

# Static: no program interpreter, no NEEDED entry, no symbol version of any library.
if readelf -l "$bin" | grep -q 'Requesting program interpreter'; then fail "$bin asks for a dynamic loader"; fi
needed=$(readelf -d "$bin" 2>/dev/null | grep -c '(NEEDED)' || true)
((needed == 0)) || fail "$bin needs $needed shared libraries: $(readelf -d "$bin" | grep '(NEEDED)' | tr -s ' ' | cut -d' ' -f6- | tr '\n' ' ')"
versions=$(objdump -T "$bin" 2>/dev/null | grep -oE '\((GLIBC|GLIBCXX|CXXABI|GCC)_[0-9.]+\)' | sort -u | tr '\n' ' ' || true)
[[ -z $versions ]] || fail "$bin needs symbol versions $versions"
extra=$(find "$dir" -name '*.so*' | head -5)
[[ -z $extra ]] || fail "the package carries shared libraries it should not need: $extra"
kernel=$(readelf -n "$bin" | grep -oE 'ABI: [0-9.]+' | cut -d' ' -f2 || true)
echo "check-portable: $bin is static (no loader, no shared library, no symbol version); oldest kernel ${kernel:-unknown}"


# Run it in a root with nothing else in it.
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cp "$bin" "$root/denpex"
printf 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n' > "$root/run.log"
if [[ $(id -u) == 0 ]]; then jail=(chroot "$root"); else jail=(unshare -r chroot "$root"); fi
rc=0
out=$("${jail[@]}" /denpex diagnose --format json /run.log 2>&1) || rc=$?
if [[ $rc != 1 ]] || ! grep -q '"rule": "cuda-out-of-memory"' <<< "$out"; then
  echo "$out" | head -20 >&2
  fail "in a root with no C library the server exited with $rc and without the expected diagnosis"
fi
# The language server too: initialize, open the log (diagnosed on the server's worker thread),
# shut down, exit.
frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }
log=$(sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' "$root/run.log" | awk '{printf "%s\\n", $0}')
session() {
  frame '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}'
  frame '{"jsonrpc":"2.0","method":"initialized","params":{}}'
  frame '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///run.log","languageId":"log","version":1,"text":"'"$log"'"}}}'
  sleep 1
  frame '{"jsonrpc":"2.0","id":2,"method":"shutdown"}'
  frame '{"jsonrpc":"2.0","method":"exit"}'
}
rc=0
out=$(session | "${jail[@]}" /denpex lsp 2>&1) || rc=$?
if [[ $rc != 0 ]] || ! grep -q '"code":"cuda-out-of-memory"' <<< "$out"; then
  echo "$out" | head -c 3000 >&2
  fail "in a root with no C library the language server exited with $rc without publishing the diagnosis"
fi
echo "check-portable: in a root with no C library, 'denpex diagnose' and 'denpex lsp' name cuda-out-of-memory: runs on any x86-64 Linux from kernel ${kernel:-3.2}"

# The relinking kit (LGPL 2.1, section 6a): linked with this system's C library as its README
# says, it must give a server that answers as the shipped one does.
kit=$dir/relink/denpex-relink.o
[[ -f $kit && -f $dir/relink/README.txt ]] || fail "the package carries no relinking kit ($kit and its README.txt)"
gcc -static -o "$root/relinked" "$kit" -lm || fail "$kit does not link with this system's C library"
a=$("$root/relinked" diagnose --format json "$root/run.log" 2>&1 || true)
b=$("$bin" diagnose --format json "$root/run.log" 2>&1 || true)
[[ $a == "$b" ]] || fail "the server relinked from $kit does not answer as $bin does"
echo "check-portable: $kit ($(($(stat -c %s "$kit") / 1048576)) MiB) links with this system's C library into a server that answers as $bin does"
