#!/usr/bin/env bash
# Golden outputs: `denpex diagnose` on every committed example log must print exactly the text
# and JSON recorded in tests/golden/expected/. A refactoring that changes a byte of either fails
# here; a deliberate change of output is recorded with --update and reviewed in the diff.
#
# usage: tests/golden/check.sh DENPEX_BINARY [--update]
set -uo pipefail
denpex=$(realpath "$1")
update=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
expected="$root/tests/golden/expected"
cd "$root"   # fix plans are made against examples/ (not the whole tree, whose test fixtures come and go)

# The inputs: the example project's log, every rule example log, every recorded distributed
# run (the launcher's log, and each --log_dir folder as per-rank logs).
inputs=(examples/fp16-adamw/train.log)
while IFS= read -r f; do inputs+=("$f"); done < <(
  { find tests/rules -type f \( -path '*/match/*' -o -path '*/no_match/*' \)
    find tests/distributed -type f -name '*.log' -not -path '*/logs/*'; } | LC_ALL=C sort)
while IFS= read -r d; do inputs+=("$d"); done < <(find tests/distributed -mindepth 2 -maxdepth 2 -type d -name logs | LC_ALL=C sort)

# DENPEX_SWEEP_STRIDE=N compares every Nth input only (the sanitizer pass: the plain pass compares
# all); recording (--update) always writes every one.
stride=${DENPEX_SWEEP_STRIDE:-1}
[[ $update == --update || ! $stride =~ ^[1-9][0-9]*$ ]] && stride=1

[[ $update == --update ]] && rm -rf "$expected" && mkdir -p "$expected"
failed=0 checked=0 index=-1
for input in "${inputs[@]}"; do
  index=$((index + 1))
  (( index % stride == 0 )) || continue
  slug=$(printf '%s' "$input" | tr '/' '_')
  for format in text json; do
    out=$("$denpex" diagnose --color never --source examples --format "$format" "$input" 2>&1; echo "exit=$?")
    file="$expected/$slug.$format"
    if [[ $update == --update ]]; then
      printf '%s\n' "$out" >"$file"
      continue
    fi
    checked=$((checked + 1))
    if ! diff -u "$file" <(printf '%s\n' "$out") >/tmp/denpex-golden-diff.$$ 2>&1; then
      echo "golden: $input ($format) differs:"
      head -40 /tmp/denpex-golden-diff.$$
      failed=$((failed + 1))
    fi
  done
done
rm -f /tmp/denpex-golden-diff.$$
if [[ $update == --update ]]; then
  echo "golden: recorded ${#inputs[@]} inputs in $expected"
  exit 0
fi
# A stale expected file (an input that no longer exists) is a failure too.
want=$(( ${#inputs[@]} * 2 ))
have=$(find "$expected" -type f | wc -l)
if [[ $have -ne $want ]]; then
  echo "golden: $have expected files for $want outputs; run with --update after removing inputs"
  failed=$((failed + 1))
fi
echo "golden: $((checked - failed)) passed, $failed failed$( ((stride > 1)) && echo " (every ${stride}th input: DENPEX_SWEEP_STRIDE)")"
[[ $failed -eq 0 ]]
