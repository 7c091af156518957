"""The frameworks' own accumulators (python/frameworks/) in campaigns, through the CLI's --python
(the plugin worker) and the Python API (in-process), and the violations docs/frameworks.md
records, replayed from their case files."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import accucheck

CLI = os.environ["ACCUCHECK_CLI"]
ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ROOT / "python" / "frameworks"
CASES = FRAMEWORKS / "cases"


def campaign(tmp_path, file, globs, cases, seed=1, extra=()):
    out = tmp_path / "results.json"
    args = [CLI, "check", "--python", str(FRAMEWORKS / file), "--cases", str(cases), "--seed", str(seed),
            "--findings", str(tmp_path / "findings"), "--json", str(out), "--quiet", *extra]
    for g in globs:
        args += ["--backend", g]
    r = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return {b["name"]: b for b in json.load(open(out))["backends"]}, r


def assert_all_ran_within_bounds(results, prefix, cases, table):
    mine = {name: b for name, b in results.items() if name.startswith(prefix)}
    assert mine, table
    for name, b in mine.items():
        assert b["cases"] == cases, (name, b["cases"])
        assert not b["failures"], (name, b["failures"])
        assert not b["violations"], (name, b["violations"], table)
    return mine


def test_torch_ops_hold_their_bounds(tmp_path):
    results, r = campaign(tmp_path, "torch_backends.py", ["torch.*"], cases=60)
    mine = assert_all_ran_within_bounds(results, "torch.", 60, r.stdout)
    assert len(mine) == 44


def test_grad_accumulation_stagnates_where_the_hand_sum_does_not(tmp_path):
    # .grad accumulation in bf16 rounds every micro-batch; summing the micro-batch gradients by
    # hand (torch.stack(...).sum(0)) rounds once: on stagnation cases the first drifts by hundreds
    # of ulps from RNE(S), the second stays within one.
    sys.path.insert(0, str(FRAMEWORKS))
    try:
        import torch_backends  # noqa: F401  (registers its backends in this process)
    finally:
        sys.path.pop(0)
    worst = {"torch.grad_accumulation_bf16": 0, "torch.grad_stack_sum_bf16": 0}
    for i, w in enumerate(accucheck.workloads("stagnation", format="bf16", seed=1, count=6)):
        path = tmp_path / f"stagnation{i}.json"
        w.save(str(path))
        for r in accucheck.replay(str(path), backends=list(worst)):
            assert not r["violated"], r
            worst[r["backend"]] = max(worst[r["backend"]], max(abs(e["ulps"]) for e in r["elements"]))
    assert worst["torch.grad_accumulation_bf16"] > 100, worst
    assert worst["torch.grad_stack_sum_bf16"] <= 1, worst


def test_gloo_all_reduce_holds_its_bounds_in_f32_and_f64(tmp_path):
    # torch.distributed.all_reduce with gloo on 2, 4 and 8 processes, after each rank's own sum.
    results, r = campaign(tmp_path, "torch_distributed_backends.py", ["torch.gloo_*f32", "torch.gloo_*f64"], cases=40)
    assert len(assert_all_ran_within_bounds(results, "torch.gloo_", 40, r.stdout)) == 4


@pytest.mark.parametrize("case,computed", [("gloo_f16_lost_addend.json", "5.9604644775390625e-08"),
                                           ("gloo_f16_normal_values.json", " 1 ")])
def test_gloo_all_reduce_loses_an_f16_addend(case, computed):
    # PyTorch 1.13's gloo::float16 skips writing a sum equal to half(old bits as an integer):
    # 2^-24 + 1 stays 2^-24, 1 + 15360 stays 1 where the rank holding the first adds (docs/frameworks.md).
    r = replay(case, "torch_distributed_backends.py")
    assert r.returncode == 1 and "bound-exceeded" in r.stdout and computed in r.stdout, r.stdout + r.stderr


def test_numpy_ops_hold_their_bounds(tmp_path):
    results, r = campaign(tmp_path, "numpy_backends.py", ["numpy.*"], cases=150)
    assert len(assert_all_ran_within_bounds(results, "numpy.", 150, r.stdout)) == 11


def test_jax_ops_hold_their_bounds(tmp_path):
    results, r = campaign(tmp_path, "jax_backends.py", ["jax.*"], cases=40)
    assert len(assert_all_ran_within_bounds(results, "jax.", 40, r.stdout)) == 6


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


def replay(case, file, *extra):
    return subprocess.run([CLI, "replay", str(CASES / case), "--python", str(FRAMEWORKS / file), *extra],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("fmt", ["bf16", "f16"])
def test_torch_sum_rounds_its_thread_partials_to_16_bits(fmt):
    case = f"torch_sum_two_threads_{fmt}.json"
    two = replay(case, "torch_backends.py")
    assert two.returncode == 1 and "bound-exceeded" in two.stdout, two.stdout + two.stderr
    one = replay(case, "torch_backends.py", "--backend", f"torch.sum_contiguous_{fmt}_t1")
    assert one.returncode == 0, one.stdout + one.stderr


@pytest.mark.parametrize("case,text", [
    ("fsum_negative_zero.json", "not-correctly-rounded"),
    ("fsum_intermediate_overflow.json", "raised OverflowError: intermediate overflow in fsum"),
    ("fsum_infinities.json", "raised ValueError: -inf + inf in fsum"),
])
def test_math_fsum_is_not_ieee_correctly_rounded(case, text):
    r = replay(case, "numpy_backends.py")
    assert r.returncode == 1 and text in r.stdout + r.stderr, r.stdout + r.stderr


def test_the_readme_example_runs():
    readme = (ROOT / "README.md").read_text()
    match = re.search(r"<!-- python-example -->\s*```python\n(.*?)```", readme, re.S)
    assert match, "README.md has no python example block"
    code = match.group(1)
    assert len(code.strip().splitlines()) <= 15
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       cwd=os.environ.get("TMPDIR", "/tmp"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "stated bound" in r.stdout and "torch_sum_bf16" in r.stdout and "no violations" in r.stdout, r.stdout
