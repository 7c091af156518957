"""NumPy 2.5's accumulators and math.fsum (python/frameworks/numpy_backends.py) in a campaign, in the
py313 environment; the version warning in another NumPy; the file in process; math.fsum's
documented departures (ledger/README.md, 5) replayed."""
import sys

import pytest

import accucheck
from frameworks_cli import FRAMEWORKS, assert_all_ran_within_bounds, campaign, replay


def test_numpy_ops_hold_their_bounds(tmp_path):
    results, r = campaign(tmp_path, "numpy", "numpy_backends.py", ["numpy.*"], cases=150)
    assert len(assert_all_ran_within_bounds(results, "numpy.", 150, r.stdout)) == 11


def test_a_backend_file_warns_on_another_version_than_its_bounds_were_derived_for(tmp_path):
    # numpy_backends.py's bounds are NumPy 2.5.5's; the 3.11 environment has numpy 1.23.5
    results, r = campaign(tmp_path, "py311-numpy1", "numpy_backends.py", ["numpy.add_reduce_axis0_f64"], cases=5)
    assert "derived for numpy 2.5.5" in r.stderr and "this is numpy 1.23.5" in r.stderr, r.stderr


def test_frameworks_run_in_process_too(tmp_path):
    sys.path.insert(0, str(FRAMEWORKS))
    try:
        import numpy_backends  # noqa: F401  (registers its backends)
    finally:
        sys.path.pop(0)
    result = accucheck.check(["numpy.add_reduce_rows_*"], cases=100, seed=3, findings=str(tmp_path / "f"))
    assert result.ok, result.table
    assert {b.name for b in result.backends} == {"numpy.add_reduce_rows_f64", "numpy.add_reduce_rows_f32",
                                                 "numpy.add_reduce_rows_f16"}


@pytest.mark.parametrize("case,text", [
    ("fsum_negative_zero.json", "not-correctly-rounded"),
    ("fsum_intermediate_overflow.json", "raised OverflowError: intermediate overflow in fsum"),
    ("fsum_infinities.json", "raised ValueError: -inf + inf in fsum"),
])
def test_math_fsum_is_not_ieee_correctly_rounded(case, text):
    r = replay("numpy", case, "numpy_backends.py")
    assert r.returncode == 1 and text in r.stdout + r.stderr, r.stdout + r.stderr
