#!/usr/bin/env bash
# Checks that the server the VS Code package ships runs on the oldest Linux the README names:
# no file in it may need a glibc symbol newer than GLIBC_MAX or a libstdc++ symbol newer than
# GLIBCXX_MAX (the binary links libstdc++ in; only the simdjson library beside it uses the
# system's). Prints what each file needs.
#   scripts/check-portable.sh [SERVER_DIR]     (default vscode-client/server)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-vscode-client/server}
GLIBC_MAX=2.34      # RHEL/Rocky 9, Ubuntu 22.04, Debian 12
GLIBCXX_MAX=3.4.21  # libstdc++ of GCC 5 and newer
[[ -x $dir/denpex ]] || { echo "check-portable: no $dir/denpex (run node scripts/package-vsix.mjs)" >&2; exit 1; }

# newest PREFIX FILE: the newest PREFIX_x.y[.z] symbol version FILE needs ("-" when none)
newest() {
  local v
  v=$(objdump -T "$2" | grep -o "($1_[0-9.]*)" | tr -d '()' | sed "s/^$1_//" | sort -V | tail -1)
  echo "${v:--}"
}
# newer A B: whether version A is newer than B
newer() { [[ $1 != - && $1 != "$2" && $(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -1) == "$1" ]]; }

failed=0
for f in "$dir/denpex" "$dir"/lib/*; do
  [[ -f $f ]] || continue
  glibc=$(newest GLIBC "$f")
  glibcxx=$(newest GLIBCXX "$f")
  printf '%-40s glibc %-6s libstdc++ %s\n' "${f#"$dir"/}" "$glibc" "$glibcxx"
  if newer "$glibc" "$GLIBC_MAX"; then echo "  needs glibc $glibc, newer than $GLIBC_MAX" >&2; failed=1; fi
  if newer "$glibcxx" "$GLIBCXX_MAX"; then echo "  needs GLIBCXX_$glibcxx, newer than $GLIBCXX_MAX" >&2; failed=1; fi
done
if ((failed)); then
  echo "check-portable: the packaged server needs a newer system than the README promises" >&2
  exit 1
fi
echo "check-portable: runs with glibc $GLIBC_MAX and libstdc++ GLIBCXX_$GLIBCXX_MAX or newer"
