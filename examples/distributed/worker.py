"""A small training-like job for torchrun (CPU, gloo), with one rank that fails.

    python3 torchrun_py311.py --nproc_per_node 4 --standalone worker.py \
        --fail-rank 2 --mode raise|kill|hang [--record]

Every step each rank computes a local loss, all_reduces it (the averaged loss
is what gets printed as `step N | loss X`) and moves on. At step --fail-step
(default 3) the rank --fail-rank (default 2) does one of:

  raise  its data loader raises IndexError before the rank joins the
         all_reduce; the other ranks are already waiting in it.
  kill   it sends itself SIGKILL (what the kernel's OOM killer does).
  hang   it sleeps 600 s; the other ranks time out in the all_reduce after
         the 20 s process-group timeout.
  none   nothing fails.

--record decorates the entry point with torch's @record, so the failing rank's
traceback is written to torchrun's error file and its summary names the rank.
The lines printed carry no rank; with `--tee 3` torchrun prefixes them.
"""
import argparse
import os
import signal
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


class ShardedDataset:
    """A fixed tensor of samples; each rank reads its own slice of every step."""

    def __init__(self, num_samples, rank, world_size):
        self.samples = torch.linspace(0, 1, num_samples * 4).reshape(num_samples, 4)
        self.rank = rank
        self.world_size = world_size

    def batch(self, step, batch_size=2, offset=0):
        start = ((step - 1) * self.world_size + self.rank) * batch_size + offset
        return self.samples[torch.arange(start, start + batch_size)]


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--fail-rank", type=int, default=2)
    ap.add_argument("--fail-step", type=int, default=3)
    ap.add_argument("--mode", choices=["raise", "kill", "hang", "none"], default="none")
    ap.add_argument("--record", action="store_true")
    return ap.parse_args()


def main(args):
    dist.init_process_group(backend="gloo", timeout=timedelta(seconds=20))
    rank, world_size = dist.get_rank(), dist.get_world_size()
    data = ShardedDataset(64, rank, world_size)
    weight = torch.full((4,), 0.5)

    for step in range(1, args.steps + 1):
        failing = rank == args.fail_rank and step == args.fail_step
        if failing and args.mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if failing and args.mode == "hang":
            time.sleep(600)
        # a corrupt index file makes this rank's loader read past the end of the data
        batch = data.batch(step, offset=1000 if failing and args.mode == "raise" else 0)
        loss = ((batch @ weight - 1.0) ** 2).mean()
        dist.all_reduce(loss)
        loss /= world_size
        weight -= 0.1 * loss
        print(f"step {step} | loss {loss.item():.4f}", flush=True)

    dist.destroy_process_group()


if __name__ == "__main__":
    args = parse_args()
    # --record is the same as writing @record above `def main`
    (record(main) if args.record else main)(args)
