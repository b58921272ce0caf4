# A complete script with the failure of https://github.com/pytorch/pytorch/issues/43259 and the
# threads like it: a module with a head its forward never uses, wrapped in
# DistributedDataParallel without find_unused_parameters=True. It runs on CPU (gloo, two
# processes): the second step raises "Expected to have finished reduction in the prior
# iteration before starting a new one".
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(16, 32)
        self.head = nn.Linear(32, 4)
        self.aux_head = nn.Linear(32, 4)  # meant for an auxiliary loss that was dropped

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def train(rank, world_size):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29531")
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = DDP(Classifier())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(1, 6):
        x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if rank == 0:
            print(f"step {step} | loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(train, args=(2,), nprocs=2)
