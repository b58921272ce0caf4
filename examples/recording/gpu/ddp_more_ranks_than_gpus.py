# Launched with more processes per node than the node has GPUs: each rank picks cuda:LOCAL_RANK.
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
model = DDP(nn.Linear(128, 10).cuda(), device_ids=[local_rank])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    x = torch.randn(32, 128, device="cuda")
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if dist.get_rank() == 0:
        print(f"step {step} | loss {loss.item():.4f}")
dist.destroy_process_group()
