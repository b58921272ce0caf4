"""The seed failure on several ranks: float16 parameters, AdamW's default eps, a late unfreeze.

    python3 torchrun_py311.py --nproc_per_node 4 --standalone --tee 3 seed_worker.py \
        --fail-rank 2 --unfreeze-step 300 [--record]

Each rank trains a small regression model whose parameters are all float16 (`.half()`): a linear
head trained from the first step, and an adapter (x @ A) @ B that stays frozen. Rank 0 prints the
run's configuration once, as training scripts do: the parameters' dtype and the optimizer
(`print(optimizer)`, whose eps is the default 1e-08). Every rank prints its own
`step N | loss X | grad_norm Y` each step and all_reduces its loss with the others, so the ranks
move in step.

At --unfreeze-step the rank --fail-rank starts training its adapter (the injected fault, standing
in for the one rank whose parameters first meet the underflow; in a real data-parallel job every
rank would). The adapter's gradients are small (B starts near 1e-3): AdamW's second moment
(1 - beta2) * g^2 rounds to zero in float16, so does eps, and the update divides by zero. The
next forward pass gives a NaN loss, and the training loop raises FloatingPointError before
joining the all_reduce that the other ranks are already waiting in; they fail with gloo's
"Connection closed by peer".

The optimizer is torch.optim.AdamW (printed, and holding the hyper-parameters), but its step is
done here, with the formulas of torch's single-tensor AdamW in float16: torch 1.13's CPU kernels
have no float16 addcmul, so `optimizer.step()` would fail with a different error on a CPU-only
machine. Only the matrix products and the square root (no float16 sqrt on the CPU either) run in
float32, then round back to float16, as a GPU's half kernels would.
"""
import argparse
import math
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--fail-rank", type=int, default=2)
    ap.add_argument("--unfreeze-step", type=int, default=300)
    ap.add_argument("--record", action="store_true")
    return ap.parse_args()


def matmul(a, b):
    """a @ b in float32, rounded to float16 (the CPU has no float16 matrix product)."""
    return (a.float() @ b.float()).half()


def adamw_step(params, optimizer, step):
    """One AdamW update in float16 with the optimizer's hyper-parameters (torch's formulas)."""
    group = optimizer.param_groups[0]
    lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            state = optimizer.state[p]
            if not state:
                state["step"] = 0
                state["exp_avg"] = torch.zeros_like(p)
                state["exp_avg_sq"] = torch.zeros_like(p)
            state["step"] += 1
            t = state["step"]
            p.mul_(1 - lr * wd)
            state["exp_avg"].mul_(beta1).add_((1 - beta1) * p.grad)
            state["exp_avg_sq"].mul_(beta2).add_((1 - beta2) * p.grad * p.grad)
            bias1 = 1 - beta1 ** t
            bias2_sqrt = math.sqrt(1 - beta2 ** t)
            denom = (state["exp_avg_sq"].float().sqrt().half() / bias2_sqrt).add_(torch.tensor(eps, dtype=p.dtype))
            p.add_(-(lr / bias1) * state["exp_avg"] / denom)


def main(args):
    dist.init_process_group(backend="gloo", timeout=timedelta(seconds=20))
    rank, world_size = dist.get_rank(), dist.get_world_size()
    gen = torch.Generator().manual_seed(1234 + rank)  # each rank reads its own samples
    # The same model on every rank: a linear head trained from the start, and an adapter
    # (x @ A) @ B that stays frozen until --unfreeze-step. Everything is float16.
    torch.manual_seed(0)
    true_weight = torch.randn(16)
    head = torch.zeros(16).half().requires_grad_(True)
    adapter_a = (torch.randn(16, 4) * 0.1).half().requires_grad_(False)
    adapter_b = (torch.randn(4) * 1e-3).half().requires_grad_(False)
    params = [head, adapter_a, adapter_b]
    optimizer = torch.optim.AdamW(params, lr=1e-2)
    if rank == 0:
        print(f"world size: {world_size}, param dtype: {head.dtype}", flush=True)
        print(optimizer, flush=True)

    for step in range(1, args.steps + 1):
        if rank == args.fail_rank and step == args.unfreeze_step:
            adapter_a.requires_grad_(True)
            adapter_b.requires_grad_(True)
        x = torch.randn(32, 16, generator=gen)
        target = (x @ true_weight + 0.1 * torch.randn(32, generator=gen)).half()
        x = x.half()
        pred = matmul(x, head.unsqueeze(1)).squeeze(1) + matmul(matmul(x, adapter_a), adapter_b.unsqueeze(1)).squeeze(1)
        loss = ((pred.float() - target.float()) ** 2).mean()
        for p in params:
            p.grad = None
        loss.backward()
        grads = [p.grad.float() for p in params if p.grad is not None]
        grad_norm = torch.sqrt(sum((g * g).sum() for g in grads))
        print(f"step {step} | loss {loss.item():.4f} | grad_norm {grad_norm.item():.4f}", flush=True)
        if not torch.isfinite(loss):
            raise FloatingPointError(f"loss is {loss.item()} at step {step}")
        adamw_step(params, optimizer, step)
        total = loss.detach().clone()
        dist.all_reduce(total)

    dist.destroy_process_group()


if __name__ == "__main__":
    args = parse_args()
    # --record is the same as writing @record above `def main`
    (record(main) if args.record else main)(args)
