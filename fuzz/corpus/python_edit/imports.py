import torch
import torch.optim as optim
from torch.optim import (AdamW as AW,)
from torch.nn.parallel import DistributedDataParallel as DDP
opt = AW(m.parameters(), lr=1e-3)
opt2 = optim.Adam(p, 1e-3, (0.9, 0.99), 1e-8)
m = DDP(model, **kw)
