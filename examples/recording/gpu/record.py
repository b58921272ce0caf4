"""Record real PyTorch failures on a CUDA GPU, and run the GPU positives of `denpex check`
before and after the fix it writes, and the machine probe, on that machine.

    python3 examples/recording/gpu/record.py --denpex build/denpex --out DIR

Run from the repository root on a machine with an NVIDIA GPU and a CUDA build of torch (with
Triton for the two Triton scenarios). Nothing is downloaded. Every script here is copied to
its own empty folder as train.py and run there (`python3 train.py`, or
`python3 -m torch.distributed.run --nproc_per_node 2 --tee 3 train.py` for the two-rank ones),
stdout and stderr captured together, unbuffered. Post-processing, the only change made to the
output: the temporary folder becomes /home/user/project, the interpreter's prefix (its virtual
environment, with site-packages) /home/user/project/.venv, and the host's name gpu-node.
The recorder fails if a path of the recording machine is left in a log.

Writes into DIR: <scenario>.log for each failure; for each GPU positive of
tests/check_corpus/positives/, <name>.before.log, <name>.after.log and <name>.fixed.py (the
script as `denpex check --apply` left it); probe.json (`denpex probe`); check-positives.txt and
check-working.json (`denpex check --probe local` over those folders); nvidia-smi.txt;
manifest.txt (exit status and seconds of every run).
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
NEUTRAL_WORK = "/home/user/project"
NEUTRAL_PREFIX = "/home/user/project/.venv"

# name -> ranks (1: python3 train.py; 2: torchrun with two processes on this node)
SCENARIOS = {
    "oom_batch": 1,
    "label_out_of_range": 1,
    "embedding_out_of_range": 1,
    "input_on_cpu": 1,
    "dataset_on_cuda_workers": 1,
    "grad_scaler_unscale_twice": 1,
    "sdpa_flash_float32": 1,
    "triton_shared_memory": 1,
    "triton_unmasked_store": 1,
    "ddp_more_ranks_than_gpus": 2,
    "nccl_same_gpu": 2,
}
POSITIVES = ["half_model_adamw_default_eps", "half_model_grad_scaler", "bf16_dataloader_workers"]


def neutral(text, work):
    text = text.replace(str(work), NEUTRAL_WORK)
    for prefix in {sys.prefix, os.path.realpath(sys.prefix)}:
        text = text.replace(prefix, NEUTRAL_PREFIX)
    host = socket.gethostname()
    if len(host) > 2:
        text = text.replace(host, "gpu-node")
    return text


def run(argv, cwd, timeout=90):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    start = time.time()
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode("utf-8", "replace"), "timeout"
    except OSError as e:
        out, rc = f"{argv[0]}: {e.strerror}\n", "not-run"
    return out, rc, time.time() - start


def write(path, text, work):
    text = neutral(text, work)
    for leak in (str(work), sys.prefix, str(REPO)):
        if leak in text:
            raise SystemExit(f"{path.name}: a path of this machine is left in the log: {leak}")
    path.write_text(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--denpex", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", nargs="*", help="run only these scenarios and positives")
    args = ap.parse_args()
    denpex = os.path.realpath(args.denpex)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    wanted = lambda name: not args.only or name in args.only  # noqa: E731

    smi, _, _ = run(["nvidia-smi"], REPO, 30)
    (out / "nvidia-smi.txt").write_text(smi)
    probe, rc, secs = run([denpex, "probe", "--output", str(out / "probe.json")], REPO, 60)
    manifest.append(f"probe rc={rc} {secs:.1f}s {probe.strip()}")
    text, rc, secs = run([denpex, "check", "--probe", "local", "--color", "never",
                          "tests/check_corpus/positives"], REPO, 120)
    (out / "check-positives.txt").write_text(text)
    manifest.append(f"check positives --probe local rc={rc} {secs:.1f}s")
    text, rc, secs = run([denpex, "check", "--probe", "local", "--format", "json",
                          "tests/check_corpus/working"], REPO, 120)
    (out / "check-working.json").write_text(text)
    manifest.append(f"check working --probe local rc={rc} {secs:.1f}s")

    for name, ranks in SCENARIOS.items():
        if not wanted(name):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            shutil.copy(HERE / f"{name}.py", work / "train.py")
            argv = [sys.executable, "train.py"]
            if ranks > 1:
                argv = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(ranks),
                        "--master_port", "29517", "--tee", "3", "train.py"]
            text, rc, secs = run(argv, work)
            write(out / f"{name}.log", text, work)
            manifest.append(f"{name} rc={rc} {secs:.1f}s")

    for name in POSITIVES:
        if not wanted(name):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            shutil.copy(REPO / "tests" / "check_corpus" / "positives" / f"{name}.py", work / "train.py")
            text, rc, secs = run([sys.executable, "train.py"], work)
            write(out / f"{name}.before.log", text, work)
            manifest.append(f"{name} before rc={rc} {secs:.1f}s")
            text, rc, _ = run([denpex, "check", "--probe", "local", "--apply", "--color", "never", "train.py"], work)
            write(out / f"{name}.check.txt", text, work)
            manifest.append(f"{name} check --apply rc={rc}")
            shutil.copy(work / "train.py", out / f"{name}.fixed.py")
            text, rc, secs = run([sys.executable, "train.py"], work)
            write(out / f"{name}.after.log", text, work)
            manifest.append(f"{name} after rc={rc} {secs:.1f}s")

    (out / "manifest.txt").write_text("\n".join(manifest) + "\n")
    print("\n".join(manifest))


if __name__ == "__main__":
    main()
