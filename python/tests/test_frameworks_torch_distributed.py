"""torch.distributed.all_reduce with gloo (python/frameworks/torch_distributed_backends.py) in a
campaign, and the f16 cases PyTorch 1.13's gloo failed (ledger/README.md, 2) replayed, in the torch
environment."""
import pytest

from frameworks_cli import assert_all_ran_within_bounds, campaign, replay


def test_gloo_all_reduce_holds_its_bounds(tmp_path):
    # torch.distributed.all_reduce with gloo on 2, 4 and 8 processes, after each rank's own sum.
    results, r = campaign(tmp_path, "torch", "torch_distributed_backends.py", ["torch.gloo_*"], cases=30)
    assert len(assert_all_ran_within_bounds(results, "torch.gloo_", 30, r.stdout)) == 8


@pytest.mark.parametrize("case", ["gloo_f16_lost_addend.json", "gloo_f16_normal_values.json"])
def test_gloo_f16_all_reduce_keeps_the_addend_1_13_lost(case):
    # PyTorch 1.13's gloo::float16 skipped writing a sum equal to half(old bits as an integer)
    # (ledger/README.md); 2.15 sums Half as c10::Half: both cases within the bound.
    r = replay("torch", case, "torch_distributed_backends.py")
    assert r.returncode == 0 and "bound-exceeded" not in r.stdout, r.stdout + r.stderr
