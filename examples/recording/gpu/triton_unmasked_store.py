# A Triton kernel whose last block stores past the end of its output (no mask), far enough to
# leave the allocation.
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs * stride, x * 2.0)


x = torch.randn(1 << 20, device="cuda")
out = torch.empty_like(x)
scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), 1 << 16, BLOCK=1024)
torch.cuda.synchronize()
print(out.sum().item())
