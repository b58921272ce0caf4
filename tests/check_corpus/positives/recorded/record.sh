#!/usr/bin/env bash
# Records, with real PyTorch on CPU, what a positive that runs here does before and after the
# fix `denpex check --apply` writes: <name>.before.log (the failure the check foresaw) and
# <name>.after.log (the fixed script training). CI does not need PyTorch: it reads the logs.
#   tests/check_corpus/positives/recorded/record.sh DENPEX [PYTHON]    (Debian's python3-torch)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
denpex=$(realpath "$1")
python=${2:-/usr/bin/python3}
for name in ddp_unused_head; do
  work=$(mktemp -d)
  cp "$here/../$name.py" "$work/train.py"
  (cd "$work" && timeout 300 "$python" train.py > before.log 2>&1) || true
  (cd "$work" && "$denpex" check --apply train.py > /dev/null) || true
  (cd "$work" && timeout 300 "$python" train.py > after.log 2>&1)
  # Only the text: the temporary folder's name is not part of the record.
  sed "s|$work/||g" "$work/before.log" > "$here/$name.before.log"
  sed "s|$work/||g" "$work/after.log" > "$here/$name.after.log"
  rm -rf "$work"
  echo "recorded $name: $(grep -c '^step' "$here/$name.before.log") steps before the fix, $(grep -c '^step' "$here/$name.after.log") after"
done
