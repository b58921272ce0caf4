"""Record real CPU failure logs as rule test fixtures.

    /usr/bin/python3 examples/recording/cpu_failures/record.py            # record all cases
    /usr/bin/python3 examples/recording/cpu_failures/record.py --check    # run + check, write nothing
    /usr/bin/python3 examples/recording/cpu_failures/record.py --case dtype-mismatch
    /usr/bin/python3 examples/recording/cpu_failures/record.py --denpex build/denpex

Use an interpreter that has torch (1.13 on Debian: /usr/bin/python3). Each case of fail.py
runs in this directory, stdout and stderr captured together (PYTHONUNBUFFERED=1, one CPU
thread), and is written to tests/rules/<rule-id>/match/cpu-<short>.log.

Post-processing: the repository root becomes /home/user/project and the directory holding the
torch package becomes /home/user/project/.venv/lib/pythonX.Y/site-packages. The standard
library (/usr/lib/pythonX.Y) is kept. The recorder fails if any other absolute path of this
machine is left in a log.

With --denpex, every written log is also checked: `denpex diagnose --format json` must give the
case's rule id as the first finding that is not a symptom.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
RULES = REPO / "tests" / "rules"

PYVER = f"python{sys.version_info.major}.{sys.version_info.minor}"
NEUTRAL_REPO = "/home/user/project"
NEUTRAL_SITE = f"/home/user/project/.venv/lib/{PYVER}/site-packages"
KEEP_PREFIXES = (NEUTRAL_REPO, f"/usr/lib/{PYVER}/")

# rule id -> (short name of the log, text the log must contain)
CASES = {
    "backward-twice": ("rnn-hidden-state",
                       "RuntimeError: Trying to backward through the graph a second time"),
    "inplace-modified-saved-tensor": ("relu-output-plus-equals",
                                      "has been modified by an inplace operation: [torch.FloatTensor [3, 4]], "
                                      "which is output 0 of ReluBackward0"),
    "loss-has-no-grad-fn": ("forward-under-no-grad",
                            "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"),
    "matmul-shape-mismatch": ("linear-in-features",
                              "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x100 and 128x10)"),
    "dtype-mismatch": ("float64-model-float32-input",
                       "RuntimeError: mat1 and mat2 must have the same dtype"),
    "label-out-of-range": ("cross-entropy-target",
                           "IndexError: Target 10 is out of bounds."),
    "loss-target-dtype": ("one-hot-labels",
                          "RuntimeError: Expected floating point type for target with class probabilities, got Long"),
    "embedding-index-out-of-range": ("token-id-equals-vocab",
                                     "IndexError: index out of range in self"),
    "anomaly-nan-in-backward": ("sqrt-under-where",
                                "RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output."),
    "loss-batch-size-mismatch": ("flattened-logits",
                                 "ValueError: Expected input batch_size (28) to match target batch_size (4)."),
    "broadcast-shape-mismatch": ("mask-length",
                                 "RuntimeError: The size of tensor a (16) must match the size of tensor b (12) "
                                 "at non-singleton dimension 1"),
    "ddp-unused-parameters": ("gloo-spawn-unused-head",
                              "RuntimeError: Expected to have finished reduction in the prior iteration"),
    "master-port-privileged": ("init-process-group-port-98-nonroot",
                               "(errno: 13 - Permission denied)"),
    "master-port-in-use": ("port-already-bound",
                           "(errno: 98 - Address already in use)"),
    "dataloader-worker-killed": ("worker-sigkill",
                                 "is killed by signal: Killed."),
    "nccl-backend-unavailable": ("init-process-group-nccl-cpu-build",
                                 "RuntimeError: Distributed package doesn't have NCCL built in"),
    "checkpoint-file-corrupt": ("resume-from-half-written-checkpoint",
                                "PytorchStreamReader failed reading zip archive: failed finding central directory"),
    "collate-unequal-tensor-sizes": ("images-of-two-sizes",
                                     "RuntimeError: stack expects each tensor to be equal size, but got [3, 28, 28] at entry 0 "
                                     "and [3, 24, 24] at entry 2"),
    "collective-mismatch": ("gloo-all-reduce-unequal-sizes",
                            "op.preamble.length <= op.nbytes."),
    "inplace-result-type-cast": ("grid-index-clamp-float-bounds",
                                 "RuntimeError: result type Float can't be cast to the desired output type long int"),
    "spawn-without-main-guard": ("dataloader-workers-import-unguarded-script",
                                 "current process has finished its bootstrapping phase"),
    "optimizer-empty-parameter-list": ("layers-in-a-plain-list",
                                       "ValueError: optimizer got an empty parameter list"),
    "cuda-not-available": ("model-cuda-on-cpu-build",
                           "AssertionError: Torch not compiled with CUDA enabled"),
    "backward-non-scalar-loss": ("per-sample-loss-not-reduced",
                                 "RuntimeError: grad can be implicitly created only for scalar outputs"),
    "view-non-contiguous": ("merge-heads-with-view",
                            "RuntimeError: view size is not compatible with input tensor's size and stride"),
    "tensor-to-numpy": ("metric-on-a-tensor-that-requires-grad",
                        "RuntimeError: Can't call numpy() on Tensor that requires grad."),
    "cat-shape-mismatch": ("join-features-of-two-lengths",
                           "RuntimeError: Sizes of tensors must match except in dimension 2."),
    "reshape-size-mismatch": ("lenet-for-32px-given-28px-images",
                              "RuntimeError: shape '[-1, 400]' is invalid for input of size 2048"),
    "dimension-out-of-range": ("accuracy-after-squeeze-on-a-batch-of-one",
                               "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    "input-too-small-for-network": ("cifar-images-in-a-network-for-imagenet",
                                    "Output size is too small"),
    "torch-submodule-not-imported": ("contrastive-loss-gathering-with-grad-without-the-import",
                                     "AttributeError: module 'torch.distributed' has no attribute 'nn'"),
    "quantized-tensor-float-op": ("residual-add-in-a-statically-quantized-block",
                                  "Could not run 'aten::add.out' with arguments from the 'QuantizedCPU' backend"),
    "grad-input-not-in-graph": ("physics-loss-through-a-numpy-solution",
                                "One of the differentiated Tensors appears to not have been used in the graph"),
    "rank-exceeds-world-size": ("sampler-told-one-nodes-world-with-a-global-rank",
                                "Invalid rank 3, rank should be in the interval [0, 1]"),
    "conv-input-rank": ("frames-of-a-clip-into-a-per-frame-conv2d",
                        "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 4, 3, 16, 16]"),
    "onecycle-lr-total-steps-exceeded": ("one-cycle-sized-for-another-batch-size",
                                         "The specified number of total steps is 6"),
    "torchscript-compile-error": ("export-check-of-a-modulelist-indexed-by-a-variable",
                                  "Expected integer literal for index"),
    "cat-shape-mismatch:ranks": ("pooled-embedding-joined-to-token-features",
                                 "Tensors must have same number of dimensions: got 2 and 3"),
    "library-version-mismatch": ("loss-read-the-pytorch-0.3-way",
                                 "IndexError: too many indices for array: array is 0-dimensional, but 1 were indexed"),
    "empty-dataset": ("image-list-globbed-for-another-extension",
                      "ValueError: num_samples should be a positive integer value, but got num_samples=0"),
    "lr-scheduler-monitor-metric-missing": ("plateau-stepped-like-the-other-schedulers",
                                            "step() missing 1 required positional argument: 'metrics'"),
    # A failure no rule knows: the fallback rule's own recorded example.
    "unrecognized-exception": ("collate-missing-key", "KeyError: 'input_ids'"),
}

# Cases whose real log does not (yet) come out as their rule first in `denpex diagnose`: they are
# written to examples/recording/cpu_failures/unmatched/<rule-id>.cpu-<short>.log instead of
# tests/rules, so the rule tests stay honest. The reason is printed with the case.
# Cases whose real log a rule does not (yet) diagnose as its own rule first: recorded to
# unmatched/ instead of tests/rules, so that CI does not depend on them. Empty since denpex
# reads torch.multiprocessing.spawn's ProcessRaisedException as the child's own error.
UNMATCHED: dict = {}

# absolute paths: /something/... not preceded by a word character, dot or slash
ABS_PATH = re.compile(r"(?<![\w./])/(?:usr|work|home|root|tmp|opt|var|etc|srv|mnt|proc|run|lib|bin|data)"
                      r"(?:/[^\s\"',:;()\]]*)?")


def torch_site_dir():
    out = subprocess.run([sys.executable, "-c", "import os, torch; print(os.path.dirname("
                          "os.path.dirname(os.path.abspath(torch.__file__))))"],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def run_case(case):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.pop("TORCH_DISTRIBUTED_DEBUG", None)
    proc = subprocess.run([sys.executable, "fail.py", "--case", case], cwd=HERE, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    return proc.returncode, proc.stdout


def neutralise(text, site_dir):
    # longest prefix first, so a site dir inside the repository is mapped as a site dir
    for old, new in sorted([(str(REPO), NEUTRAL_REPO), (site_dir, NEUTRAL_SITE)],
                           key=lambda p: -len(p[0])):
        text = text.replace(old, new)
    return text


def leaked_paths(text, site_dir):
    bad = set()
    for m in ABS_PATH.finditer(text):
        path = m.group(0)
        if not path.startswith(KEEP_PREFIXES):
            bad.add(path)
    for literal in (str(REPO), site_dir, str(Path.home())):
        if len(literal) > 1 and literal in text:
            bad.add(literal)
    return sorted(bad)


def rule_of(case):
    # A rule's second case is named "<rule-id>:<what>".
    return case.split(":", 1)[0]


def log_path(case, short):
    if case in UNMATCHED:
        return HERE / "unmatched" / f"{rule_of(case)}.cpu-{short}.log"
    return RULES / rule_of(case) / "match" / f"cpu-{short}.log"


def denpex_first_root(denpex, path):
    proc = subprocess.run([denpex, "diagnose", "--format", "json", str(path)],
                          capture_output=True, text=True, cwd=REPO)
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return None, f"denpex exit {proc.returncode}, no JSON: {proc.stderr.strip()[:200]}"
    findings = data.get("findings", data if isinstance(data, list) else [])
    for f in findings:
        if f.get("role") != "symptom":
            return f.get("id") or f.get("rule_id") or f.get("rule"), None
    return None, "no non-symptom finding"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="run and check, write no files")
    ap.add_argument("--case", action="append", choices=sorted(CASES),
                    help="record only this case (repeatable)")
    ap.add_argument("--denpex", help="path to a built denpex binary; check each written log with it")
    opts = ap.parse_args()

    site_dir = torch_site_dir()
    all_ok = True
    for case in opts.case or CASES:
        rule_id = rule_of(case)
        short, must = CASES[case]
        rc, out = run_case(case)
        out = neutralise(out, site_dir)
        problems = []
        if rc == 0:
            problems.append("exit 0, expected a failure")
        if must not in out:
            problems.append(f"missing {must!r}")
        problems += [f"machine path {p!r} left in log" for p in leaked_paths(out, site_dir)]
        path = log_path(case, short)
        if not opts.check and not problems:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(out)
            if opts.denpex:
                got, err = denpex_first_root(opts.denpex, path)
                if case in UNMATCHED:
                    print(f"      unmatched on purpose (denpex first: {got!r}): {UNMATCHED[case]}")
                elif got != rule_id:
                    problems.append(f"denpex: first non-symptom finding {got!r}, expected {rule_id!r}"
                                    + (f" ({err})" if err else ""))
        print(f"{'ok ' if not problems else 'BAD'} {case}: exit {rc}, {len(out.splitlines())} lines, "
              f"{len(out)} bytes -> {path.relative_to(REPO)}")
        for p in problems:
            print(f"      {p}")
        all_ok &= not problems
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
