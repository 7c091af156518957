"""JAX 0.12's jnp.sum and optax 0.2.8's MultiSteps (python/frameworks/jax_backends.py) in a campaign,
in the jax environment. docs/frameworks.md."""
from frameworks_cli import assert_all_ran_within_bounds, campaign


def test_jax_ops_hold_their_bounds(tmp_path):
    results, r = campaign(tmp_path, "jax", "jax_backends.py", ["jax.*", "optax.*"], cases=40)
    assert len(assert_all_ran_within_bounds(results, "jax.", 40, r.stdout)) == 12
    assert len(assert_all_ran_within_bounds(results, "optax.", 40, r.stdout)) == 3
