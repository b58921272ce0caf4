import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from fp16_adamw_cpu import adamw_step_fp16

torch.manual_seed(42)

IN_DIM, HIDDEN, BATCH, STEPS = 32, 128, 256, 20


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN_DIM, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, HIDDEN)
        self.head = nn.Linear(HIDDEN, 1)
        # small init on the classifier so training starts at chance level
        nn.init.normal_(self.head.weight, std=3e-3)
        nn.init.zeros_(self.head.bias)

    def forward(self, x):
        # CPU torch has no Half matmul ("addmm_impl_cpu_" not implemented for
        # 'Half'): do the matmuls in fp32 and keep activations in fp16, as
        # autocast would on a GPU. Parameters and their grads stay fp16.
        for layer in (self.fc1, self.fc2):
            x = F.softplus(F.linear(x.float(), layer.weight.float(), layer.bias.float())).half()
        return F.linear(x.float(), self.head.weight.float(), self.head.bias.float())


# synthetic binary classification task (about a quarter positives)
w_true = torch.randn(IN_DIM)
data_x = torch.randn(40 * BATCH, IN_DIM)
data_y = (data_x @ w_true > 4.0).float()

model = MLP().half()

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
print(optimizer)
print(f"param dtype: {next(model.parameters()).dtype}")

for step in range(1, STEPS + 1):
    x = data_x[(step - 1) * BATCH: step * BATCH].half()
    y = data_y[(step - 1) * BATCH: step * BATCH]

    logits = model(x).squeeze(1)
    loss = F.binary_cross_entropy_with_logits(logits, y)
    if not math.isfinite(loss.item()):
        raise FloatingPointError(f"loss is {loss.item()} at step {step}")

    optimizer.zero_grad()
    loss.backward()
    grad_norm = math.sqrt(sum(p.grad.float().pow(2).sum().item()
                              for p in model.parameters() if p.grad is not None))

    # optimizer.step() would fail here: CPU torch 1.13 has no fp16 addcmul
    # ("addcmul_cpu_out" not implemented for 'Half'). This runs the same AdamW
    # update in fp16, mirroring the fp16 CUDA step.
    adamw_step_fp16(optimizer)

    lr = optimizer.param_groups[0]["lr"]
    print(f"step {step} | loss {loss.item():.6f} | grad_norm {grad_norm:.6f} | lr {lr:.1e}")
