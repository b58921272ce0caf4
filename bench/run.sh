#!/usr/bin/env bash
# Every speed and memory figure of denpex, as ratios against references measured in the same run
# on the same files, so that they mean something on a shared machine. Each time is the best of
# a few runs, the commands taking turns (page cache warm).
#   bench/run.sh [SIZE_MIB] [LSP_SIZE_MIB]   (defaults 400 and 100; CI runs it small, as a smoke test)
#   BENCH_RSS_MIB=2048 bench/run.sh ...      also the peak RSS on a log of that size (written to a
#                                            temporary folder: it needs that much disk)
# Needs the build (scripts/build.sh), grep, ripgrep, python3 with PyYAML, /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-400}
lspSize=${2:-100}
runs=${BENCH_RUNS:-3}
denpex=build/denpex
work=$(mktemp -d)
# Rules other than the shipped ones are compiled once, then read from a cache
# (io/prefilter_cache.h): the bench's own, so that its first run compiles and the user's
# cache is left alone.
export DENPEX_CACHE_DIR="$work/cache"
trap 'rm -rf "$work"' EXIT

python3 bench/gen_log.py "$size" > "$work/big.log"
python3 bench/gen_log.py "$(awk -v s="$size" 'BEGIN{print s/2}')" > "$work/half.log"
python3 bench/grep_patterns.py rules > "$work/patterns.txt"
printf 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n' > "$work/small.log"
# The shipped rules twice over (each copy under another id): is the cost flat in the rules?
cp -r rules "$work/twins"
find "$work/twins" -name '*.yaml' | while read -r f; do
  sed -i -E 's/^id: (.*)$/id: \1-twin/' "$f"
  mv "$f" "${f%.yaml}-twin.yaml"
done
# The same log as a folder of per-rank files (torchrun --log_dir, or one file per rank): each
# rank's lines without their prefix, the lines of no rank in a file of their own.
mkdir "$work/ranks"
awk -v d="$work/ranks" 'match($0, /^\[rank[0-9]+\]:/) { print substr($0, RLENGTH + 1) > (d "/rank" substr($0, 6, RLENGTH - 7) ".log"); next }
  { print > (d "/launcher.log") }' "$work/big.log"
cat "$work/big.log" "$work/half.log" > /dev/null  # warm the page cache

# best RUNS CMD...: the best wall time of RUNS runs, "seconds peak_rss_kib", the time by the
# shell's clock (time's own %e has 10 ms steps: a fifth of what cat takes on the bench's log). With
# `best RUNS --diagnosis CMD...` every run must also exit with 1 (findings) and name the seed
# failure, so a crash or a wrong answer never prints as a fast time.
# Output goes to a file: GNU grep stops at the first match when it writes to /dev/null.
best() {
  local n=$1 check=0
  shift
  if ((n < 1)); then
    echo "bench: $n runs measure nothing" >&2
    touch "$work/failed"
    exit 1
  fi
  if [[ $1 == --diagnosis ]]; then check=1; shift; fi
  for ((i = 0; i < n; i++)); do
    local rc=0 t0 t1
    t0=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$work/time" "$@" > "$work/out" 2> "$work/err" || rc=$?
    t1=$EPOCHREALTIME
    if ((check)) && { [[ $rc != 1 ]] || ! grep -q '"rule": "adamw-eps-fp16-underflow"' "$work/out"; }; then
      echo "bench: '$*' exited with $rc without the expected diagnosis:" >&2
      head -c 2000 "$work/err" >&2
      touch "$work/failed"  # this runs in a subshell: the script checks the mark before printing
      exit 1
    fi
    echo "$(seconds "$t0" "$t1") $(grep -v '^Command' "$work/time")"
  done | sort -n | head -1
}
# seconds T0 T1: the time between two readings of $EPOCHREALTIME (bash's clock, in microseconds,
# read without starting a process).
seconds() { awk -v a="${1/,/.}" -v b="${2/,/.}" 'BEGIN{printf "%.4f", b - a}'; }
# clock CMD...: one run's wall time in seconds, its output thrown away, with nothing started but
# the command (best's /usr/bin/time and a shell to redirect would add milliseconds to cat's tens).
clock() {
  local t0 t1
  t0=$EPOCHREALTIME
  "$@" > /dev/null
  t1=$EPOCHREALTIME
  seconds "$t0" "$t1"
  echo
}
# ms RUNS CMD...: the best wall time in milliseconds, measured by the shell's clock
ms() {
  local n=$1
  shift
  for ((i = 0; i < n; i++)); do
    local t0 t1
    t0=$EPOCHREALTIME
    "$@" > /dev/null 2>&1 || true
    t1=$EPOCHREALTIME
    seconds "$t0" "$t1"
    echo
  done | sort -n | head -1 | awk '{printf "%.1f", $1 * 1000}'
}
ratio() { [[ $1 != - && $2 != - ]] || { echo -; return; }; awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / (b > 0 ? b : 0.001)}'; }

bytes=$(stat -c %s "$work/big.log")
# The timed commands take turns, one run of each per round, so that a neighbour busy for a while
# slows every one of them alike and the ratios between them hold; each figure is the best of its
# rounds. (The doubled rules' first run compiles their prefilter; the cache serves the others.)
# The floors (bench/scan_floor.cpp): the Vectorscan pass alone over every line on every core, and
# that pass with every line's metrics read. The stages' times (--stats): reading and applying run
# one block at a time, so the larger of the two is what no number of cores takes away; the three
# together are the CPU time that more cores would share.
for ((round = 0; round < runs; round++)); do
  best 1 --diagnosis "$denpex" diagnose --format json "$work/big.log" >> "$work/t.dx"
  best 1 grep -c -E -f "$work/patterns.txt" "$work/big.log" >> "$work/t.grep"
  best 1 rg -c -f "$work/patterns.txt" "$work/big.log" >> "$work/t.rg"
  # cat to /dev/null, as the issue measured it (GNU cat then copies in the kernel).
  clock cat "$work/big.log" >> "$work/t.cat"
  best 1 --diagnosis "$denpex" diagnose --format json "$work/half.log" >> "$work/t.half"
  best 1 --diagnosis "$denpex" diagnose --format json --rules "$work/twins" "$work/big.log" >> "$work/t.twins"
  best 1 --diagnosis "$denpex" diagnose --format json "$work/ranks" >> "$work/t.folder"
  if [[ -x build/scan_floor ]]; then build/scan_floor "$work/big.log" 3 >> "$work/t.floor"; fi
  # Where the time goes (denpex diagnose --stats): seconds, then reading, analysing and applying.
  { "$denpex" diagnose --stats --format json "$work/big.log" 2>&1 > /dev/null || true; } |
    awk '$1 == "stats:" { v[$2] = $3 } END { print v["seconds"], v["reading"], v["analysing"], v["applying"] }' >> "$work/t.stats"
done
[[ ! -e $work/failed ]] || exit 1
fastest() { if [[ -s $work/t.$1 ]]; then sort -n "$work/t.$1" | head -1; else echo -; fi; }
read -r t_dx m_dx < <(fastest dx)
read -r t_grep _ < <(fastest grep)
read -r t_rg _ < <(fastest rg)
read -r t_cat _ < <(fastest cat)
read -r t_half _ < <(fastest half)
read -r t_twins _ < <(fastest twins)
read -r t_folder _ < <(fastest folder)
read -r t_floor t_floor_metrics < <(fastest floor)
t_floor_metrics=${t_floor_metrics:--}
read -r t_one _ < <(best 1 --diagnosis "$denpex" diagnose --format json --threads 1 "$work/big.log")
startup=$(ms 10 "$denpex" diagnose "$work/small.log")
version=$(ms 10 "$denpex" version)
read -r s_wall s_read s_analyze s_apply < <(fastest stats)
"$denpex" diagnose --format json "$work/big.log" > "$work/parallel.json" || true
"$denpex" diagnose --format json --threads 1 "$work/big.log" > "$work/serial.json" || true
# Identical, and a diagnosis: two empty outputs (two crashes) are not "identical".
same=$(grep -q '"rule": "adamw-eps-fp16-underflow"' "$work/parallel.json" && cmp -s "$work/parallel.json" "$work/serial.json" &&
  echo identical || echo DIFFERENT)
[[ ! -e $work/failed ]] || exit 1

echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "log: $(awk -v b="$bytes" 'BEGIN{printf "%.0f MiB", b/1048576}'), $(wc -l < "$work/big.log") lines, 64 ranks; $(wc -l < "$work/patterns.txt") patterns (one per rule signal) for grep and rg"
echo
echo "| figure | measured | goal |"
echo "| --- | --- | --- |"
echo "| denpex diagnose --format json | ${t_dx} s, $(awk -v t="$t_dx" -v b="$bytes" 'BEGIN{printf "%.0f MiB/s", b/1048576/(t>0?t:0.001)}') | |"
echo "| grep -c -E -f patterns | ${t_grep} s | |"
echo "| rg -c -f patterns | ${t_rg} s | |"
echo "| cat > /dev/null | ${t_cat} s | |"
echo "| denpex / grep | $(ratio "$t_dx" "$t_grep") | <= 1.0 |"
echo "| denpex / rg | $(ratio "$t_dx" "$t_rg") | < 1.0 |"
echo "| denpex / cat | $(ratio "$t_dx" "$t_cat") | <= 4 |"
echo "| the Vectorscan pass alone over every line (all cores, no parse, no RE2) / cat | $(ratio "$t_floor" "$t_cat") (${t_floor} s) | |"
echo "| that pass and every line's metrics read / cat (the floor under denpex / cat for today's answers) | $(ratio "$t_floor_metrics" "$t_cat") (${t_floor_metrics} s) | |"
echo "| denpex, one thread / all cores | $(ratio "$t_one" "$t_dx") | |"
echo "| where the time went (--stats, its best run: ${s_wall} s): reading, analysing (all threads added up), applying in order | ${s_read} s, ${s_analyze} s, ${s_apply} s | |"
echo "| the one-block-at-a-time stage (the larger of reading and applying) / cat: the least denpex / cat on any number of cores, before start-up and the report | $(awk -v r="$s_read" -v a="$s_apply" -v c="$t_cat" 'BEGIN{m = r > a ? r : a; printf "%.2f", m / (c > 0 ? c : 0.001)}') | |"
echo "| cores for denpex / cat <= 4, estimated from those: the 3-line log's time (start-up, rules, the report) plus the three stages' time shared by the cores, or the one-at-a-time stage where that is longer | $(awk -v r="$s_read" -v n="$s_analyze" -v a="$s_apply" -v c="$t_cat" -v f="$startup" 'BEGIN{m = r > a ? r : a; g = 4 * c - f / 1000; if (m >= g) print "none"; else { k = (r + n + a) / g; printf "%d (estimated, not measured)", (k == int(k) ? k : int(k) + 1) } }') | |"
echo "| the same log as a folder, one file per rank / as one file | $(ratio "$t_folder" "$t_dx") (${t_folder} s) | |"
echo "| parallel and serial JSON | ${same} | identical |"
echo "| log twice as long / once (linear: 2.0) | $(ratio "$t_dx" "$t_half") | 2.0 |"
echo "| rules twice as many / once (flat: 1.0; compiled on the first run, then cached) | $(ratio "$t_twins" "$t_dx") | 1.0 |"
echo "| peak RSS | $(awk -v m="$m_dx" 'BEGIN{printf "%.0f MiB", m/1024}') | <= 100 MiB |"
if [[ -n ${BENCH_RSS_MIB:-} ]]; then
  # The memory goal holds for any size: the peak on a log far larger than the one timed above.
  rm -f "$work/half.log" "$work/parallel.json" "$work/serial.json"
  python3 bench/gen_log.py "$BENCH_RSS_MIB" > "$work/huge.log"
  read -r t_huge m_huge < <(best 1 --diagnosis "$denpex" diagnose --format json "$work/huge.log")
  [[ ! -e $work/failed ]] || exit 1
  echo "| peak RSS, a $(awk -v b="$(stat -c %s "$work/huge.log")" 'BEGIN{printf "%.0f MiB", b/1048576}') log (${t_huge} s) | $(awk -v m="$m_huge" 'BEGIN{printf "%.0f MiB", m/1024}') | <= 100 MiB |"
  rm -f "$work/huge.log"
fi
echo "| start-up: diagnose a 3-line log | ${startup} ms | <= 20 ms |"
echo "| denpex version (process start alone) | ${version} ms | |"

if [[ -x build/lsp_latency ]]; then
  echo
  build/lsp_latency "$lspSize" "$work/big.log"  # and "Diagnose File" on the CLI's log, from disk
fi

# What one line costs, by kind, against finding and copying it (bench/line_costs.cpp): where a
# per-line change shows when the figures above cannot tell it from the machine's noise.
if [[ -x build/line_costs ]]; then
  echo
  build/line_costs
fi

# Figures are not judged here, but a wrong answer is: the parallel path must say what the serial one says.
if [[ $same != identical ]]; then
  echo "bench: the parallel and serial diagnoses differ" >&2
  exit 1
fi
