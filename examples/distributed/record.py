"""Record the torchrun failure logs under tests/distributed/ by running them for real.

    /usr/bin/python3 examples/distributed/record.py            # record every scenario
    /usr/bin/python3 examples/distributed/record.py kill-tee   # record some of them
    /usr/bin/python3 examples/distributed/record.py --check    # run and check, write nothing

Use an interpreter that has torch 1.13 (on Debian, the system python3). Each
scenario launches 4 CPU ranks (6 in one) of worker.py or seed_worker.py with torchrun (through
torchrun_py311.py, see there why) in this directory; rank 2 fails (rank 0 or 3 in two scenarios).
The whole launcher output, stdout and stderr together in the order written, is
saved as tests/distributed/<scenario>/torchrun.log. With --log_dir, the files
torchrun writes per rank are copied to tests/distributed/<scenario>/logs/ in
the layout torchrun made. Next to them, expected.json says what a correct
diagnosis must find.

Post-processing, the only change made to what torchrun wrote: paths of the
recording machine are replaced by neutral ones (see NEUTRAL_* below and
README.md). The recorder fails if one is left. Timing varies between runs, so
the interleaving of ranks, pids, ports and times differ from one recording to
the next; the rank torchrun names as the root cause can differ too, and
expected.json records the one in the log that was written.
"""
import argparse
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OUT = REPO / "tests" / "distributed"

NEUTRAL_REPO = "/home/user/project"
NEUTRAL_SITE = (f"/home/user/project/.venv/lib/"
                f"python{sys.version_info.major}.{sys.version_info.minor}/site-packages")
NEUTRAL_PYTHON = "/home/user/project/.venv/bin/python3"
NEUTRAL_LOG_DIR = "/home/user/project/logs"  # --log_dir; its files go to <scenario>/logs/
NEUTRAL_HOST = "node0"

WORLD_SIZE = 4  # unless a scenario says otherwise
FAIL_RANK = 2
FAIL_STEP = 3
STANDALONE = ["--standalone"]
# --standalone picks a random run id; a fixed one makes the --log_dir folder
# start with "denpex_" (torchrun appends a random suffix anyway)
C10D = ["--nnodes", "1", "--rdzv_backend", "c10d", "--rdzv_endpoint", "localhost:0",
        "--rdzv_id", "denpex"]
LOG_DIR = object()  # placeholder for the temporary --log_dir

# name -> (launcher flags, failure mode, @record)
SCENARIOS = {
    "raise-tee": (STANDALONE + ["--tee", "3"], "raise", False),
    "raise-record-tee": (STANDALONE + ["--tee", "3"], "raise", True),
    "raise-plain": (STANDALONE, "raise", False),
    # Without --tee the lines carry no rank; what is left to tell the ranks apart is the
    # launcher: the tracebacks its summary prints (@record), its exit codes and its SIGTERMs.
    "raise-record-plain": (STANDALONE, "raise", True),
    "kill-plain": (STANDALONE, "kill", False),
    "hang-plain": (STANDALONE, "hang", False),
    "kill-tee": (STANDALONE + ["--tee", "3"], "kill", False),
    "hang-tee": (STANDALONE + ["--tee", "3"], "hang", False),
    "raise-logdir": (C10D + ["--log_dir", LOG_DIR, "--redirects", "3"], "raise", True),
    "hang-logdir": (C10D + ["--log_dir", LOG_DIR, "--redirects", "3"], "hang", True),
    # The seed failure (seed_worker.py): rank 0 prints the run's configuration, rank 2's loss
    # turns NaN after hundreds of steps and it raises; the others lose their gloo connection.
    "seed-tee": (STANDALONE + ["--tee", "3"], "nan", False),
    "seed-logdir": (C10D + ["--log_dir", LOG_DIR, "--redirects", "3"], "nan", True),
    # Another rank and another world size. When rank 0 fails first, torchrun's "Root Cause"
    # (the lowest rank among the first second's failures) is right, and nothing need be said.
    "raise-rank0-tee": (STANDALONE + ["--tee", "3"], "raise", False, {"fail_rank": 0}),
    "kill-rank3-w6-tee": (STANDALONE + ["--tee", "3"], "kill", False, {"fail_rank": 3, "world_size": 6}),
}
UNFREEZE_STEP = 300  # seed_worker.py: the step at which rank 2's adapter starts training

# what the failing rank's own failure looks like; must be in the launcher output
# (or, with --redirects, in that rank's stderr.log)
FAILURE_TEXT = {
    "raise": "is out of bounds for dimension 0 with size 64",  # IndexError: index 1020 (rank 2)
    "kill": "Signal 9 (SIGKILL) received by PID",
    "hang": "Timed out waiting 20000ms",
    "nan": f"FloatingPointError: loss is nan at step {UNFREEZE_STEP + 1}",
}
# what rank 0 prints once about the whole run (seed_worker.py)
CONFIG_TEXT = ["param dtype: torch.float16", "    eps: 1e-08"]

ROOT_CAUSE_RE = re.compile(r"^Root Cause \(first observed failure\):\n\[\d+\]:\n"
                           r"(?:  \w+\s*: .*\n)*?  rank\s*: (\d+) ", re.M)


def torch_site_dir():
    out = subprocess.run([sys.executable, "-c", "import os, torch; print(os.path.dirname("
                          "os.path.dirname(os.path.abspath(torch.__file__))))"],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


class Neutraliser:
    def __init__(self, site_dir, tmp, log_dir):
        # longest prefix first, so a path inside another one is mapped by the inner rule
        # TMPDIR points into the recorder's temporary folder; torchrun's default
        # log folder (/tmp/torchelastic_*) is made there and shown as /tmp/...
        self.pairs = sorted([(str(REPO), NEUTRAL_REPO), (site_dir, NEUTRAL_SITE),
                             (str(log_dir), NEUTRAL_LOG_DIR), (str(tmp), "/tmp")],
                            key=lambda p: -len(p[0]))
        self.python = os.path.realpath(sys.executable)
        self.pythons = sorted({sys.executable, self.python}, key=len, reverse=True)
        self.hosts = {h for h in (socket.gethostname(), socket.getfqdn()) if h and h != "localhost"}
        self.leaks = [str(REPO), site_dir, str(tmp), "denpex-record-", str(Path.home()) + "/"]

    def __call__(self, text):
        for old, new in self.pairs:
            text = text.replace(old, new)
        for exe in self.pythons:  # "of binary: /usr/bin/python3"; only whole paths
            text = re.sub(rf"(?<![\w/.]){re.escape(exe)}(?![\w./])", NEUTRAL_PYTHON, text)
        for host in self.hosts:  # torchrun's summary: "  host      : <hostname>"
            text = re.sub(rf"^(\s*host\s*: ){re.escape(host)}$", rf"\g<1>{NEUTRAL_HOST}",
                          text, flags=re.M)
        return text

    def leaks_in(self, text):
        found = [p for p in self.leaks if p in text]
        found += [exe for exe in self.pythons
                  if re.search(rf"(?<![\w/.]){re.escape(exe)}(?![\w./])", text)]
        found += [f"host {h}" for h in self.hosts
                  if re.search(rf"^\s*host\s*: {re.escape(h)}$", text, re.M)]
        return found


def read_terminal(master, proc, timeout):
    """Everything written to the pseudo-terminal until the launcher exits and the
    terminal has been quiet for a moment (or every writer has closed it)."""
    chunks, deadline, quiet_since = [], time.monotonic() + timeout, None
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: no process holds the terminal any more
                break
            if not data:
                break
            chunks.append(data)
            quiet_since = None
            continue
        if proc.poll() is not None:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 1.0:
                break
        elif time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)  # the session started below: launcher + workers
            chunks.append(f"\n[record.py: killed after {timeout} s]\n".encode())
            deadline = float("inf")
    return b"".join(chunks).decode()


def run_torchrun(launch, mode, use_record, tmp, log_dir, world_size, fail_rank):
    if mode == "nan":
        worker = ["seed_worker.py", "--fail-rank", str(fail_rank), "--unfreeze-step", str(UNFREEZE_STEP)]
    else:
        worker = ["worker.py", "--fail-rank", str(fail_rank), "--fail-step", str(FAIL_STEP), "--mode", mode]
    argv = [sys.executable, "torchrun_py311.py", "--nproc_per_node", str(world_size),
            *[str(log_dir) if a is LOG_DIR else a for a in launch],
            *worker] + (["--record"] if use_record else [])
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(tmp), TERM="dumb")
    # torchrun sets OMP_NUM_THREADS=1 itself and says so; keep that banner in the log
    env.pop("OMP_NUM_THREADS", None)
    env.pop("PYTHONUNBUFFERED", None)
    # Launcher and workers write to a terminal, as when run interactively: every
    # process's stdout is line-buffered, so lines arrive whole and in the order
    # they were written. (Into a pipe, the launcher would hold back the [defaultN]
    # lines it copies to stdout until it exits.) The terminal does not turn
    # "\n" into "\r\n".
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=HERE, env=env, stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave, start_new_session=True)
    os.close(slave)
    try:
        out = read_terminal(master, proc, timeout=180)
    finally:
        os.close(master)
    rc = proc.wait()
    return rc, out, time.monotonic() - start


def root_cause_rank(text):
    m = ROOT_CAUSE_RE.search(text)
    return int(m.group(1)) if m else None


def check(name, mode, use_record, launch, rc, log, files, world_size, fail_rank):
    problems = []
    if rc != 1:
        problems.append(f"torchrun exit {rc}, expected 1")
    script = "seed_worker.py" if mode == "nan" else "worker.py"
    if f"{script} FAILED" not in log:
        problems.append(f"no '{script} FAILED' summary")
    if root_cause_rank(log) is None:
        problems.append("no rank in the Root Cause block")
    tee = "--tee" in launch
    if tee and f"[default{fail_rank}]:step 2 | loss" not in log:
        problems.append(f"no [default{fail_rank}]: prefixed step lines")
    if not tee and "[default" in log:
        problems.append("prefixed lines without --tee")
    redirected = "--redirects" in launch
    if redirected:
        fail_dir = f"attempt_0/{fail_rank}/"
        rank_err = "".join(t for p, t in files.items() if fail_dir in p and p.endswith("stderr.log"))
        for r in range(world_size):
            for f in ("stdout.log", "stderr.log"):
                if not any(p.endswith(f"attempt_0/{r}/{f}") for p in files):
                    problems.append(f"no attempt_0/{r}/{f}")
        if mode in ("raise", "nan") and FAILURE_TEXT[mode] not in rank_err:
            problems.append(f"rank {fail_rank} stderr.log lacks {FAILURE_TEXT[mode]!r}")
        if "step 1 | loss" in log:
            problems.append("worker output on the console despite --redirects 3")
    if mode != "hang" and not redirected and FAILURE_TEXT[mode] not in log:
        problems.append(f"missing {FAILURE_TEXT[mode]!r}")
    if mode == "hang":
        everything = log + "".join(files.values())
        if FAILURE_TEXT[mode] not in everything:
            problems.append(f"missing {FAILURE_TEXT[mode]!r}")
        if "closing signal SIGTERM" not in log:
            problems.append("hung rank was not sent SIGTERM")
    if mode == "nan":
        rank0 = log + "".join(t for p, t in files.items() if "attempt_0/0/stdout.log" in p)
        problems += [f"rank 0 did not print {t.strip()!r}" for t in CONFIG_TEXT if t not in rank0]
        if f"step {UNFREEZE_STEP} | loss" not in log + "".join(files.values()):
            problems.append(f"the run did not reach step {UNFREEZE_STEP}")
    if mode == "kill" and "exitcode  : -9" not in log:
        problems.append("no 'exitcode  : -9'")
    if use_record and redirected and "error.json" not in "".join(files):
        problems.append("no error.json written")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenarios", nargs="*", help=f"default: all of {', '.join(SCENARIOS)}")
    ap.add_argument("--check", action="store_true", help="run and check, write no files")
    opts = ap.parse_args()
    unknown = [s for s in opts.scenarios if s not in SCENARIOS]
    if unknown:
        ap.error(f"unknown scenario(s): {', '.join(unknown)}")

    site_dir = torch_site_dir()
    all_ok = True
    total = time.monotonic()
    for name in opts.scenarios or SCENARIOS:
        launch, mode, use_record, *more = SCENARIOS[name]
        options = more[0] if more else {}
        world_size = options.get("world_size", WORLD_SIZE)
        fail_rank = options.get("fail_rank", FAIL_RANK)
        with tempfile.TemporaryDirectory(prefix="denpex-record-") as tmp:
            tmp = Path(tmp)
            log_dir = tmp / "logs"
            fix = Neutraliser(site_dir, tmp, log_dir)
            rc, raw, secs = run_torchrun(launch, mode, use_record, tmp, log_dir, world_size, fail_rank)
            log = fix(raw)
            files = {}  # path relative to the scenario folder -> neutralised text
            if log_dir.exists():
                for p in sorted(log_dir.rglob("*")):
                    if p.is_file():
                        files[str(Path("logs") / p.relative_to(log_dir))] = fix(p.read_text())

        problems = check(name, mode, use_record, launch, rc, log, files, world_size, fail_rank)
        problems += [f"machine path {p!r} left in torchrun.log" for p in fix.leaks_in(log)]
        problems += [f"machine path {p!r} left in {rel}" for rel, t in files.items()
                     for p in fix.leaks_in(t)]
        expected = {
            "initiating_rank": fail_rank,
            "failure": mode,
            "world_size": world_size,
            "torchrun_root_cause_rank": root_cause_rank(log),
            "collateral_ranks": [r for r in range(world_size) if r != fail_rank],
        }
        print(f"{'ok ' if not problems else 'BAD'} {name}: {secs:.1f} s, exit {rc}, "
              f"{len(log.splitlines())} lines, {len(files)} rank files, "
              f"torchrun root cause: rank {expected['torchrun_root_cause_rank']}", flush=True)
        for p in problems:
            print(f"      {p}")
        all_ok &= not problems
        if problems and not opts.check:
            print(f"      not written; tests/distributed/{name}/ left as it was")
        if not problems and not opts.check:
            dest = OUT / name
            if dest.exists():
                shutil.rmtree(dest)
            dest.mkdir(parents=True)
            (dest / "torchrun.log").write_text(log)
            (dest / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
            for rel, text in files.items():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                (dest / rel).write_text(text)
    print(f"total {time.monotonic() - total:.0f} s")
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
