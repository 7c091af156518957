"""Probes of PyTorch's CPU accumulation orders (docs/frameworks.md, "PyTorch 2.15"): run it under
each CPU capability and each release, and compare the lines.

    for c in default avx2 avx512; do ATEN_CPU_CAPABILITY=$c .envs/torch/bin/python python/frameworks/probes/torch_probes.py; done

torch.sum: +M at leaf 0 and -M at leaf k among ones (M = 2^30 swamps a one in f32), one thread;
the result counts the ones that did not meet +M before -M cancelled it, so it differs between
summation trees. Three layouts: (40, 2) contiguous (the outer sum), (2, 100) transposed (the reduced
dim contiguous: the inner sum, whose vector width is the capability's) and (100, 1).
The 16-bit ops: 300 bf16 ones into one element: 300 when the op accumulates in f32 and rounds
once, 256 when every step rounds to bf16 (256 + 1 ties to 256)."""
import os

import torch

torch.set_num_threads(1)
M = 2.0 ** 30


def probe_sum(make, n, ks):
    return [int(make(n, k).item()) for k in ks]


def outer(n, k):
    x = torch.ones(n, 2)
    x[0, 0], x[k, 0] = M, -M
    return x.sum(dim=0)[0]


def inner(n, k):
    x = torch.ones(2, n)
    x[0, 0], x[0, k] = M, -M
    return x.t().sum(dim=0)[0]


def one_column(n, k):
    x = torch.ones(n, 1)
    x[0, 0], x[k, 0] = M, -M
    return x.sum(dim=0)[0]


capability = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") else os.environ.get(
    "ATEN_CPU_CAPABILITY", "?")
print(f"torch {torch.__version__}, capability {capability}")
print("torch.sum outer  (40, 2),   k = 1 15 16 31 32 39:", probe_sum(outer, 40, (1, 15, 16, 31, 32, 39)))
print("torch.sum inner  (2, 100).t(), k = 1 7 8 15 16 31 32 63 64 99:", probe_sum(inner, 100, (1, 7, 8, 15, 16, 31, 32, 63, 64, 99)))
print("torch.sum column (100, 1),  k = 1 7 8 15 16 31 32 63 64 99:", probe_sum(one_column, 100, (1, 7, 8, 15, 16, 31, 32, 63, 64, 99)))

bf16 = torch.bfloat16
index = torch.zeros(300, dtype=torch.long)
ones = torch.ones(300, 1, dtype=bf16)


def into_one_row(op):
    try:
        return op(torch.zeros(2, 1, dtype=bf16)).flatten()[0].item()
    except RuntimeError as e:  # an op a release refuses in bf16
        return f"refused ({str(e).splitlines()[0][:60]})"


def embedding_bag_grad(_):
    w = torch.zeros(2, 1, dtype=bf16, requires_grad=True)
    torch.nn.functional.embedding_bag(index, w, torch.arange(300), mode="sum").backward(ones)
    return w.grad


def grad_accumulation(_):
    p = torch.zeros(1, dtype=bf16, requires_grad=True)
    for _ in range(300):
        (p * torch.ones(1, dtype=bf16)).sum().backward()
    return p.grad


for name, op in [("index_add_", lambda t: t.index_add_(0, index, ones)),
                 ("scatter_add_", lambda t: t.scatter_add_(0, index[:, None], ones)),
                 ("index_put_(accumulate=True)", lambda t: t.index_put_((index,), ones, accumulate=True)),
                 ("embedding_bag backward", embedding_bag_grad),
                 (".grad accumulation", grad_accumulation),
                 ("torch.stack(...).sum(0)", lambda t: ones.sum(0))]:
    print(f"{name}, 300 bf16 ones: {into_one_row(op)}")
