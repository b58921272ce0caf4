#!/usr/bin/env python3
"""Writes a synthetic multi-rank training log of about SIZE_MB megabytes to stdout.

Lines look like torchrun --tee output: per-step metric lines from 8 ranks, tqdm redraws with
ANSI colours, NCCL info lines, and, near the end, the seed failure (fp16, eps 1e-08, NaN loss)
and one traceback per rank. Deterministic for a given size.
"""
import sys

size_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 100
target = int(size_mb * 1024 * 1024)
out = sys.stdout
written = 0
out.write("[rank0]:param dtype: torch.float16\n[rank0]:    eps: 1e-08\n")
step = 0
while written < target:
    step += 1
    for rank in range(8):
        line = (f"[rank{rank}]:step {step} | loss {0.7 - (step % 97) * 1e-3:.6f} | "
                f"grad_norm {0.12 + (step * 7 % 13) * 1e-3:.6f} | lr 1.0e-03\n")
        out.write(line)
        written += len(line)
    bar = f"\r\x1b[32m{step % 100:3d}%|#####     | {step}/100000 [00:01<00:00, 20.1it/s]\x1b[0m\n"
    nccl = f"[rank{step % 8}]:node0:1234:1234 [0] NCCL INFO Channel {step % 32:02d}/32 : 0[0] -> 1[1] via P2P/IPC\n"
    out.write(bar + nccl)
    written += len(bar) + len(nccl)
for rank in range(8):
    out.write(f"[rank{rank}]:step {step + 1} | loss nan | grad_norm nan | lr 1.0e-03\n")
for rank in range(8):
    p = f"[rank{rank}]:"
    out.write(f"{p}Traceback (most recent call last):\n{p}  File \"/home/user/project/train.py\", line 51, in <module>\n"
              f"{p}    raise FloatingPointError(f\"loss is {{loss.item()}} at step {{step}}\")\n"
              f"{p}FloatingPointError: loss is nan at step {step + 1}\n")
