# A complete script with the failure of https://github.com/huggingface/diffusers/issues/6086 in
# plain torch: the trainable weights in float16 and a GradScaler, which raises "ValueError:
# Attempting to unscale FP16 gradients." at the first step.
import torch
from torch import nn

model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).cuda().half()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch.cuda.amp.GradScaler()
for step in range(100):
    x = torch.randn(8, 64, device="cuda", dtype=torch.float16)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
