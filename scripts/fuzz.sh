#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (AddressSanitizer and UndefinedBehaviorSanitizer
# on every library they link) in build-asan/, and runs each for FUZZ_SECONDS seconds (default 30)
# from its seed corpus in fuzz/corpus/<target>/, printing how many inputs each one ran. Inputs
# the fuzzer finds go to a scratch folder, never into the repository. Exits 1 on any crash, leak,
# sanitizer report, time-out or memory blow-up, with the reproducer kept in build-asan/findings/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
targets=(lsp_messages parse_message log_lines rule_files python_edit json_spans)
scripts/configure-asan.sh
cmake --build build-asan -j "${DENPEX_JOBS:-2}" --target "${targets[@]/#/fuzz_}"
mkdir -p build-asan/findings
status=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  cp -r "fuzz/corpus/$t/." "$work/"
  log=build-asan/findings/$t.log
  if ! build-asan/fuzz/fuzz_$t -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -max_len=65536 \
       -artifact_prefix="build-asan/findings/$t-" -print_final_stats=1 "$work" >"$log" 2>&1; then
    echo "fuzz: $t FAILED (see $log):" >&2
    grep -E "ERROR|SUMMARY|Test unit written" "$log" >&2 || tail -20 "$log" >&2
    status=1
  fi
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  peak=$(grep -oE 'stat::peak_rss_mb: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  echo "fuzz: $t: $runs inputs in ${seconds}s, peak RSS ${peak} MiB"
  rm -rf "$work"
done
exit $status
