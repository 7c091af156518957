"""JAX's own CPU accumulation as accucheck backends (jax and jaxlib 0.12.1, optax 0.2.8, from PyPI).

jnp.sum over axis 0 of the (n, D) stack of the initial gradient and the T addends, with and
without jax.jit; a loop of adds, eager and as a jitted lax.scan; and optax.MultiSteps, the
micro-batch accumulator JAX users train with. The bounds rest on jax/_src/numpy/reductions.py, XLA's CPU pipeline and optax/transforms/_accumulation.py
(docs/frameworks.md).

    ACCUCHECK_PYTHON=.envs/jax/bin/python accucheck check --python python/frameworks/jax_backends.py --minutes 0.5
"""
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # no accelerator probing (and no warning about it)

import jax
import jax.numpy as jnp
import numpy as np
import optax

import accucheck
from derivation import derived_for

DERIVED = derived_for("jax", "0.12.1", jax.__version__)
DERIVED_OPTAX = derived_for("optax", "0.2.8", optax.__version__)

jax.config.update("jax_enable_x64", False)


def stacked(addends, buffer):
    return np.concatenate([buffer[None, :], addends], axis=0)


def _sum_axis0(x):
    return jnp.sum(x, axis=0)


_jitted = jax.jit(_sum_axis0)

# jnp.sum (reductions.py, _reduce_sum: upcast_f16_for_computation) converts f16 and bf16 to f32,
# reduces in f32 and converts back once. XLA CPU (jaxlib 0.12) has two paths: a reduce whose input
# and output both have fewer than 4096 elements goes through tree_reduction_rewriter (windows of
# 32, each a sequential chain: tree(windows:32)); a larger one goes to YNNPACK (xla/backends/cpu/
# ynn_support.cc, kMinElements = 4096), whose kernel chains 4, 16 and 256 rows with a Kahan step
# on top and the scheduler's tiles above that: no tree of roundings the grammar names, within
# recursive(f32) (docs/frameworks.md). The path depends on n*D, which the backend does not choose:
# recursive(f32) covers both. Both paths flush subnormal inputs and results (ftz); f16 values
# and their sums (multiples of 2^-24) are normal f32 numbers.
BOUNDS = {
    "f32": "ftz(recursive(f32),f32)",
    "bf16": "ftz(widened(recursive(f32),bf16),bf16)",
    "f16": "widened(recursive(f32),f16)",
}


def _jax_sum(fmt, jit):
    reduce = _jitted if jit else _sum_axis0

    @accucheck.backend(name=f"jax.sum_{'jit' if jit else 'eager'}_{fmt}", storage=fmt, accumulation="f32",
                       bound=BOUNDS[fmt], summary=f"jnp.sum(x, axis=0){' under jax.jit' if jit else ''}{DERIVED}")
    def run(addends, buffer):
        x = jnp.asarray(stacked(addends, buffer))
        return np.asarray(reduce(x))


for fmt in ("f32", "bf16", "f16"):
    for jit in (False, True):
        _jax_sum(fmt, jit)


# Micro-batch accumulation as a loop of adds, as a JAX training loop without optax keeps its
# gradient: acc = acc + g per micro-batch in the gradient's dtype, eagerly (one XLA add per step)
# and as jax.lax.scan under jit (one compiled loop; XLA does not reassociate across iterations).
# XLA CPU adds f16 and bf16 in f32 and rounds back every step (one correct rounding: 24 >= 2p + 2),
# so every step rounds to the storage format: recursive(F). f32 and bf16 subnormals flush, f16's
# do not (they are normal f32 numbers). Probes: 256 + 300 bf16 ones give 256 both ways; the
# smallest bf16 or f32 subnormal doubled gives 0, f16's gives 2^-23.
LOOP_BOUNDS = {"f32": "ftz(recursive(f32),f32)", "bf16": "ftz(recursive(bf16),bf16)", "f16": "recursive(f16)"}


def _add_loop(x):
    acc = x[0]
    for g in x[1:]:
        acc = acc + g
    return acc


@jax.jit
def _add_scan(x):
    total, _ = jax.lax.scan(lambda acc, g: (acc + g, None), x[0], x[1:])
    return total


def _jax_add_loop(fmt, scan):
    @accucheck.backend(name=f"jax.add_{'scan_jit' if scan else 'loop_eager'}_{fmt}", storage=fmt, bound=LOOP_BOUNDS[fmt],
                       summary=f"acc = acc + g per micro-batch, {'jax.lax.scan under jax.jit' if scan else 'eager'}{DERIVED}")
    def run(addends, buffer):
        x = jnp.asarray(stacked(addends, buffer))
        return np.asarray(_add_scan(x) if scan else _add_loop(x))


for fmt in ("f32", "bf16", "f16"):
    for scan in (False, True):
        _jax_add_loop(fmt, scan)


# optax.MultiSteps(..., use_grad_mean=False): each micro-batch's gradient added to acc_grads
# (optax/transforms/_accumulation.py, MultiSteps.update: grad + acc), which it keeps in float32 whatever the parameters'
# dtype (bf16 and f16 gradients are converted exactly): a sequential f32 chain from zeros, rounded
# to the storage format here, once. Its add runs in XLA's CPU kernels, which flush subnormals as
# jnp.sum's do (a subnormal f32 or bf16 gradient adds 0): ftz. The default, use_grad_mean=True, keeps a running mean
# acc + (g - acc) / (k + 1) instead: not a sum, and not checked here (docs/frameworks.md). No
# cycle ends (every_k_schedule = 2^30): the reset after one turns an inf into NaN (ledger/README.md, 6).
def _multisteps_sum(fmt):
    opt = optax.MultiSteps(optax.sgd(1.0), every_k_schedule=2**30, use_grad_mean=False)
    update = jax.jit(opt.update)
    @accucheck.backend(name=f"optax.multisteps_sum_{fmt}", storage=fmt, accumulation="f32", bound=BOUNDS[fmt],
                       summary=f"optax.MultiSteps(use_grad_mean=False): acc_grads over the micro-batches{DERIVED_OPTAX}")
    def run(addends, buffer):
        params = jnp.zeros(buffer.shape, dtype=buffer.dtype)
        state = opt.init(params)
        for g in stacked(addends, buffer):
            _, state = update(jnp.asarray(g), state, params)
        return np.asarray(state.acc_grads).astype(buffer.dtype)


for fmt in ("f32", "bf16", "f16"):
    _multisteps_sum(fmt)
