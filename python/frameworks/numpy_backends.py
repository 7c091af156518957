"""NumPy's own accumulators as accucheck backends (NumPy 2.5.5 from PyPI, Python 3.13's math.fsum).

Each backend sums the initial gradient and the T addends of an element with one NumPy call:
the buffer is row 0 of the reduced array (n = T+1 values), so the reduction's own order covers
every leaf. Bounds and the source lines they rest on: docs/frameworks.md.

    ACCUCHECK_PYTHON=.envs/py313/bin/python accucheck check --python python/frameworks/numpy_backends.py --minutes 0.5
"""
import math

import numpy as np

import accucheck
from derivation import derived_for

DERIVED = derived_for("numpy", "2.5.5", np.__version__)


def stacked(addends, buffer):
    """(n, D): the initial gradient, then the addends."""
    return np.concatenate([buffer[None, :], addends], axis=0)


def column_major(x):
    """The same (n, D) values stored column by column (each element's n values contiguous)."""
    return np.ascontiguousarray(x.T)


# np.add.reduce over axis 0 of a C-contiguous (n, D): the iterator puts the contiguous D axis
# innermost, so each output is a left-to-right sum down its column (umath/reduction.c; the add
# loop's elementwise branch). D = 1 coalesces to the row path below, whose tree is within the
# same bound. f16 adds in f32 and rounds each step to f16 (loops.c.src HALF_add): one correct
# rounding per step, since 24 >= 2*11 + 2 makes the double rounding innocuous.
def _axis0(fmt):
    @accucheck.backend(name=f"numpy.add_reduce_axis0_{fmt}", storage=fmt, bound=f"recursive({fmt})",
                       summary=f"np.add.reduce(x, axis=0) of a C-contiguous (n, D){DERIVED}")
    def run(addends, buffer):
        return np.add.reduce(stacked(addends, buffer), axis=0)


# The same numbers as the transpose view x.T (F-contiguous) reduced over axis 1: the iterator
# still walks the contiguous axis innermost, i.e. sequentially over each output's values.
def _transposed(fmt):
    @accucheck.backend(name=f"numpy.add_reduce_transposed_{fmt}", storage=fmt, bound=f"recursive({fmt})",
                       summary=f"np.add.reduce(x.T, axis=1): the transposed view{DERIVED}")
    def run(addends, buffer):
        return np.add.reduce(stacked(addends, buffer).T, axis=1)


# Each output's n values contiguous (np.ascontiguousarray(x.T), axis 1): the add loop's reduce
# branch, pairwise_sum (loops_utils.h.src) over the whole row: since NumPy 2.3 (gh-27883,
# nditer_constr.c npyiter_find_buffering_setup) a reduction that needs no cast is no longer cut
# into buffers of 8192 (1.24's tree(numpy_buffered:8192)): tree(numpy). f16: pairwise_sum in f32
# over the row, rounded to f16 once (HALF_add's reduce branch): widened(tree(numpy,f32),f16).
def _rows(fmt):
    bound = "widened(tree(numpy,f32),f16)" if fmt == "f16" else f"tree(numpy,{fmt})"

    @accucheck.backend(name=f"numpy.add_reduce_rows_{fmt}", storage=fmt, bound=bound,
                       summary=f"np.add.reduce(ascontiguousarray(x.T), axis=1): contiguous rows, pairwise{DERIVED}")
    def run(addends, buffer):
        return np.add.reduce(column_major(stacked(addends, buffer)), axis=1)


for fmt in ("f64", "f32", "f16"):
    _axis0(fmt)
    _transposed(fmt)
    _rows(fmt)


@accucheck.backend(name="numpy.sum_f16_dtype_f32_axis0", storage="f16", accumulation="f32",
                   bound="widened(recursive(f32),f16)",
                   summary=f"np.sum(x16, axis=0, dtype=np.float32), rounded to f16 once{DERIVED}")
def sum_f16_in_f32(addends, buffer):
    return np.sum(stacked(addends, buffer), axis=0, dtype=np.float32).astype(np.float16)


# With a cast the input is buffered, and a buffer still holds at most 8192 values: blocked pairwise.
@accucheck.backend(name="numpy.sum_f16_dtype_f32_rows", storage="f16", accumulation="f32",
                   bound="widened(tree(numpy_buffered:8192,f32),f16)",
                   summary=f"np.sum of contiguous f16 rows with dtype=np.float32, rounded to f16 once{DERIVED}")
def sum_f16_rows_in_f32(addends, buffer):
    return np.sum(column_major(stacked(addends, buffer)), axis=1, dtype=np.float32).astype(np.float16)


# math.fsum (CPython Modules/mathmodule.c: Shewchuk's non-overlapping partials, then a half-even
# correction): stated correctly rounded. What it does instead is in docs/frameworks.md.
@accucheck.backend(name="python.math_fsum_f64", storage="f64", bound="correctly_rounded", determinism="order_independent",
                   summary=f"math.fsum of each element's values{DERIVED}")
def fsum(addends, buffer):
    x = stacked(addends, buffer)
    return np.array([math.fsum(x[:, j]) for j in range(x.shape[1])], dtype=np.float64)
