#!/usr/bin/env python3
"""Writes a synthetic 64-rank training log of about SIZE_MB megabytes to stdout.

The lines look like `torchrun --tee 3` output of a real job, interleaved across ranks: per-step
metric lines, Hugging Face Trainer dicts, tqdm redraws with carriage returns and ANSI colours,
NCCL INFO chatter from every rank, Python warnings, timestamped logging records. Rank 0
prints the run's configuration once at the start (fp16 parameters, AdamW with eps 1e-08); rank 17
prints its own step metrics, rank 0 the Trainer's. At the end comes one failure: the seed failure
on rank 17 (its loss turns NaN after a steady gradient norm, and it raises FloatingPointError),
the other ranks' NCCL watchdog timeouts, and torchrun's summary.
Deterministic for a given size.
   gen_log.py SIZE_MB [RANKS]
"""
import sys

size_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 100
ranks = int(sys.argv[2]) if len(sys.argv) > 2 else 64
target = int(size_mb * 1024 * 1024)
out = sys.stdout
written = 0


def emit(text):
    global written
    out.write(text)
    written += len(text)


emit("W1130 08:00:00.123000 140221 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment "
     "variable for each process to be 1 in default, to avoid your system being overloaded.\n")
for r in range(ranks):
    emit(f"[rank{r}]:node{r // 8}:{4000 + r}:{4000 + r} [{r % 8}] NCCL INFO Bootstrap : Using eth0:10.0.{r // 8}.1<0>\n")
    emit(f"[rank{r}]:node{r // 8}:{4000 + r}:{4000 + r} [{r % 8}] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so), using internal implementation\n")
emit("[rank0]:2026-11-30 08:00:05,101 - INFO - train - param dtype: torch.float16\n")
emit("[rank0]:2026-11-30 08:00:05,102 - INFO - train - optimizer: AdamW (lr=1e-05, eps: 1e-08, weight_decay=0.01)\n")

FAIL = 17 % ranks  # the rank that fails first
step = 0
while written < target:
    step += 1
    block = []
    r = step % ranks
    loss = 0.7 - (step % 97) * 1e-3
    gn = 0.12 + (step * 7 % 13) * 1e-3
    block.append(f"[rank{FAIL}]:step {step} | loss {loss:.6f} | grad_norm {gn:.6f} | lr 1.0e-05 | loss_scale 65536.0\n")
    block.append(f"[rank0]:{{'loss': {loss:.4f}, 'grad_norm': {gn:.4f}, 'learning_rate': 1e-05, 'epoch': {step / 5000:.2f}}}\n")
    block.append(f"[rank0]:\r\x1b[32m{step % 100:3d}%|#####     | {step}/100000 [00:01<00:00, 20.1it/s]\x1b[0m\n")
    block.append(f"[rank{r}]:node{r // 8}:{4000 + r}:{4100 + r} [{r % 8}] NCCL INFO Channel {step % 32:02d}/32 : "
                 f"{r}[{r % 8}] -> {(r + 1) % ranks}[{(r + 1) % 8}] via P2P/IPC/read\n")
    block.append(f"[rank{(r * 7) % ranks}]:node{r // 8}:{4000 + r}:{4100 + r} [{r % 8}] NCCL INFO comm 0x55d5c1e0 rank {r} "
                 f"nRanks {ranks} nNodes {ranks // 8} localRanks 8 localRank {r % 8} MNNVL 0\n")
    if step % 5 == 0:
        block.append(f"[rank{(r * 3) % ranks}]:/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:429: UserWarning: "
                     f"torch.utils.checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly.\n")
    if step % 7 == 0:
        block.append(f"[rank{(r * 5) % ranks}]:2026-11-30 08:{step // 60 % 60:02d}:{step % 60:02d},{step % 1000:03d} - INFO - "
                     f"data - prefetched shard {step % 4096} of 4096 (1024 samples, 3.2 s)\n")
    emit("".join(block))

fail = step + 1
emit(f"[rank{FAIL}]:step {fail} | loss nan | grad_norm nan | lr 1.0e-05 | loss_scale 65536.0\n")
p = f"[rank{FAIL}]:"
emit(f"{p}Traceback (most recent call last):\n"
     f"{p}  File \"/home/user/project/train.py\", line 51, in <module>\n"
     f"{p}    raise FloatingPointError(f\"loss is {{loss.item()}} at step {{step}}\")\n"
     f"{p}FloatingPointError: loss is nan at step {fail}\n")
for r in range(ranks):
    if r == FAIL:
        continue
    emit(f"[rank{r}]:[E1130 09:00:00.000000 {5000 + r} ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
         f"operation timeout: WorkNCCL(SeqNum={fail * 4}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
         f"ran for 600012 milliseconds before timing out.\n")
emit("E1130 09:00:05.000000 140221 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) "
     "local_rank: 1 (pid: 4017) of binary: /usr/bin/python3\n")
emit("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
     "============================================================\n"
     "train.py FAILED\n"
     "------------------------------------------------------------\n"
     "Root Cause (first observed failure):\n"
     "[0]:\n"
     "  time      : 2026-11-30_09:00:05\n"
     "  host      : node2\n"
     f"  rank      : {FAIL} (local_rank: {FAIL % 8})\n"
     "  exitcode  : 1 (pid: 4017)\n"
     "  error_file: <N/A>\n"
     "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
     "============================================================\n")
