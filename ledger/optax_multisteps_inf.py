"""optax.MultiSteps: one non-finite gradient poisons every later accumulation cycle with NaN.

Standalone (jax, optax). MultiSteps accumulates k micro-batch gradients, then resets its
accumulator by multiplying it by (1 - emit) = 0: inf * 0 = NaN, so an inf gradient in one
cycle leaves NaN in acc_grads for all the cycles after it, whose gradients are finite.
Exit 1 if that happens, 0 if not."""
import sys

import jax
import jax.numpy as jnp
import optax

jax.config.update("jax_platforms", "cpu")
print(f"jax {jax.__version__}, optax {optax.__version__}")
for mean in (True, False):
    opt = optax.MultiSteps(optax.sgd(1.0), every_k_schedule=3, use_grad_mean=mean)
    params = jnp.zeros(2, jnp.float32)
    state = opt.init(params)
    cycles = [[[jnp.inf, 1.0], [1.0, 1.0], [1.0, 1.0]],   # cycle 1: an overflowed gradient in element 0
              [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]]       # cycle 2: finite gradients only
    for c, cycle in enumerate(cycles, 1):
        for g in cycle:
            update, state = opt.update(jnp.asarray(g, jnp.float32), state, params)
        print(f"use_grad_mean={mean}: cycle {c} update {update.tolist()}, acc_grads after it {state.acc_grads.tolist()}")
    expected = -2.0 if mean else -6.0
    poisoned = not bool(jnp.isfinite(update[0]))
    print(f"  cycle 2's update for element 0: {update[0].item()} (expected {expected}): "
          f"{'NaN from cycle 1 (reproduces)' if poisoned else 'finite (fixed)'}")
    if poisoned:
        status = 1
sys.exit(status if "status" in dir() else 0)
