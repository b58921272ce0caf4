"""Regenerate every recorded log (examples/fp16-adamw/train.log and the rule
test logs under tests/rules/) by running the example scripts for real.

    python3 examples/recording/record.py          # record, post-process, check
    python3 examples/recording/record.py --check  # run and check only, write nothing

Use an interpreter that has torch 1.13 (on Debian, the system python3).

Each script runs in its own directory with a relative script name, stdout and
stderr captured together (PYTHONUNBUFFERED=1, so lines stay in the order they
were written), one CPU thread. Post-processing: Python prints absolute paths in
tracebacks, so before a log is written the repository root is replaced by
/home/user/project and the directory holding the torch package by
/home/user/project/.venv/lib/pythonX.Y/site-packages. The recorder fails if a
path of the recording machine is left in a log.
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FP16_DIR = REPO / "examples" / "fp16-adamw"
RULES = REPO / "tests" / "rules"

NEUTRAL_REPO = "/home/user/project"
NEUTRAL_SITE = (f"/home/user/project/.venv/lib/"
                f"python{sys.version_info.major}.{sys.version_info.minor}/site-packages")

STEP_RE = re.compile(r"^step (\d+) \| loss (\S+) \| grad_norm (\S+) \| lr (\S+)$")

# name -> (cwd, script, args, expected exit status, expected first non-finite step or None,
#          output paths relative to the repository root)
RUNS = {
    "train": (FP16_DIR, "train.py", [], 1, 2, [
        "examples/fp16-adamw/train.log",
        "tests/rules/adamw-eps-fp16-underflow/match/traceback.log",
    ]),
    "pure-fp16": (HERE, "fp16_run.py", ["--steps", "6"], 0, 2, [
        "tests/rules/adamw-eps-fp16-underflow/match/pure-fp16-step2.log",
        "tests/rules/gradient-explosion/no_match/pure-fp16-step2.log",
    ]),
    "late-unfreeze": (HERE, "fp16_run.py", ["--unfreeze-at", "30", "--steps", "34"], 0, 31, [
        "tests/rules/adamw-eps-fp16-underflow/match/late-unfreeze.log",
    ]),
    "fp16-eps1e-5": (HERE, "fp16_run.py", ["--eps", "1e-5", "--steps", "30"], 0, None, [
        "tests/rules/adamw-eps-fp16-underflow/no_match/fp16-eps1e-5-healthy.log",
    ]),
    "bf16-eps1e-8": (HERE, "fp16_run.py", ["--dtype", "bfloat16", "--steps", "30"], 0, None, [
        "tests/rules/adamw-eps-fp16-underflow/no_match/bf16-eps1e-8.log",
    ]),
    "explode": (HERE, "fp16_run.py", ["--dtype", "float32", "--optimizer", "sgd", "--lr", "2e-3",
                                      "--explode", "--steps", "10"], 0, 7, [
        "tests/rules/gradient-explosion/match/sgd-high-lr.log",
        "tests/rules/adamw-eps-fp16-underflow/no_match/gradient-explosion.log",
    ]),
    "half-addmm": (HERE, "half_forward_cpu.py", [], 1, None, [
        "tests/rules/cpu-half-op-unsupported/match/addmm.log",
    ]),
    "half-addcmul": (HERE, "half_adamw_step_cpu.py", [], 1, None, [
        "tests/rules/cpu-half-op-unsupported/match/addcmul.log",
    ]),
}

# text each log must contain
MUST_CONTAIN = {
    "train": ["eps: 1e-08", "param dtype: torch.float16", "FloatingPointError: loss is nan at step 2",
              'examples/fp16-adamw/train.py", line'],
    "pure-fp16": ["eps: 1e-08", "param dtype: torch.float16"],
    "late-unfreeze": ["eps: 1e-08", "param dtype: torch.float16", "unfreezing backbone at step 30"],
    "fp16-eps1e-5": ["eps: 1e-05", "param dtype: torch.float16"],
    "bf16-eps1e-8": ["eps: 1e-08", "param dtype: torch.bfloat16"],
    "explode": ["SGD (", "param dtype: torch.float32"],
    "half-addmm": ["RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'"],
    "half-addcmul": ["RuntimeError: \"addcmul_cpu_out\" not implemented for 'Half'"],
}


def torch_site_dir():
    out = subprocess.run([sys.executable, "-c", "import os, torch; print(os.path.dirname("
                          "os.path.dirname(os.path.abspath(torch.__file__))))"],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def run_script(cwd, script, args):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, script, *args], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout


def neutralise(text, site_dir):
    # longest prefix first, so a site dir inside the repository is mapped as a site dir
    for old, new in sorted([(str(REPO), NEUTRAL_REPO), (site_dir, NEUTRAL_SITE)],
                           key=lambda p: -len(p[0])):
        text = text.replace(old, new)
    return text


def step_lines(text):
    rows = []
    for line in text.splitlines():
        m = STEP_RE.match(line)
        if m:
            rows.append((int(m.group(1)), float(m.group(2)), float(m.group(3))))
    return rows


def first_nonfinite(rows, text):
    for step, loss, _ in rows:
        if not math.isfinite(loss):
            return step
    m = re.search(r"FloatingPointError: loss is \S+ at step (\d+)", text)  # train.py raises
    return int(m.group(1)) if m else None


def check_eps_variant():
    """train.py must also run unchanged with `, eps=1e-5` on its AdamW line."""
    src = (FP16_DIR / "train.py").read_text()
    line = "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)"
    assert src.count(line + "\n") == 1, "AdamW line not found in train.py"
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "train.py").write_text(src.replace(line, line[:-1] + ", eps=1e-5)"))
        shutil.copy(FP16_DIR / "fp16_adamw_cpu.py", tmp)
        rc, out = run_script(tmp, "train.py", [])
    rows = step_lines(out)
    ok = rc == 0 and "eps: 1e-05" in out and len(rows) == 20 and first_nonfinite(rows, out) is None
    print(f"{'ok ' if ok else 'BAD'} train.py with eps=1e-5: exit {rc}, {len(rows)} steps, "
          f"first non-finite: {first_nonfinite(rows, out) or 'finite'}")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="run and check, write no files")
    opts = ap.parse_args()

    site_dir = torch_site_dir()
    leaks = [str(REPO), site_dir, str(Path.home())]
    all_ok = True
    for name, (cwd, script, args, want_rc, want_nan, outputs) in RUNS.items():
        rc, out = run_script(cwd, script, args)
        out = neutralise(out, site_dir)
        rows = step_lines(out)
        nan_step = first_nonfinite(rows, out)
        problems = []
        if rc != want_rc:
            problems.append(f"exit {rc}, expected {want_rc}")
        if nan_step != want_nan:
            problems.append(f"first non-finite step {nan_step}, expected {want_nan}")
        problems += [f"missing {s!r}" for s in MUST_CONTAIN[name] if s not in out]
        problems += [f"machine path {p!r} left in log" for p in leaks if len(p) > 1 and p in out]
        before = [f"{g:g}" for s, l, g in rows if nan_step is None or s < nan_step][-4:]
        print(f"{'ok ' if not problems else 'BAD'} {name}: exit {rc}, {len(out.splitlines())} lines, "
              f"first non-finite step: {nan_step or 'finite'}, last grad_norms before: {before}")
        for p in problems:
            print(f"      {p}")
        all_ok &= not problems
        if not opts.check:
            for rel in outputs:
                path = REPO / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(out)
    all_ok &= check_eps_variant()
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
