# A dataset that puts each sample on the GPU, read by forked DataLoader workers after the main
# process has already used CUDA.
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class GpuDataset(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 32)
        self.y = torch.randint(0, 4, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i].cuda(), self.y[i].cuda()


model = nn.Linear(32, 4).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(GpuDataset(512), batch_size=64, num_workers=2)
for step, (x, y) in enumerate(loader):
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} | loss {loss.item():.4f}")
