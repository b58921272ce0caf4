#!/usr/bin/env bash
# Throughput and peak memory of `denpex diagnose` on a large synthetic log, as ratios against
# references measured in the same run on the same file (grep -c reads it at disk speed, and
# `wc -l` counts lines), so the figures mean something on a shared machine.
#   bench/run.sh [SIZE_MB]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-200}
log=$(mktemp --suffix=.log)
trap 'rm -f "$log"' EXIT
python3 bench/gen_log.py "$size" > "$log"
bytes=$(stat -c %s "$log")
measure() {  # prints "seconds max_rss_kib" for a command
  /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1
}
cat "$log" >/dev/null  # warm the page cache
read -r t_wc m_wc < <(measure wc -l "$log")
read -r t_grep m_grep < <(measure grep -c 'loss nan' "$log")
read -r t_dx m_dx < <(measure sh -c "build/denpex diagnose --format json '$log' || true")
mb=$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1048576}')
echo "log: ${mb} MiB, $(wc -l < "$log") lines"
awk -v t="$t_dx" -v b="$bytes" -v m="$m_dx" 'BEGIN{printf "denpex diagnose: %.2f s, %.1f MiB/s, peak RSS %.1f MiB\n", t, b/1048576/(t>0?t:0.01), m/1024}'
awk -v t="$t_wc" -v m="$m_wc" 'BEGIN{printf "wc -l (reference): %.2f s, peak RSS %.1f MiB\n", t, m/1024}'
awk -v t="$t_grep" -v m="$m_grep" 'BEGIN{printf "grep -c (reference): %.2f s, peak RSS %.1f MiB\n", t, m/1024}'
awk -v a="$t_dx" -v b="$t_grep" -v ma="$m_dx" -v mb="$m_grep" -v size="$bytes" \
  'BEGIN{printf "ratio denpex/grep time: %.1fx; denpex peak RSS / log size: %.4f\n", a/(b>0?b:0.01), ma*1024/size}'
