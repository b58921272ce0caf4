# Two ranks that both train on cuda:0 (the device was hard-coded instead of cuda:LOCAL_RANK).
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
device = torch.device("cuda:0")
model = DDP(nn.Linear(128, 10).to(device), device_ids=[device])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    x = torch.randn(32, 128, device=device)
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if dist.get_rank() == 0:
        print(f"step {step} | loss {loss.item():.4f}")
dist.destroy_process_group()
