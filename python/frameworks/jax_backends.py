"""JAX's own CPU accumulation as accucheck backends (jax and jaxlib 0.4.38 from PyPI).

jnp.sum over axis 0 of the (n, D) stack of the initial gradient and the T addends, with and
without jax.jit. The bounds rest on jax/_src/numpy/reductions.py and XLA's CPU pipeline
(docs/frameworks.md).

    accucheck check --python python/frameworks/jax_backends.py --minutes 0.5
"""
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # no accelerator probing (and no warning about it)

import jax
import jax.numpy as jnp
import numpy as np

import accucheck

jax.config.update("jax_enable_x64", False)


def stacked(addends, buffer):
    return np.concatenate([buffer[None, :], addends], axis=0)


def _sum_axis0(x):
    return jnp.sum(x, axis=0)


_jitted = jax.jit(_sum_axis0)

# jnp.sum (reductions.py, _reduce_sum: upcast_f16_for_computation) converts f16 and bf16 to f32,
# reduces in f32 and converts back once. XLA CPU's tree_reduction_rewriter turns a reduction
# longer than 32 into reduce-windows of 32, level by level, and the reducer is emitted with
# reassoc (vectorized into lanes): tree(windows:32). Its kernels run with denormals flushed
# (denormal-fp-math=preserve-sign): f32 and bf16 subnormal inputs and results become 0, hence
# ftz(...); f16 values are normal f32 numbers, and so are their sums (multiples of 2^-24).
BOUNDS = {
    "f32": "ftz(tree(windows:32,f32),f32)",
    "bf16": "ftz(widened(tree(windows:32,f32),bf16),bf16)",
    "f16": "widened(tree(windows:32,f32),f16)",
}


def _jax_sum(fmt, jit):
    reduce = _jitted if jit else _sum_axis0

    @accucheck.backend(name=f"jax.sum_{'jit' if jit else 'eager'}_{fmt}", storage=fmt, accumulation="f32",
                       bound=BOUNDS[fmt], summary=f"jnp.sum(x, axis=0){' under jax.jit' if jit else ''}")
    def run(addends, buffer):
        x = jnp.asarray(stacked(addends, buffer))
        return np.asarray(reduce(x))


for fmt in ("f32", "bf16", "f16"):
    for jit in (False, True):
        _jax_sum(fmt, jit)
