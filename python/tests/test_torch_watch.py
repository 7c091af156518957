"""accucheck.torch.watch in training loops with gradient accumulation (python/tests/torch_watch_cases.py,
run in the torch environment of ci/python-envs.sh with this build's package): the same .grad bits
with and without it (eager, torch.compile, AMP's GradScaler), a report row per parameter, a dropped
micro-batch gradient and a bf16 accumulation claiming f32 reported, with a case file that
`accucheck replay` runs on every backend. docs/python.md, "In a training loop"."""
import json
import os
import subprocess

import pytest

from envs import interpreter

CASES = os.path.join(os.path.dirname(__file__), "torch_watch_cases.py")


def run_case(name, *args):
    r = subprocess.run([interpreter("torch"), CASES, name, *map(str, args)], capture_output=True, text=True,
                       timeout=600, env={**os.environ, "PYTHONPATH": os.environ["PYTHONPATH"]})
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", ["eager", "compile", "amp"])
def test_watching_leaves_every_grad_bit_as_it_was(mode):
    result = run_case(f"bits-{mode}")
    assert result["same"], result["table"]
    assert result["ok"], result["table"]
    assert result["windows"] == [2, 2, 2, 2], result  # two optimizer steps, each its own window
    # Six micro-batches each: the first into a cleared .grad (6 terms), the second into zeros (7).
    assert result["terms"] == [[6, 7]] * 4, result


def test_a_row_per_parameter_within_the_bound():
    result = run_case("report")
    assert result["ok"], result["table"]
    assert result["names"] == result["expected_names"]
    for row in result["rows"]:
        assert row["windows"] == 1 and row["elements"] == (4 if row["name"] == "2.bias" else 16), row
        assert 0 <= row["max_ratio"] <= 1 and not row["violated"], row
        assert row["bits_lost"] >= 0 and row["kappa"] >= 1, row


def test_a_dropped_micro_batch_gradient_is_reported_with_a_replayable_case(tmp_path):
    result = run_case("dropped", tmp_path)
    assert not result["ok"] and result["violated"] == ["0.weight"], result["table"]
    case = tmp_path / "torch-watch-0.weight.json"
    assert json.loads(case.read_text())["verdict"] == "bound-exceeded"
    # The case names no backend: replay runs it on every f32 backend, each within its bound.
    r = subprocess.run([os.environ["ACCUCHECK_CLI"], "replay", str(case)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kahan_f32" in r.stdout and "naive_f32" in r.stdout and "pairwise_f32" in r.stdout, r.stdout


def test_bf16_accumulation_claiming_f32_is_reported_and_holds_its_own_bound(tmp_path):
    result = run_case("bf16", tmp_path)
    claimed = result["recursive(f32)"]
    assert not claimed["ok"] and set(claimed["verdicts"]) == {"bound-exceeded"}, claimed["table"]
    own = result["default"]
    assert own["ok"] and set(own["bounds"]) == {"recursive(bf16)"}, own["table"]
    # A case file and a trace (bf16 bit patterns) per parameter: the violations, and (16-bit .grad)
    # the elements whose error exceeds fp32 accumulation's (each row counts them).
    assert sorted(os.listdir(tmp_path)) == sorted(f"torch-watch-{name}.{ext}" for name in
                                                  ("0.weight", "0.bias", "2.weight", "2.bias") for ext in ("json", "npy"))
    assert all(n > 0 for n in own["worse_than_f32"]), own["table"]
    # The trace is the window's terms in order: naive_bf16 (AccumulateGrad's order) on it is off
    # from RNE(S) by what the watcher measured.
    r = subprocess.run([os.environ["ACCUCHECK_CLI"], "trace", str(tmp_path / "torch-watch-0.weight.npy"), "--bf16",
                        "--backend", "naive_bf16"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "naive_bf16" in r.stdout and f" {claimed['max_ulps'][0]} " in r.stdout, r.stdout


def test_the_transformer_example_writes_its_report(tmp_path):
    # examples/torch_watch/transformer.py at a smoke size: 4 and 8 micro-batches, one step.
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch_watch", "transformer.py")
    r = subprocess.run([interpreter("torch"), example, "--out", str(tmp_path), "--optimizer-steps", "1",
                        "--steps", "4", "8", "--sample", "8"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "violations: 0" in r.stdout, r.stdout
    for fmt in ("bf16", "f32"):
        for steps in (4, 8):
            results = json.loads((tmp_path / f"torch-watch-{fmt}-{steps}.json").read_text())
            names = [b["name"] for b in results["backends"]]
            assert f"torch.watch:encoder.layers.1.linear2.weight:{fmt}" in names, names
            assert {s["family"] for b in results["backends"] for s in b["samples"]} == {f"{steps} micro-batches"}
    html = (tmp_path / "report.html").read_text()
    assert "torch.watch:head.weight:bf16" in html and "8 micro-batches" in html
