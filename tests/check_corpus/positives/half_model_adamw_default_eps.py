# The seed failure in a complete script (the configuration of
# https://discuss.pytorch.org/t/adam-half-precision-nans/1765 and the threads like it): a model
# cast to float16 with .half() and trained by torch.optim.AdamW with its default eps, 1e-8,
# which is 0 in float16. Run on a GPU, the loss is finite at first and then NaN.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 128)
        self.fc2 = nn.Linear(128, 128)
        self.head = nn.Linear(128, 1)
        nn.init.normal_(self.head.weight, std=3e-3)
        nn.init.zeros_(self.head.bias)

    def forward(self, x):
        x = F.softplus(self.fc1(x))
        x = F.softplus(self.fc2(x))
        return self.head(x)


w_true = torch.randn(32, device="cuda")
data_x = torch.randn(40 * 256, 32, device="cuda")
data_y = (data_x @ w_true > 4.0).float()

model = MLP().cuda().half()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

for step in range(1, 21):
    x = data_x[(step - 1) * 256: step * 256].half()
    y = data_y[(step - 1) * 256: step * 256]
    logits = model(x).squeeze(1).float()
    loss = F.binary_cross_entropy_with_logits(logits, y)
    if not math.isfinite(loss.item()):
        raise FloatingPointError(f"loss is {loss.item()} at step {step}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} | loss {loss.item():.6f}")
