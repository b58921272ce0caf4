# Gradient clipping written twice: once by hand with unscale_, once more inside a helper.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")


def clip(optimizer, max_norm=1.0):
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)


for step in range(5):
    x = torch.randn(32, 64, device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    clip(optimizer)
    scaler.step(optimizer)
    scaler.update()
    print(f"step {step} | loss {loss.item():.4f}")
