"""model.half() and a forward pass on CPU (torch 1.13): no Half addmm kernel."""
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 1)).half()
print(f"param dtype: {next(model.parameters()).dtype}")

x = torch.randn(64, 32).half()
logits = model(x)
print(logits.shape)
