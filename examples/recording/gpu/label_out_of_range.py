# A classifier with 10 outputs and labels that run from 1 to 10 (one-based class ids).
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Linear(128, 10).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    x = torch.randn(64, 128, device="cuda")
    y = torch.randint(1, 11, (64,), device="cuda")
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} | loss {loss.item():.4f}")
