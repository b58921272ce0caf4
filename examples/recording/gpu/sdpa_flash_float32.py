# Attention forced onto the FlashAttention backend while the model runs in float32.
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
q = torch.randn(4, 8, 1024, 64, device="cuda", requires_grad=True)
k = torch.randn(4, 8, 1024, 64, device="cuda", requires_grad=True)
v = torch.randn(4, 8, 1024, 64, device="cuda", requires_grad=True)
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
out.sum().backward()
print("ok")
