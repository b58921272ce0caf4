# A training script without `if __name__ == "__main__":`, run where DataLoader workers are
# started with spawn (the default on Windows and macOS): each worker imports this file again,
# and the import tries to start workers of its own. fail.py's spawn-without-main-guard case
# runs it.
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset

mp.set_start_method("spawn", force=True)  # what Windows and macOS do by default
data = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
loader = DataLoader(data, batch_size=16, num_workers=2)
for step, (x, y) in enumerate(loader, 1):
    print(f"step {step} | batch {tuple(x.shape)}", flush=True)
