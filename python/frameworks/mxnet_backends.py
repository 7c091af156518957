"""MXNet 1.9.1's own CPU accumulators as accucheck backends: the seed's framework (mxnet-16686,
mxnet-17995, mxnet-17703), its last release, from PyPI (oneDNN on unless MXNET_MKLDNN_ENABLED=0).

Each backend accumulates through MXNet's autograd as a training loop does: the parameter's
gradient buffer holds the initial gradient, and grad_req='add' (or the manual path, acc += grad)
adds each micro-batch's gradient. The bounds rest on the source at tag 1.9.1 (docs/frameworks.md).

    ACCUCHECK_PYTHON=.envs/mxnet/bin/python accucheck check --python python/frameworks/mxnet_backends.py --minutes 1
"""
import mxnet as mx
import numpy as np
from mxnet import autograd, nd

import accucheck
from derivation import derived_for

DERIVED = derived_for("mxnet", "1.9.1", mx.__version__)
ONEDNN = mx.runtime.Features().is_enabled("MKLDNN") and mx.util.getenv("MXNET_MKLDNN_ENABLED") != "0"
PATH = " (oneDNN)" if ONEDNN else " (MXNET_MKLDNN_ENABLED=0)"


def parameter(initial, grad_req, stype=None):
    """A parameter whose gradient buffer holds `initial` (the running gradient before this window)."""
    w = nd.zeros(initial.shape, dtype=initial.dtype)
    # attach_grad with any stype, 'default' included, makes a float32 gradient whatever the dtype
    w.attach_grad(grad_req=grad_req, **({"stype": stype} if stype else {}))
    if grad_req == "add":
        w.grad[:] = nd.array(initial, dtype=initial.dtype)
    return w


# FullyConnected's weight gradient, the mxnet-16686 path, with real operands (a product workload,
# C += A_t B_t per micro-batch): data X_t = B_t (batch, in), head gradient dY_t = A_t^T (batch,
# units), so dW_t = dY_t^T X_t = A_t B_t. grad_req='add' hands FullyConnected's backward
# req = kAddTo; the manual path writes each step's gradient and adds it in f32 (acc += grad).
# Either way each output is a sum of 1 + T*K rounded or fused products in some order: products(f32).
def _fully_connected(path):
    @accucheck.backend(name=f"mxnet.fully_connected_{path}_f32", storage="f32", bound="products(f32)",
                       summary=f"nd.FullyConnected backward, weight gradient, grad_req='{'add' if path == 'add' else 'write'}'"
                               f"{' + acc += grad' if path == 'manual' else ''} per micro-batch{PATH}{DERIVED}")
    def run(a, b, c):
        w = parameter(c, "add" if path == "add" else "write")
        acc = nd.array(c)
        for t in range(a.shape[0]):
            x = nd.array(b[t])
            with autograd.record():
                y = nd.FullyConnected(data=x, weight=w, no_bias=True, num_hidden=c.shape[0])
            y.backward(nd.array(np.ascontiguousarray(a[t].T)))
            if path == "manual":
                acc += w.grad
        return (w.grad if path == "add" else acc).asnumpy()


for path in ("add", "manual"):
    _fully_connected(path)


# A parameter used T times in one graph (out = sum_t w * g_t, head gradient 1, so each use's
# gradient is exactly g_t): autograd sums the T gradients with ElemwiseSum and adds the result to
# the running gradient under kAddTo: the mxnet-17995 kernel (more than 4 inputs double-counted
# before 1.7). Any order of the T + 1 terms with one rounding per addition: recursive(F).
def _shared_parameter(fmt, dtype):
    @accucheck.backend(name=f"mxnet.shared_parameter_add_{fmt}", storage=fmt, bound=f"recursive({fmt})",
                       summary=f"a parameter used T times in one graph, grad_req='add' (ElemwiseSum, kAddTo){PATH}{DERIVED}")
    def run(addends, buffer):
        w = parameter(buffer, "add")
        grads = [nd.array(g, dtype=dtype) for g in addends]
        with autograd.record():
            out = w * grads[0]
            for g in grads[1:]:
                out = out + w * g
        out.backward(nd.ones(buffer.shape, dtype=dtype))
        return w.grad.asnumpy()


# Embedding backward, one backward per micro-batch into the weight's gradient holding the initial
# table: dense (grad_req='add', kAddTo into the table) and sparse_grad=True (row_sparse gradients;
# MXNet refuses req != kWriteTo there, indexing_op.cc, so the manual path: acc += grad per step).
def _embedding(fmt, dtype, sparse):
    kind = "sparse_grad_manual" if sparse else "add"
    how = "sparse_grad=True, acc += grad" if sparse else "grad_req='add'"

    @accucheck.backend(name=f"mxnet.embedding_{kind}_{fmt}", storage=fmt, bound=f"recursive({fmt})",
                       summary=f"nd.Embedding backward per micro-batch, {how}{PATH}{DERIVED}")
    def run(table, step_offsets, rows, values):
        w = parameter(table, "write" if sparse else "add", "row_sparse" if sparse else None)
        acc = nd.array(table, dtype=dtype)
        index = nd.array(rows, dtype=np.float32)  # Embedding takes indices as floats (exact below 2^24)
        grads = nd.array(values, dtype=dtype)
        for t in range(len(step_offsets) - 1):
            lo, hi = int(step_offsets[t]), int(step_offsets[t + 1])
            if hi == lo:
                continue
            with autograd.record():
                out = nd.Embedding(data=index[lo:hi], weight=w, input_dim=table.shape[0], output_dim=table.shape[1],
                                   dtype=dtype, sparse_grad=sparse)
            out.backward(grads[lo:hi])
            if sparse:
                acc = acc + w.grad.tostype("default")
        return (acc if sparse else w.grad).asnumpy()


for fmt, dtype in (("f32", np.float32), ("f16", np.float16)):
    _shared_parameter(fmt, dtype)
    _embedding(fmt, dtype, False)
# Not f16: NDArray.attach_grad with a stype makes a float32 gradient whatever the weight's dtype,
# and the f16 backward then fails its shape/type check (no accumulation to judge).
_embedding("f32", np.float32, True)
