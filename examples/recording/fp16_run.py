"""Configurable training run used to record the rule test logs.

Same model, data and per-step log line as examples/fp16-adamw/train.py, with
flags for the variants:

  --dtype float16|bfloat16|float32   parameter dtype (model.to(dtype))
  --optimizer adamw|sgd              torch.optim.AdamW(lr, eps) or torch.optim.SGD(lr)
  --lr, --eps                        optimizer hyperparameters (AdamW eps default 1e-8, as torch)
  --steps N                          number of steps; the run never stops early, so
                                     a run that goes non-finite keeps printing nan lines
  --unfreeze-at N                    backbone (fc1, fc2) has requires_grad=False until step N
  --explode                          regression on unnormalised features (x * 10) with a
                                     two-layer linear model and MSE loss: with a too-large
                                     SGD lr, loss and grad_norm grow step after step until
                                     they overflow to inf and then nan
  --seed N                           torch.manual_seed (default 42)

float16 + AdamW steps go through examples/fp16-adamw/fp16_adamw_cpu.py
(CPU torch 1.13 has no Half addcmul, so the stock optimizer.step() cannot run
on fp16 parameters); every other combination uses the stock optimizer.step().
"""
import argparse
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fp16-adamw"))
from fp16_adamw_cpu import adamw_step_fp16  # noqa: E402

DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
IN_DIM, HIDDEN, BATCH, N_BATCHES = 32, 128, 256, 40


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN_DIM, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, HIDDEN)
        self.head = nn.Linear(HIDDEN, 1)
        nn.init.normal_(self.head.weight, std=3e-3)
        nn.init.zeros_(self.head.bias)

    def backbone_parameters(self):
        return list(self.fc1.parameters()) + list(self.fc2.parameters())

    def forward(self, x):
        # matmuls and activations in fp32 (no Half addmm on CPU), activations
        # handed back in the parameter dtype
        dtype = self.head.weight.dtype
        for layer in (self.fc1, self.fc2):
            x = F.softplus(F.linear(x.float(), layer.weight.float(), layer.bias.float())).to(dtype)
        return F.linear(x.float(), self.head.weight.float(), self.head.bias.float())


class LinearRegression(nn.Module):
    """Two stacked linear layers, no activation."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN_DIM, IN_DIM)
        self.fc2 = nn.Linear(IN_DIM, 1)

    def forward(self, x):
        for layer in (self.fc1, self.fc2):
            x = F.linear(x.float(), layer.weight.float(), layer.bias.float())
        return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="float16")
    ap.add_argument("--optimizer", choices=["adamw", "sgd"], default="adamw")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--eps", type=float, default=1e-8)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--unfreeze-at", type=int, default=0)
    ap.add_argument("--explode", action="store_true")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    dtype = DTYPES[args.dtype]

    w_true = torch.randn(IN_DIM)
    data_x = torch.randn(N_BATCHES * BATCH, IN_DIM)
    if args.explode:
        data_x = data_x * 10.0              # features left unnormalised
        data_y = data_x @ w_true
        model = LinearRegression().to(dtype)
    else:
        data_y = (data_x @ w_true > 4.0).float()
        model = MLP().to(dtype)

    if args.unfreeze_at > 0:
        for p in model.backbone_parameters():
            p.requires_grad_(False)

    if args.optimizer == "adamw":
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, eps=args.eps)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    print(optimizer)
    print(f"param dtype: {next(model.parameters()).dtype}")
    if args.unfreeze_at > 0:
        print(f"backbone frozen until step {args.unfreeze_at}")

    for step in range(1, args.steps + 1):
        if step == args.unfreeze_at:
            print(f"unfreezing backbone at step {step}")
            for p in model.backbone_parameters():
                p.requires_grad_(True)

        i = (step - 1) % N_BATCHES
        x = data_x[i * BATCH:(i + 1) * BATCH].to(dtype)
        y = data_y[i * BATCH:(i + 1) * BATCH]

        out = model(x).squeeze(1)
        if args.explode:
            loss = F.mse_loss(out, y)
        else:
            loss = F.binary_cross_entropy_with_logits(out, y)

        optimizer.zero_grad()
        loss.backward()
        grad_norm = math.sqrt(sum(p.grad.float().pow(2).sum().item()
                                  for p in model.parameters() if p.grad is not None))

        if dtype == torch.float16 and args.optimizer == "adamw":
            adamw_step_fp16(optimizer)      # stands in for optimizer.step(), see module docstring
        else:
            optimizer.step()

        lr = optimizer.param_groups[0]["lr"]
        print(f"step {step} | loss {loss.item():.6f} | grad_norm {grad_norm:.6f} | lr {lr:.1e}")


if __name__ == "__main__":
    main()
