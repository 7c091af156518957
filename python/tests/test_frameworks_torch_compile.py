"""PyTorch 2.15's accumulators under torch.compile (python/frameworks/torch_compile_backends.py) in a
campaign, in the torch environment. docs/frameworks.md, "torch.compile"."""
from frameworks_cli import assert_all_ran_within_bounds, campaign


def test_torch_compile_ops_hold_their_bounds(tmp_path):
    results, r = campaign(tmp_path, "torch", "torch_compile_backends.py", ["torch.compile_*"], cases=40)
    assert len(assert_all_ran_within_bounds(results, "torch.compile_", 40, r.stdout)) == 15
