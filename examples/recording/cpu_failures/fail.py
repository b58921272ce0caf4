"""Trigger one real PyTorch failure on CPU.

    /usr/bin/python3 fail.py --case backward-twice

Each case is a few lines of ordinary training code with one mistake in it; the
script is expected to crash with the error that the matching denpex rule looks
for. See README.md in this directory for what each case does.
"""
import argparse
import os
import signal
import socket
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)


def backward_twice():
    # An RNN hidden state carried from step to step without .detach().
    rnn = nn.RNN(4, 8, batch_first=True)
    opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
    h = torch.zeros(1, 2, 8)
    for step in range(1, 3):
        x = torch.randn(2, 5, 4)
        out, h = rnn(x, h)          # h keeps the previous step's graph
        loss = out.pow(2).mean()
        print(f"step {step} | loss {loss.item():.4f}")
        opt.zero_grad()
        loss.backward()
        opt.step()


def inplace_modified_saved_tensor():
    # ReLU saves its output for backward; a later `+=` changes that output.
    lin = nn.Linear(4, 4)
    x = torch.randn(3, 4)
    h = torch.relu(lin(x))
    h += 1.0                        # in-place on a tensor ReLU saved
    loss = h.sum()
    loss.backward()


def loss_has_no_grad_fn():
    # The forward runs under torch.no_grad() (evaluation code reused for training).
    model = nn.Linear(4, 2)
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    with torch.no_grad():
        logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()


def matmul_shape_mismatch():
    # Flattened features are 100 wide, the classifier expects 128.
    model = nn.Sequential(nn.Flatten(), nn.Linear(128, 10))
    x = torch.randn(32, 4, 25)
    model(x)


def dtype_mismatch():
    # Model in float64, input batch in float32.
    model = nn.Linear(16, 4).double()
    x = torch.randn(8, 16)
    model(x)


def label_out_of_range():
    # 10 classes, but one label is 10 (labels were 1-based).
    logits = torch.randn(4, 10, requires_grad=True)
    labels = torch.tensor([1, 5, 10, 3])
    loss = F.cross_entropy(logits, labels)
    loss.backward()


def embedding_index_out_of_range():
    # Vocabulary of 100 tokens, a token id 100 from a tokenizer with a larger vocabulary.
    emb = nn.Embedding(100, 16)
    ids = torch.tensor([[1, 2, 99, 100]])
    emb(ids)


def anomaly_nan_in_backward():
    # A "safe" sqrt that masks negative inputs with torch.where: the forward is finite, but
    # sqrt's backward at the masked negative entries is 0 / nan = nan.
    torch.autograd.set_detect_anomaly(True)
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    safe = torch.where(w > 0, torch.sqrt(w), torch.zeros_like(w))
    loss = safe.sum()
    print(f"loss {loss.item():.4f}")
    loss.backward()


def loss_batch_size_mismatch():
    # The logits were flattened over the sequence but the labels were not.
    logits = torch.randn(4, 7, 10, requires_grad=True)   # batch 4, seq 7, 10 classes
    labels = torch.randint(0, 10, (4,))
    loss = F.cross_entropy(logits.view(-1, 10), labels)
    loss.backward()


def broadcast_shape_mismatch():
    # A mask built for sequence length 12 applied to scores of length 16.
    scores = torch.randn(2, 16)
    mask = torch.ones(2, 12)
    scores * mask


def _ddp_worker(rank, world_size, port):
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Linear(4, 4)
            self.aux_head = nn.Linear(4, 2)   # defined but never used in forward
            self.head = nn.Linear(4, 1)

        def forward(self, x):
            return self.head(torch.relu(self.encoder(x)))

    torch.manual_seed(0)
    model = DDP(Net())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(1, 3):
        x = torch.randn(8, 4)
        loss = model(x).pow(2).mean()
        print(f"[rank{rank}] step {step} | loss {loss.item():.4f}", flush=True)
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def ddp_unused_parameters():
    import torch.multiprocessing as mp
    mp.spawn(_ddp_worker, args=(2, _free_port()), nprocs=2, join=True)


def master_port_in_use():
    # A stale process (here: a plain socket) still holds MASTER_PORT.
    import torch.distributed as dist
    holder = socket.socket()
    try:
        holder.bind(("", 29500))    # the default MASTER_PORT
    except OSError:                 # taken for real on this machine: any free port will do
        holder.bind(("", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    print("MASTER_PORT is already held by another process", flush=True)
    dist.init_process_group("gloo", rank=0, world_size=1)


class _SelfKillingDataset(torch.utils.data.Dataset):
    # Stands in for the OOM killer: the worker receives SIGKILL while loading a sample.
    def __len__(self):
        return 64

    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return torch.full((4,), float(i))


def dataloader_worker_killed():
    loader = torch.utils.data.DataLoader(_SelfKillingDataset(), batch_size=4, num_workers=2)
    for step, batch in enumerate(loader, 1):
        print(f"step {step} | batch mean {batch.mean().item():.2f}", flush=True)


CASES = {
    "backward-twice": backward_twice,
    "inplace-modified-saved-tensor": inplace_modified_saved_tensor,
    "loss-has-no-grad-fn": loss_has_no_grad_fn,
    "matmul-shape-mismatch": matmul_shape_mismatch,
    "dtype-mismatch": dtype_mismatch,
    "label-out-of-range": label_out_of_range,
    "embedding-index-out-of-range": embedding_index_out_of_range,
    "anomaly-nan-in-backward": anomaly_nan_in_backward,
    "loss-batch-size-mismatch": loss_batch_size_mismatch,
    "broadcast-shape-mismatch": broadcast_shape_mismatch,
    "ddp-unused-parameters": ddp_unused_parameters,
    "master-port-in-use": master_port_in_use,
    "dataloader-worker-killed": dataloader_worker_killed,
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", required=True, choices=sorted(CASES))
    args = p.parse_args()
    print(f"torch {torch.__version__} | case {args.case}", flush=True)
    CASES[args.case]()
    print("finished without error", flush=True)


# Defined after main() so that the lines of the cases above, and of main(), stay those of the
# logs recorded before it.
def collate_missing_key():
    # No rule knows this one: the dataset's samples call the field "input_id", the collate
    # function asks for "input_ids".
    samples = [{"input_id": torch.arange(3 + i % 5)} for i in range(16)]

    def collate(batch):
        return nn.utils.rnn.pad_sequence([s["input_ids"] for s in batch], batch_first=True)

    loader = torch.utils.data.DataLoader(samples, batch_size=4, collate_fn=collate)
    for step, batch in enumerate(loader, 1):
        print(f"step {step} | batch {tuple(batch.shape)}", flush=True)


CASES["unrecognized-exception"] = collate_missing_key


def loss_target_probabilities():
    # Labels one-hot encoded with F.one_hot (int64) and passed to cross_entropy: shaped like the
    # logits, the target is read as class probabilities, which must be floating point.
    model = nn.Linear(4, 3)
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    loss = F.cross_entropy(model(x), F.one_hot(y, 3))
    loss.backward()


CASES["loss-target-dtype"] = loss_target_probabilities


def master_port_privileged():
    # MASTER_PORT below 1024 (98, a number copied from an example) for a user who is not root: the
    # rendezvous store's bind is refused with EACCES. Run as root (a container), the case first
    # becomes the unprivileged user nobody, as an ordinary login on a cluster node is.
    if os.geteuid() == 0:
        import pwd
        nobody = pwd.getpwnam("nobody")
        os.setgid(nobody.pw_gid)
        os.setuid(nobody.pw_uid)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="98")
    import torch.distributed as dist
    dist.init_process_group("gloo", rank=0, world_size=1)


CASES["master-port-privileged"] = master_port_privileged


def nccl_on_a_build_without_it():
    # A script written for a Linux GPU cluster, run on a PyTorch build without NCCL (Debian's
    # CPU-only torch here; the Windows and macOS wheels are the same): backend="nccl" is fixed in
    # the code, so the process group cannot be made.
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()))
    import torch.distributed as dist
    print(f"nccl available: {dist.is_nccl_available()}", flush=True)
    dist.init_process_group(backend="nccl", rank=0, world_size=1)


CASES["nccl-backend-unavailable"] = nccl_on_a_build_without_it



def resume_from_truncated_checkpoint():
    # The job that wrote the last checkpoint was killed part way through the save: half the file
    # is on disk, and the next run resumes from it.
    import tempfile
    model = nn.Linear(512, 512)
    path = os.path.join(tempfile.mkdtemp(), "last.pt")
    torch.save({"model": model.state_dict(), "step": 1200}, path)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
    print(f"resuming from last.pt ({len(data) // 2} of {len(data)} bytes)", flush=True)
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])


CASES["checkpoint-file-corrupt"] = resume_from_truncated_checkpoint


class _MixedSizeImages(torch.utils.data.Dataset):
    # Images read as they are, without a resize to one size: one of them is smaller.
    def __len__(self):
        return 16

    def __getitem__(self, i):
        side = 28 if i != 6 else 24
        return torch.rand(3, side, side), i % 10


def collate_images_of_two_sizes():
    loader = torch.utils.data.DataLoader(_MixedSizeImages(), batch_size=4)
    for step, (images, labels) in enumerate(loader, 1):
        print(f"step {step} | images {tuple(images.shape)}", flush=True)


CASES["collate-unequal-tensor-sizes"] = collate_images_of_two_sizes


def _metrics_worker(rank, world, port):
    import datetime
    import torch.distributed as dist
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=20))
    # Each rank keeps the loss of every sample it saw, and the shards are not the same length:
    # the per-sample losses are summed across ranks without padding them to one length first.
    losses = torch.rand(250 if rank == 0 else 500)
    print(f"[rank{rank}] epoch 1 | {losses.numel()} samples | mean loss {losses.mean().item():.4f}", flush=True)
    dist.all_reduce(losses)
    dist.destroy_process_group()


def all_reduce_of_unequal_sizes():
    import torch.multiprocessing as mp
    mp.spawn(_metrics_worker, args=(2, _free_port()), nprocs=2, join=True)


CASES["collective-mismatch"] = all_reduce_of_unequal_sizes


def grid_indices_clamped_to_float_bounds():
    # YOLO-style target assignment: box centres scaled to the feature map, their cells kept as
    # integer indices and clamped in place to the map's size, which is held in a float tensor.
    targets = torch.tensor([[0.0, 3.0, 0.52, 0.31, 0.10, 0.20], [1.0, 7.0, 0.95, 0.99, 0.30, 0.40]])
    gain = torch.ones(6)
    gain[2:6] = torch.tensor([80, 80, 80, 80])   # the feature map is 80x80
    t = targets * gain
    gxy = t[:, 2:4]
    gij = gxy.long()
    gi, gj = gij.T
    print(f"build_targets | {len(t)} targets | grid {int(gain[2])}x{int(gain[3])}", flush=True)
    indices = (t[:, 0].long(), gj.clamp_(0, gain[3] - 1), gi.clamp_(0, gain[2] - 1))
    print(indices, flush=True)


CASES["inplace-result-type-cast"] = grid_indices_clamped_to_float_bounds


def spawn_without_main_guard():
    # The unguarded script runs as its own program, as `python train.py` would run it.
    import subprocess
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "no_main_guard.py")
    sys.exit(subprocess.call([sys.executable, script]))


CASES["spawn-without-main-guard"] = spawn_without_main_guard


class _Encoder(nn.Module):
    # The blocks kept in a plain Python list: nn.Module does not see into lists, so none of
    # their weights are the module's parameters (nn.ModuleList would register them).
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(16, 16) for _ in range(3)]

    def forward(self, x):
        for block in self.blocks:
            x = torch.relu(block(x))
        return x


def optimizer_of_a_module_without_parameters():
    model = _Encoder()
    print(f"model has {sum(p.numel() for p in model.parameters())} parameters", flush=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    print(optimizer, flush=True)


CASES["optimizer-empty-parameter-list"] = optimizer_of_a_module_without_parameters


def model_to_cuda_on_a_cpu_only_build():
    # A training script written for a GPU machine, run where PyTorch is a CPU-only build (Debian's
    # torch here; pip's default wheels on Windows and macOS are the same): the first .cuda()
    # initializes CUDA, which the build does not have.
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    print(f"torch {torch.__version__}, CUDA build: {torch.version.cuda}", flush=True)
    model.cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    print(optimizer, flush=True)


CASES["cuda-not-available"] = model_to_cuda_on_a_cpu_only_build


def per_sample_loss_not_reduced():
    # Per-sample weights need unreduced losses (reduction="none"); the weighted losses are then
    # passed to backward() without the mean that makes them one number.
    torch.manual_seed(0)
    model = nn.Linear(16, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(32, 16), torch.randn(32, 1)
    weights = torch.rand(32, 1)
    loss = nn.MSELoss(reduction="none")(model(x), y) * weights
    print(f"step 0 loss shape {tuple(loss.shape)}", flush=True)
    loss.backward()
    optimizer.step()


CASES["backward-non-scalar-loss"] = per_sample_loss_not_reduced


class _SelfAttention(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))  # (b, heads, t, head_dim)
        att = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, dim=-1)
        y = (att @ v).transpose(1, 2)  # (b, t, heads, head_dim): no longer contiguous
        return self.out(y.view(b, t, d))


def merge_heads_with_view():
    model = _SelfAttention()
    x = torch.randn(2, 10, 32)
    print("forward of a self-attention block", flush=True)
    model(x).sum().backward()


CASES["view-non-contiguous"] = merge_heads_with_view


def metric_on_a_tensor_that_requires_grad():
    # Validation metrics computed with NumPy from the model's output, outside torch.no_grad().
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    x, y = torch.randn(64, 8), (torch.rand(64) > 0.5).float()
    probs = torch.sigmoid(model(x)).squeeze(1)
    print("epoch 0: validating", flush=True)
    import numpy as np
    acc = float(np.mean((probs.numpy() > 0.5) == y.numpy()))
    print(f"val acc {acc:.3f}", flush=True)


CASES["tensor-to-numpy"] = metric_on_a_tensor_that_requires_grad


class _LagFeatures(nn.Module):
    # A forecasting model joining lag features with covariates along the feature axis: the lags
    # cover the context length, the covariates were built for another length.
    def forward(self, lags, covariates):
        return torch.cat((lags, covariates), dim=-1)


def join_features_of_two_lengths():
    lags = torch.randn(8, 24, 3)          # (batch, context_length, lags)
    covariates = torch.randn(8, 30, 5)    # (batch, context_length + prediction_length, covariates)
    print("building inputs for a batch of 8", flush=True)
    _LagFeatures()(lags, covariates)


CASES["cat-shape-mismatch"] = join_features_of_two_lengths


class _LeNetFor32px(nn.Module):
    # LeNet-5 as written for 32 x 32 images: the flattened size 16 * 5 * 5 is that input's.
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, 16 * 5 * 5)
        return self.fc2(F.relu(self.fc1(x)))


def lenet_for_32px_given_28px_images():
    # MNIST's 28 x 28 images through the 32 x 32 LeNet: 16 * 4 * 4 values a sample, not 400.
    model = _LeNetFor32px()
    images, labels = torch.randn(8, 1, 28, 28), torch.randint(0, 10, (8,))
    print("batch of 8 MNIST images", tuple(images.shape), flush=True)
    loss = F.cross_entropy(model(images), labels)
    loss.backward()


CASES["reshape-size-mismatch"] = lenet_for_32px_given_28px_images


def accuracy_after_squeeze_on_a_batch_of_one():
    # Evaluation over 9 samples in batches of 4: the last batch holds one sample, and squeeze()
    # removes its batch dimension.
    model = nn.Linear(6, 3)
    data = torch.utils.data.TensorDataset(torch.randn(9, 6), torch.randint(0, 3, (9,)))
    correct = 0
    with torch.no_grad():
        for x, y in torch.utils.data.DataLoader(data, batch_size=4):
            outputs = model(x).unsqueeze(-1)
            preds = outputs.squeeze().argmax(dim=1)
            correct += (preds == y).sum().item()
            print(f"evaluated {len(y)} samples", flush=True)
    print(f"accuracy {correct / len(data):.2f}", flush=True)


CASES["dimension-out-of-range"] = accuracy_after_squeeze_on_a_batch_of_one


def cifar_images_in_a_network_for_imagenet():
    # Five stride-2 stages were designed for 224 x 224 inputs; CIFAR's 32 x 32 images reach the
    # last one at 1 x 1.
    stages = []
    channels = 3
    for width in (16, 32, 64, 128, 256):
        stages += [nn.Conv2d(channels, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
        channels = width
    model = nn.Sequential(*stages, nn.MaxPool2d(2), nn.Flatten(), nn.LazyLinear(10))
    images = torch.randn(8, 3, 32, 32)
    print("batch of 8 CIFAR images", tuple(images.shape), flush=True)
    model(images)


CASES["input-too-small-for-network"] = cifar_images_in_a_network_for_imagenet


def contrastive_loss_gathering_with_grad_without_the_import():
    # CLIP-style training gathers every rank's features with the autograd-aware all_gather of
    # torch.distributed.nn; the script imports torch.distributed only, which does not import
    # its nn submodule. A process group of one (gloo, this host) stands for the ranks.
    import socket
    import torch.distributed as dist

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    image_features = torch.randn(4, 16, requires_grad=True)
    print("rank", dist.get_rank(), "of", dist.get_world_size(), "features", tuple(image_features.shape), flush=True)
    gathered = torch.cat(dist.nn.functional.all_gather(image_features))
    print(gathered.shape)


CASES["torch-submodule-not-imported"] = contrastive_loss_gathering_with_grad_without_the_import


def residual_add_in_a_statically_quantized_block():
    # Eager-mode static quantization of a block whose skip connection is written `out += x`:
    # after convert(), both sides are quantized tensors, and the float add has no kernel for
    # them (torchvision's quantizable ResNet uses FloatFunctional for this add).
    engine = "fbgemm" if "fbgemm" in torch.backends.quantized.supported_engines else "qnnpack"
    torch.backends.quantized.engine = engine

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = torch.ao.quantization.QuantStub()
            self.conv = nn.Conv2d(8, 8, 3, padding=1)
            self.relu = nn.ReLU()
            self.dequant = torch.ao.quantization.DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            out = self.relu(self.conv(x))
            out += x
            return self.dequant(out)

    model = Block().eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig(engine)
    torch.ao.quantization.prepare(model, inplace=True)
    for _ in range(4):
        model(torch.randn(4, 8, 16, 16))
    print("calibrated; converting with", engine, flush=True)
    torch.ao.quantization.convert(model, inplace=True)
    model(torch.randn(4, 8, 16, 16))


CASES["quantized-tensor-float-op"] = residual_add_in_a_statically_quantized_block


def physics_loss_through_a_numpy_solution():
    # A physics-informed loss needs dy/dt. The reference solution comes from a NumPy integrator
    # (explicit Euler here, scipy's odeint in the wild) and is wrapped in a fresh tensor: no graph
    # leads from t to y, so autograd.grad finds t unused.
    import numpy as np

    t = torch.linspace(0.0, 1.0, 50, requires_grad=True)
    grid = t.detach().numpy()
    y_np = np.empty_like(grid)
    y_np[0] = 1.0
    for i in range(1, len(grid)):
        y_np[i] = y_np[i - 1] - 0.5 * y_np[i - 1] * (grid[i] - grid[i - 1])
    y = torch.tensor(y_np, requires_grad=True)
    print("solution", tuple(y.shape), "on", tuple(t.shape), "time points", flush=True)
    dy_dt = torch.autograd.grad(y, t, grad_outputs=torch.ones_like(y), create_graph=True)[0]
    print(dy_dt[:3])


CASES["grad-input-not-in-graph"] = physics_loss_through_a_numpy_solution


def sampler_told_one_nodes_world_with_a_global_rank():
    # The second node's second process of a 2 x 2 job: its global rank is computed from the node
    # rank, while num_replicas is left at the GPUs of one node. No process group is needed for the
    # sampler to refuse it: both numbers are passed by hand.
    from torch.utils.data import DistributedSampler, TensorDataset

    node_rank, local_rank, gpus_per_node = 1, 1, 2
    rank = node_rank * gpus_per_node + local_rank
    data = TensorDataset(torch.randn(64, 4))
    print(f"node {node_rank} local rank {local_rank} -> global rank {rank}", flush=True)
    sampler = DistributedSampler(data, num_replicas=gpus_per_node, rank=rank, shuffle=True)
    print(len(sampler))


CASES["rank-exceeds-world-size"] = sampler_told_one_nodes_world_with_a_global_rank


def frames_of_a_clip_into_a_per_frame_conv2d():
    # A video model meant to run one image encoder on every frame: the clips come as [batch,
    # frames, channels, height, width] and reach the Conv2d without being folded into
    # [batch * frames, channels, height, width].
    encoder = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    head = nn.Linear(8, 5)
    clips = torch.randn(2, 4, 3, 16, 16)
    print("clips", tuple(clips.shape), flush=True)
    logits = head(encoder(clips))
    print(logits.shape)


CASES["conv-input-rank"] = frames_of_a_clip_into_a_per_frame_conv2d


def one_cycle_sized_for_another_batch_size():
    # steps_per_epoch computed from the config's batch size (32) while the DataLoader was built
    # with 16: the loop steps the scheduler twice as often as it was told.
    from torch.utils.data import DataLoader, TensorDataset

    data = TensorDataset(torch.randn(96, 4), torch.randn(96, 1))
    loader = DataLoader(data, batch_size=16)
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    config_batch_size, epochs = 32, 2
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=epochs,
                                                steps_per_epoch=len(data) // config_batch_size)
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader, 1):
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            print(f"epoch {epoch} step {step} | loss {loss.item():.4f} | lr {sched.get_last_lr()[0]:.4f}", flush=True)


CASES["onecycle-lr-total-steps-exceeded"] = one_cycle_sized_for_another_batch_size


def export_check_of_a_modulelist_indexed_by_a_variable():
    # The model trains in eager mode; the training script scripts it once at start-up to check
    # that it can be exported, and TorchScript refuses a ModuleList indexed by a loop variable.
    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])

        def forward(self, x):
            for i in range(len(self.blocks)):
                x = x + self.blocks[i](x)
            return x

    model = Residual()
    print("eager forward", tuple(model(torch.randn(2, 8)).shape), flush=True)
    torch.jit.script(model)


CASES["torchscript-compile-error"] = export_check_of_a_modulelist_indexed_by_a_variable


def pooled_embedding_joined_to_token_features():
    # An adapter swapped in for a projection that took the pooled (batch, dim) image embedding:
    # the new one joins it to (batch, tokens, dim) latents along the token axis, but the training
    # loop still passes the pooled embedding.
    pooled = torch.randn(4, 16)
    latents = nn.Parameter(torch.randn(1, 8, 16)).expand(4, -1, -1)
    print("image embedding", tuple(pooled.shape), "latents", tuple(latents.shape), flush=True)
    kv = torch.cat((pooled, latents), dim=-2)
    print(kv.shape)


CASES["cat-shape-mismatch:ranks"] = pooled_embedding_joined_to_token_features


def loss_read_the_pytorch_0_3_way():
    # Training code written for PyTorch 0.3, where a loss was a 1-element tensor: its running total
    # reads element 0 of the NumPy array. Since 0.4 the loss is 0-dimensional.
    model = nn.Linear(4, 1)
    total = 0.0
    for step in range(1, 3):
        loss = F.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
        loss.backward()
        total += loss.data.cpu().numpy()[0]
        print(f"step {step} | loss {total / step:.4f}", flush=True)


CASES["library-version-mismatch"] = loss_read_the_pytorch_0_3_way


def image_list_globbed_for_another_extension():
    # The dataset lists its images with a pattern for .png files while the folder holds .jpg
    # files: it is built without complaint, with no samples, and the shuffling DataLoader refuses.
    import glob
    import tempfile

    from torch.utils.data import DataLoader, Dataset

    class Images(Dataset):
        def __init__(self, root):
            self.files = sorted(glob.glob(os.path.join(root, "*", "*.png")))

        def __len__(self):
            return len(self.files)

        def __getitem__(self, i):
            return torch.zeros(3, 8, 8), 0

    with tempfile.TemporaryDirectory() as root:
        for cls in ("cat", "dog"):
            os.makedirs(os.path.join(root, cls))
            for i in range(3):
                open(os.path.join(root, cls, f"{i}.jpg"), "wb").close()
        data = Images(root)
        print(f"train images: {len(data)}", flush=True)
        loader = DataLoader(data, batch_size=4, shuffle=True)
        for x, y in loader:
            print(x.shape)


CASES["empty-dataset"] = image_list_globbed_for_another_extension


def plateau_stepped_like_the_other_schedulers():
    # A training loop written for step-based schedulers calls scheduler.step() after each epoch;
    # the config switched the scheduler to ReduceLROnPlateau, whose step needs the watched value.
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", patience=2)
    x, y = torch.randn(32, 4), torch.randn(32, 1)
    for epoch in range(2):
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch} | loss {loss.item():.4f}", flush=True)
        sched.step()


CASES["lr-scheduler-monitor-metric-missing"] = plateau_stepped_like_the_other_schedulers


if __name__ == "__main__":
    main()
