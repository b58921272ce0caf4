"""AdamW update for float16 parameters on CPU.

torch 1.13's CPU kernels have no float16 version of addcmul / addcdiv / sqrt,
so `optimizer.step()` on fp16 parameters fails on CPU with
    RuntimeError: "addcmul_cpu_out" not implemented for 'Half'
On a GPU the same `torch.optim.AdamW` step runs in fp16 without complaint.

`adamw_step_fp16(optimizer)` performs the update of torch's
`_single_tensor_adamw` (torch/optim/adamw.py, non-amsgrad, non-capturable
branch) step by step, with every intermediate kept as a float16 tensor, the way
the fp16 CUDA step stores its results.  Hyperparameters (lr, betas, eps,
weight_decay) are read from the optimizer's param_groups and the moment buffers
live in `optimizer.state[p]` under torch's own keys, so nothing here changes
the numerics except where a missing Half kernel forces a detour:
  * addcmul_(grad, grad, value=1-b2)  ->  add_((grad * grad) * (1-b2))
  * sqrt()                            ->  computed in fp32, rounded to fp16
  * addcdiv_(exp_avg, denom, -step)   ->  add_((exp_avg / denom) * -step)
"""
import math

import torch


def _sqrt(t):
    # No Half sqrt kernel on CPU; CUDA also computes in fp32 and rounds to fp16.
    return t.float().sqrt().to(t.dtype)


@torch.no_grad()
def adamw_step_fp16(optimizer):
    for group in optimizer.param_groups:
        if group.get("amsgrad") or group.get("maximize"):
            raise NotImplementedError("amsgrad/maximize are not emulated")
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        eps = group["eps"]
        weight_decay = group["weight_decay"]

        for param in group["params"]:
            if param.grad is None:
                continue
            grad = param.grad
            state = optimizer.state[param]
            if len(state) == 0:
                state["step"] = torch.tensor(0.0)
                state["exp_avg"] = torch.zeros_like(param, memory_format=torch.preserve_format)
                state["exp_avg_sq"] = torch.zeros_like(param, memory_format=torch.preserve_format)
            exp_avg = state["exp_avg"]
            exp_avg_sq = state["exp_avg_sq"]

            state["step"] += 1
            step = state["step"].item()

            # Perform stepweight decay
            param.mul_(1 - lr * weight_decay)

            # Decay the first and second moment running average coefficient
            exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
            exp_avg_sq.mul_(beta2).add_((grad * grad).mul_(1 - beta2))

            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = math.sqrt(bias_correction2)

            # eps is added to a float16 tensor: 1e-8 rounds to 0 in float16.
            denom = (_sqrt(exp_avg_sq) / bias_correction2_sqrt).add_(eps)

            param.add_((exp_avg / denom).mul_(-step_size))
