# The model moved to the GPU, the batch left on the CPU.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2)).to("cuda")
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = TensorDataset(torch.randn(256, 20), torch.randint(0, 2, (256,)))
for step, (x, y) in enumerate(DataLoader(data, batch_size=32)):
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} | loss {loss.item():.4f}")
