"""PyTorch's CUDA accumulators as accucheck backends (issue 47; docs/frameworks.md, "On the GPU").

For the GPU machine's own interpreter: every backend takes torch tensors (arrays="torch": no numpy
needed), moves them to the device, runs one torch op per micro-batch or per sum, and hands the
result back. The bounds and determinism classes are those PyTorch 2.11.0's CUDA source supports
(the GPU machine's torch; read in the 2.11.0 wheel's headers and Python files, and for the .cu
files in copies matched to 2.11 by the kernel names in its libtorch_cuda.so: the kernels are
cited beside each backend, docs/frameworks.md has the table); cuBLAS is closed, so its backends
state what cuBLAS documents, and the FP8 ones a model under test, which a GPU run confirms or not.

    ACCUCHECK_PYTHON=python3 accucheck check --python python/frameworks/torch_cuda_backends.py --minutes 1

ACCUCHECK_TORCH_DEVICE=cpu runs the same ops on the CPU: that checks this file's plumbing (CI does,
in python/tests/test_frameworks_torch_cuda.py), not the CUDA kernels the bounds were derived for.
"""
import contextlib
import os

import torch
import torch.nn.functional as F

import accucheck
from derivation import derived_for, in_f32

DEVICE = os.environ.get("ACCUCHECK_TORCH_DEVICE", "cuda")
if DEVICE == "cuda" and not torch.cuda.is_available():
    raise SystemExit(f"torch_cuda_backends.py: torch {torch.__version__} sees no CUDA device "
                     "(ACCUCHECK_TORCH_DEVICE=cpu runs these ops on the CPU)")
DERIVED = derived_for("torch", "2.11.0", torch.__version__)
WHERE = f" on {torch.cuda.get_device_name() if DEVICE == 'cuda' else 'the CPU (ACCUCHECK_TORCH_DEVICE=cpu)'}"
DTYPE = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
FORMATS = ("f32", "f16", "bf16")


def device(t):
    return t.to(DEVICE)


def backend(name, **settings):
    """@accucheck.backend with torch arrays, the summary naming the device and the version."""
    settings["summary"] = settings["summary"] + WHERE + DERIVED
    return accucheck.backend(name=name, arrays="torch", **settings)


@contextlib.contextmanager
def deterministic_algorithms(on):
    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(on)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before)


def stacked(addends, buffer):
    """(n, D) on the device: the initial gradient, then the addends."""
    return device(torch.cat([buffer[None, :], addends], dim=0))


# ---- torch.sum over a dim -----------------------------------------------------------------------
# Reduce.cuh: one fixed reduction tree per shape (vectorized loads, warp shuffles, and across
# blocks a staging buffer that the last block sums in a fixed order; no atomics), in acc_type =
# float for half and bfloat16, rounded once into the output: in_f32(fmt). The order depends on
# the layout: dim 0 of a row-major (n, D) is the "outer" reduction (each thread walks a column),
# of a column-major one the "inner", vectorized one.
SUM_LAYOUTS = {"contiguous": lambda x: x.sum(dim=0), "column_major": lambda x: x.t().contiguous().t().sum(dim=0)}


def _sum(fmt, layout):
    @backend(f"torch.cuda.sum_{layout}_{fmt}", storage=fmt, accumulation="f32", bound=in_f32(fmt),
             determinism="bitwise-deterministic", summary=f"torch.sum(x, dim=0), x ({layout}) = [initial; addends]")
    def run(addends, buffer):
        return SUM_LAYOUTS[layout](stacked(addends, buffer))


# The same sum through torch.compile: Inductor generates a Triton reduction that loads 16-bit
# inputs into float32 (its reductions upcast) and stores one rounding; split reductions run in
# two kernels, not atomics: in_f32(fmt), deterministic.
_compiled_sum = None


def _compiled(fmt):
    @backend(f"torch.cuda.compiled_sum_{fmt}", storage=fmt, accumulation="f32", bound=in_f32(fmt),
             determinism="bitwise-deterministic", summary="torch.compile(lambda x: x.sum(dim=0)) (a Triton reduction)")
    def run(addends, buffer):
        global _compiled_sum
        if _compiled_sum is None:
            _compiled_sum = torch.compile(lambda x: x.sum(dim=0), dynamic=True)
        return _compiled_sum(stacked(addends, buffer))


# ---- sparse: (row, vector) pairs added into a table ---------------------------------------------
# Indexing.cu index_add_cuda_impl -> indexFunc{Small,Large}Index -> fastAtomicAdd
# (KernelUtils.cuh): one atomic add per (pair, column) into the table, in the table's dtype
# (16-bit: packed __half2 / __nv_bfloat162 atomics or a CAS loop, every addition rounded to
# fmt): recursive(fmt) in any order, run-to-run nondeterministic. f32's atomicAdd flushes
# subnormals (measured on an H100: docs/gpu-results.md, as cuda_atomic_f32 states):
# ftz(recursive(f32),f32). With use_deterministic_algorithms(True) index_add_ is
# index_put_(..., accumulate=True) (below).
# ScatterGatherKernel.cu scatter_add_cuda_kernel: the same atomics; deterministic mode:
# TensorAdvancedIndexing.cpp's _scatter_via_index_put, sorted, a fixed order.
# Indexing.cu index_put_ with accumulate=True: always sorted (cub radix sort, stable), always
# deterministic; duplicates summed in float and rounded once per row (rows of at most 32
# values) or rounded to fmt after every duplicate (wider rows): recursive(fmt) covers both.
def _atomic_bound(fmt):
    return "ftz(recursive(f32),f32)" if fmt == "f32" else f"recursive({fmt})"


def _sparse(fmt, op, deterministic):
    mode = "_deterministic" if deterministic else ""
    atomics = not deterministic and op != "index_put"
    klass = "run-to-run-nondeterministic" if atomics else "bitwise-deterministic"

    def apply(table, rows, values):
        if op == "index_add":
            return table.index_add_(0, rows, values)
        if op == "scatter_add":
            return table.scatter_add_(0, rows[:, None].expand(-1, table.shape[1]).contiguous(), values)
        return table.index_put_((rows,), values, accumulate=True)

    @backend(f"torch.cuda.{op}{mode}_{fmt}", storage=fmt, bound=_atomic_bound(fmt) if atomics else f"recursive({fmt})",
             determinism=klass,
             summary=f"table.{op}_ of every (row, vector) pair{' under use_deterministic_algorithms(True)' if deterministic else ''}")
    def run(table, step_offsets, rows, values):
        with deterministic_algorithms(deterministic):
            return apply(device(table), device(rows), device(values))


def backward_per_step(fmt, table, step_offsets, rows, values, forward):
    """weight.grad = the initial table, then per step (micro-batch) t: forward(rows_t, weight).backward(values_t)."""
    weight = torch.zeros(table.shape, dtype=DTYPE[fmt], device=DEVICE, requires_grad=True)
    weight.grad = device(table).clone()
    grads, index = device(values), device(rows)
    for t in range(len(step_offsets) - 1):
        lo, hi = int(step_offsets[t]), int(step_offsets[t + 1])
        if hi > lo:
            forward(index[lo:hi], weight).backward(grads[lo:hi])
    return weight.grad


# Embedding.cu embedding_dense_backward_cuda, three paths: up to 3072 indices,
# embedding_backward_feature_kernel (each 32-index chunk's duplicates summed in float, rounded to
# fmt and added into grad_weight, rounded again); above, the indices sorted and
# EmbeddingBackwardKernel.cu's partial segments summed in float in a fixed order (deterministic
# mode) or, when its heuristic picks it and determinism is not asked for,
# compute_grad_weight_atomic_accumulate: float atomics (nondeterministic; f32 atomics flush
# subnormals, and bf16's subnormals are f32's). AccumulateGrad then adds each step's gradient
# into .grad, rounded to fmt. Every term passes at most n-1 roundings no coarser than fmt's:
# recursive(fmt), with ftz for the float atomics' flushing. embedding_bag mode='sum'
# (EmbeddingBag.cu) always takes the sorted path: deterministic.
def _embedding(fmt, bag, deterministic=False):
    def one_bag_per_pair(index, weight):
        return F.embedding_bag(index, weight, torch.arange(len(index), device=DEVICE), mode="sum")

    forward = one_bag_per_pair if bag else F.embedding
    what = "F.embedding_bag(rows_t, weight, one bag per pair, mode='sum')" if bag else "F.embedding(rows_t, weight)"
    atomics = not bag and not deterministic
    bound = f"recursive({fmt})" if not atomics or fmt == "f16" else f"ftz(recursive({fmt}),{fmt})"

    @backend(f"torch.cuda.embedding{'_bag' if bag else ''}_backward{'_deterministic' if deterministic else ''}_{fmt}",
             storage=fmt, bound=bound,
             determinism="run-to-run-nondeterministic" if atomics else "bitwise-deterministic",
             summary=f"{what}.backward(values_t) per step into weight.grad"
                     f"{' under use_deterministic_algorithms(True)' if deterministic else ''}")
    def run(table, step_offsets, rows, values):
        with deterministic_algorithms(deterministic):
            return backward_per_step(fmt, table, step_offsets, rows, values, forward)


# ---- gradient accumulation into .grad ----------------------------------------------------------
# accumulate_grad.h accumulateGrad: a dense gradient on the same device, `variable_grad +=
# new_grad` in place: one addition per micro-batch, computed in opmath (float) and rounded to
# the parameter's dtype: recursive(fmt), deterministic. By hand, torch.stack(...).sum(0):
# Reduce.cuh's tree in float, one rounding: in_f32(fmt).
def _grad_accumulation(fmt):
    @backend(f"torch.cuda.grad_accumulation_{fmt}", storage=fmt, bound=f"recursive({fmt})",
             determinism="bitwise-deterministic", summary="p.grad = g0, then T x (p * g_t).sum().backward()")
    def run(addends, buffer):
        p = torch.zeros(buffer.shape, dtype=DTYPE[fmt], device=DEVICE, requires_grad=True)
        p.grad = device(buffer).clone()
        grads = device(addends)
        for t in range(grads.shape[0]):
            (p * grads[t]).sum().backward()  # d/dp = grads[t] * 1, exact
        return p.grad

    @backend(f"torch.cuda.grad_stack_sum_{fmt}", storage=fmt, accumulation="f32", bound=in_f32(fmt),
             determinism="bitwise-deterministic", summary="torch.stack([g0, g_1..g_T]).sum(0): summed by hand")
    def by_hand(addends, buffer):
        return stacked(addends, buffer).sum(dim=0)


# ---- GEMM with beta = 1: C = addmm(C, A_t, B_t) per micro-batch (cuBLAS) -----------------------
# cuBLAS picks its kernels by shape (split-K, any order of the partial sums); its documentation
# promises FP32 accumulation for FP32 GEMM: products(f32), the any-order bound of rounded products
# (docs/bounds.md), as the cuda_cublas_sgemm_beta1_f32 backend states. TF32 (allow_tf32): operands
# cut to 10 fraction bits: ftz(products(bf16),f32), as cuda_cublas_sgemm_tf32_beta1_f32; a
# subnormal or a huge operand is outside any bound of the language (docs/gpu-results.md, "TF32"),
# so steps holding one run with TF32 off. 16-bit: each micro-batch's C rounded to fmt, and with
# allow_{bf16,fp16}_reduced_precision_reduction (True by default) split-K partial sums may be
# rounded to fmt too: roundings no coarser than fmt's: ftz(products(fmt),fmt).
F32_TINY = torch.finfo(torch.float32).tiny
TF32_HUGE = (2 - 2 ** -11) * 2.0 ** 127  # rounds up to infinity in TF32


def _tf32_safe(x):
    a = x.abs()
    return not bool((((a > 0) & (a < F32_TINY)) | (a >= TF32_HUGE)).any())


def _addmm(fmt, tf32=False):
    name = "tf32_f32" if tf32 else fmt
    bound = {"f32": "ftz(products(bf16),f32)" if tf32 else "products(f32)"}.get(fmt, f"ftz(products({fmt}),{fmt})")

    @backend(f"torch.cuda.addmm_gemm_{name}", storage=fmt, bound=bound, determinism="bitwise-deterministic",
             summary=f"C = torch.addmm(C, A_t, B_t, beta=1) per micro-batch{' with allow_tf32' if tf32 else ''}")
    def run(a, b, c):
        a, b, out = device(a), device(b), device(c)
        before = torch.backends.cuda.matmul.allow_tf32
        try:
            for t in range(a.shape[0]):
                torch.backends.cuda.matmul.allow_tf32 = tf32 and _tf32_safe(a[t]) and _tf32_safe(b[t])
                out = torch.addmm(out, a[t], b[t], beta=1)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = before
        return out


# ---- FP8: torch._scaled_mm (cuBLASLt) ---------------------------------------------------------
# Blas.cpp sets CUBLASLT_MATMUL_DESC_FAST_ACCUM from use_fast_accum. Hopper's FP8 tensor cores
# keep about 14 bits in their accumulator (docs/bounds.md: the tc_h100 FP8 models); with
# use_fast_accum=False cuBLASLt promotes partial sums to FP32 at an interval it does not
# document (CUTLASS's default: every 4 MMAs of k = 32). So no bound can be derived: these two
# state the models under test (does the chain keep 14 bits, is it promoted?), fast as
# fused_truncated(32,14,14,f32), promoted as fused_promoted(32,14,128,14,f32), and a violation
# says the model does not describe cuBLASLt, not that PyTorch is wrong. Every micro-batch's
# products go into one _scaled_mm (A_1..A_T side by side, K padded with exact zeros to a
# multiple of 16), its f32 result added to C: the chain the models describe.
def _scaled_mm(fast_accum):
    model = "fused_truncated(32,14,14,f32)" if fast_accum else "fused_promoted(32,14,128,14,f32)"

    @backend(f"torch.cuda.scaled_mm_{'fast' if fast_accum else 'promoted'}_f32", storage="f32", fp8_inputs=True,
             bound=model, determinism="bitwise-deterministic", kind="product",
             summary=f"C + torch._scaled_mm(A, B, scales 1, out_dtype=float32, use_fast_accum={fast_accum}) "
                     f"(the model under test: {model})")
    def run(a, b, c):
        steps, rows, batch = a.shape
        wide_a = device(a).float().permute(1, 0, 2).reshape(rows, steps * batch)  # [A_1 | ... | A_T]
        tall_b = device(b).float().reshape(steps * batch, -1)                    # [B_1; ...; B_T]
        if a.dtype == torch.float32:  # FP32 inputs (not an FP8 workload): cuBLAS's FP32 GEMM
            return torch.addmm(device(c), wide_a, tall_b, beta=1)
        pad = (-(steps * batch)) % 16
        wide_a = F.pad(wide_a, (0, pad)).to(a.dtype)                  # row-major, FP8 values exact
        tall_b = F.pad(tall_b, (0, 0, 0, pad)).to(b.dtype).t().contiguous().t()  # column-major
        one = torch.ones((), dtype=torch.float32, device=DEVICE)
        return device(c) + torch._scaled_mm(wide_a, tall_b, scale_a=one, scale_b=one, out_dtype=torch.float32,
                                            use_fast_accum=fast_accum)


for fmt in FORMATS:
    for layout in SUM_LAYOUTS:
        _sum(fmt, layout)
    _compiled(fmt)
    for op in ("index_add", "scatter_add", "index_put"):
        for deterministic in ((False,) if op == "index_put" else (False, True)):
            _sparse(fmt, op, deterministic)
    _embedding(fmt, bag=False)
    _embedding(fmt, bag=False, deterministic=True)
    _embedding(fmt, bag=True)
    _grad_accumulation(fmt)
    _addmm(fmt)
_addmm("f32", tf32=True)
if DEVICE == "cuda" and torch.cuda.get_device_capability() >= (8, 9):  # FP8 tensor cores: Ada, Hopper and later
    _scaled_mm(fast_accum=True)
    _scaled_mm(fast_accum=False)
