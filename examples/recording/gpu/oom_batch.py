# A batch far larger than the GPU holds: the activations of the first layer do not fit.
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4096, 4096), nn.GELU(), nn.Linear(4096, 10)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
batch_size = 16 * 1024 * 1024
for step in range(3):
    x = torch.randn(batch_size, 4096, device="cuda")
    loss = model(x).logsumexp(dim=1).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} | loss {loss.item():.4f}")
