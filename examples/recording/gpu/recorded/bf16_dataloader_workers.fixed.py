# A complete script that is right for an Ampere node and wrong for an older one: bf16 autocast
# (https://github.com/lm-sys/FastChat/issues/399 and the threads like it: "Your setup doesn't
# support bf16/gpu" on V100 and T4) and DataLoader workers, which need more /dev/shm than
# Docker's default 64 MiB (https://github.com/pytorch/pytorch/issues/5040).
# Checked against tests/check_corpus/probes/: findings with the V100 container's probe, none
# with the A100 node's (and none without a probe).
import torch
from torch.utils.data import DataLoader, TensorDataset

model = torch.nn.Linear(512, 10).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = TensorDataset(torch.randn(4096, 512), torch.randint(0, 10, (4096,)))
loader = DataLoader(data, batch_size=256, shuffle=True, num_workers=8)
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
