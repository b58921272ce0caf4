"""Stock torch.optim.AdamW step on float16 parameters on CPU (torch 1.13):
no Half addcmul kernel. The forward does its matmuls in fp32 so that it gets
past the missing Half addmm and the fp16 parameters receive fp16 gradients."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 1)).half()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
print(optimizer)
print(f"param dtype: {next(model.parameters()).dtype}")

x = torch.randn(64, 32)
y = (x.sum(dim=1) > 0).float()
fc1, fc2 = model[0], model[2]
h = F.relu(F.linear(x, fc1.weight.float(), fc1.bias.float()))
logits = F.linear(h, fc2.weight.float(), fc2.bias.float()).squeeze(1)
loss = F.binary_cross_entropy_with_logits(logits, y)

optimizer.zero_grad()
loss.backward()
print(f"grad dtype: {fc1.weight.grad.dtype}")
optimizer.step()
