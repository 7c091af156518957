"""PyTorch's own CPU accumulators as accucheck backends (PyTorch 2.15.0, PyPI's wheel, run on the CPU).

Dense backends sum each element's initial gradient and T addends with one torch op (the buffer
is row 0 of what is reduced, or the tensor added into); sparse backends add (row, vector) pairs
into the table. The bound of each rests on the source named beside it (docs/frameworks.md).

    ACCUCHECK_PYTHON=.envs/torch/bin/python accucheck check --python python/frameworks/torch_backends.py --minutes 0.5
"""
import torch
import torch.nn.functional as F

import accucheck
from derivation import derived_for, in_f32
from torch_arrays import SUM_LAYOUTS, TORCH_DTYPE, for_each_sum, stacked, to_numpy, to_torch

DERIVED = derived_for("torch", "2.15.0", torch.__version__)
# The CPU capability ATen dispatches to (ATEN_CPU_CAPABILITY picks a lower one). torch.sum's tree
# is the same on all three: SumKernel.cpp registers with REGISTER_DISPATCH, which leaves the
# AVX512 slot empty since 2.1 (DispatchStub.h), so AVX512 falls back to the 8-lane AVX2 kernel.
CAPABILITY = torch.backends.cpu.get_cpu_capability()



def _torch_sum(fmt, layout, threads):
    # f32 sums in f32; f16 and bf16 load into f32 (acc_type<T, true> = float), sum there and
    # round once when the output (filled with 0) takes the result (CastStoreAccumulate).
    reduce = SUM_LAYOUTS[layout]

    @accucheck.backend(name=f"torch.sum_{layout}_{fmt}_t{threads}", storage=fmt, accumulation="f32",
                       bound=in_f32(fmt, "tree(torch_sum,f32)"),
                       summary=f"torch.sum(x, dim=0), {layout}, {threads} thread(s), {CAPABILITY}{DERIVED}")
    def run(addends, buffer):
        torch.set_num_threads(threads)
        return to_numpy(reduce(stacked(addends, buffer)))


for_each_sum(_torch_sum)


# 16-bit index_add_ and scatter_add_ accumulate in f32 at 2.15 and round once (1.13 rounded every
# step: 300 bf16 ones gave 256, now 300): in_f32(fmt); f32 as before.
# Tensor.index_add_ (TensorAdvancedIndexing.cpp, index_add_cpu_out): for i in index order,
# self[index[i]] += source[i]; 16-bit types in f32 (docs/frameworks.md).
def _index_add(fmt):
    @accucheck.backend(name=f"torch.index_add_{fmt}", storage=fmt, bound=in_f32(fmt),
                       summary=f"table.index_add_(0, rows, values){DERIVED}")
    def run(table, step_offsets, rows, values):
        t = to_torch(table).clone()
        t.index_add_(0, torch.from_numpy(rows), to_torch(values))
        return to_numpy(t)


# Tensor.scatter_add_ (ScatterGatherKernel.cpp): ascending index order; 16-bit types in f32.
def _scatter_add(fmt):
    @accucheck.backend(name=f"torch.scatter_add_{fmt}", storage=fmt, bound=in_f32(fmt),
                       summary=f"table.scatter_add_(0, rows expanded to (pairs, dim), values){DERIVED}")
    def run(table, step_offsets, rows, values):
        t = to_torch(table).clone()
        index = torch.from_numpy(rows)[:, None].expand(-1, table.shape[1]).contiguous()
        t.scatter_add_(0, index, to_torch(values))
        return to_numpy(t)


# Tensor.index_put_((rows,), values, accumulate=True): each occurrence added in the tensor's dtype,
# rounded each time (300 bf16 ones give 256): recursive in the storage format.
def _index_put(fmt):
    @accucheck.backend(name=f"torch.index_put_accumulate_{fmt}", storage=fmt, bound=f"recursive({fmt})",
                       summary=f"table.index_put_((rows,), values, accumulate=True){DERIVED}")
    def run(table, step_offsets, rows, values):
        t = to_torch(table).clone()
        t.index_put_((torch.from_numpy(rows),), to_torch(values), accumulate=True)
        return to_numpy(t)


def backward_per_step(fmt, table, step_offsets, rows, values, forward):
    """weight.grad = the initial table, then per step (micro-batch) t: forward(rows_t, weight).backward(values_t)."""
    weight = torch.zeros(table.shape, dtype=TORCH_DTYPE[fmt], requires_grad=True)
    weight.grad = to_torch(table).clone()
    grads = to_torch(values)
    index = torch.from_numpy(rows)
    for t in range(len(step_offsets) - 1):
        lo, hi = int(step_offsets[t]), int(step_offsets[t + 1])
        if hi > lo:
            forward(index[lo:hi], weight).backward(grads[lo:hi])
    return to_numpy(weight.grad)


# Dense embedding backward, one backward per micro-batch (step): embedding_dense_backward_cpu
# (Embedding.cpp) adds each occurrence's gradient into a zeroed grad_weight in input order, then
# AccumulateGrad (torch/csrc/autograd/functions/accumulate_grad.h) adds that into .grad, which
# holds the initial gradient. Every leaf passes at most n-1 roundings: recursive.
def _embedding(fmt):
    @accucheck.backend(name=f"torch.embedding_backward_{fmt}", storage=fmt, bound=f"recursive({fmt})",
                       summary=f"F.embedding(rows_t, weight).backward(values_t) per step into weight.grad{DERIVED}")
    def run(table, step_offsets, rows, values):
        return backward_per_step(fmt, table, step_offsets, rows, values, F.embedding)


# F.embedding_bag(mode="sum") backward (EmbeddingBag.cpp, _embedding_bag_dense_backward_cpu_sum_mean):
# the indices sorted (std::sort, not stable), then one axpy per occurrence: a sequential sum in an
# order that depends on the input: recursive. (1.13 refused bf16 there; 2.15 takes it.)
def _embedding_bag(fmt):
    def one_bag_per_pair(index, weight):
        return F.embedding_bag(index, weight, torch.arange(len(index)), mode="sum")

    @accucheck.backend(name=f"torch.embedding_bag_backward_{fmt}", storage=fmt, bound=f"recursive({fmt})",
                       summary=f"F.embedding_bag(rows, weight, offsets, mode='sum'), one bag per pair, per step{DERIVED}")
    def run(table, step_offsets, rows, values):
        return backward_per_step(fmt, table, step_offsets, rows, values, one_bag_per_pair)


for fmt in ("f32", "f16", "bf16"):
    _index_add(fmt)
    _scatter_add(fmt)
    _index_put(fmt)
    _embedding(fmt)
    _embedding_bag(fmt)  # bf16 too: 1.13 refused it


# torch.addmm(C, A, B, beta=1) with A = ones(1, T) and B the addends: C_j + sum_k B_kj as a GEMM
# with beta = 1 (products by 1 are exact, so an FMA is an addition). f32 calls MKL's sgemm (closed:
# measured only, sequential over K with C first for these shapes): recursive(f32). bf16
# (CPUBlas.cpp gemm): up to m*n*k = 4096 BlasKernel.cpp's dot of four interleaved f32 partial sums
# with C added last and one rounding to bf16; above, oneDNN (f32 accumulation, C last; its bf16
# kernels flush subnormal inputs for M > 1): ftz(widened(recursive(f32),bf16),bf16).
@accucheck.backend(name="torch.addmm_beta1_f32", storage="f32", bound="recursive(f32)",
                   summary=f"torch.addmm(C, ones(1, T), addends, beta=1){DERIVED}")
def addmm_f32(addends, buffer):
    c = to_torch(buffer)[None, :]
    return to_numpy(torch.addmm(c, torch.ones((1, addends.shape[0]), dtype=torch.float32), to_torch(addends), beta=1)[0])


@accucheck.backend(name="torch.addmm_beta1_bf16", storage="bf16", bound="ftz(widened(recursive(f32),bf16),bf16)",
                   summary=f"torch.addmm(C, ones(1, T), addends, beta=1) in bf16{DERIVED}")
def addmm_bf16(addends, buffer):
    c = to_torch(buffer)[None, :]
    ones = torch.ones((1, addends.shape[0]), dtype=torch.bfloat16)
    return to_numpy(torch.addmm(c, ones, to_torch(addends), beta=1)[0])


# torch.addmm with real operands, on product workloads (GEMM with beta = 1): for each micro-batch
# t, C = addmm(C, A_t, B_t, beta=1), as a dense layer's weight gradient accumulates. f32: sgemm's
# kernels keep each product's FMA unrounded and sum in blocks: products(f32), the any-order bound
# of rounded products (N = 1 + T*K terms, docs/bounds.md) that an FMA chain meets too. bf16: C
# rounded to bf16 after every micro-batch's product sum (f32 accumulation inside; oneDNN's bf16
# dot instructions flush subnormals): roundings no coarser than bf16's: ftz(products(bf16),bf16).
def _addmm_gemm(fmt, bound):
    @accucheck.backend(name=f"torch.addmm_gemm_{fmt}", storage=fmt, bound=bound,
                       summary=f"C = torch.addmm(C, A_t, B_t, beta=1) per micro-batch (real A and B){DERIVED}")
    def run(a, b, c):
        out = to_torch(c)
        for t in range(a.shape[0]):
            out = torch.addmm(out, to_torch(a[t]), to_torch(b[t]), beta=1)
        return to_numpy(out)


_addmm_gemm("f32", "products(f32)")
_addmm_gemm("bf16", "ftz(products(bf16),bf16)")


# The seed's question in PyTorch terms: T micro-batches of loss.backward() accumulating into
# .grad (AccumulateGrad: variable_grad += new_grad in place, recursive in the parameter's dtype)
# versus summing the per-micro-batch gradients by hand (torch.stack(...).sum(0): torch.sum's
# cascade in f32, one rounding).
def _grad_accumulation(fmt):
    @accucheck.backend(name=f"torch.grad_accumulation_{fmt}", storage=fmt, bound=f"recursive({fmt})",
                       summary=f"p.grad = g0, then T x (p * g_t).sum().backward(){DERIVED}")
    def run(addends, buffer):
        p = torch.zeros(buffer.shape, dtype=TORCH_DTYPE[fmt], requires_grad=True)
        p.grad = to_torch(buffer).clone()
        grads = to_torch(addends)
        for t in range(grads.shape[0]):
            (p * grads[t]).sum().backward()  # d/dp = grads[t] * 1, exact
        return to_numpy(p.grad)

    @accucheck.backend(name=f"torch.grad_stack_sum_{fmt}", storage=fmt, accumulation="f32",
                       bound=in_f32(fmt, "tree(torch_sum,f32)"),
                       summary=f"torch.stack([g0, g_1..g_T]).sum(0): the micro-batch gradients summed by hand{DERIVED}")
    def by_hand(addends, buffer):
        torch.set_num_threads(1)
        return to_numpy(torch.stack([to_torch(buffer), *to_torch(addends)]).sum(dim=0))


for fmt in ("f32", "f16", "bf16"):
    _grad_accumulation(fmt)
