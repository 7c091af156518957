"""PyTorch 2.15's eager accumulators (python/frameworks/torch_backends.py) in campaigns, in the
torch environment of ci/python-envs.sh, on each CPU capability; the seed's question (.grad
accumulation vs the hand sum); the two-thread 16-bit torch.sum finding (ledger/README.md, 1)
replayed; the README's Python example. docs/frameworks.md."""
import os
import re
import subprocess

import pytest

import accucheck
from envs import interpreter
from frameworks_cli import ROOT, assert_all_ran_within_bounds, campaign, replay, replay_json


# PyTorch 2.15 (eager): every op on the CPU capability it picks here and on the other two
# (ATEN_CPU_CAPABILITY): kernels are compiled per capability, so each is another accumulator
# (torch.sum's tree is the same on all three since 2.1; docs/frameworks.md).
# Per commit the capability it picks; the other two at night.
@pytest.mark.parametrize("capability", ["native", pytest.param("default", marks=pytest.mark.nightly),
                                        pytest.param("avx2", marks=pytest.mark.nightly)])
def test_torch_ops_hold_their_bounds(tmp_path, capability):
    env = {} if capability == "native" else {"ATEN_CPU_CAPABILITY": capability}
    results, r = campaign(tmp_path, "torch", "torch_backends.py", ["torch.*"], cases=60 if capability == "native" else 30,
                          env=env)
    mine = assert_all_ran_within_bounds(results, "torch.", 60 if capability == "native" else 30, r.stdout)
    assert len(mine) == TORCH_EAGER_BACKENDS, sorted(mine)
    assert "derived for torch" not in r.stderr, r.stderr  # the version the bounds were derived for


TORCH_EAGER_BACKENDS = 49


def test_grad_accumulation_stagnates_where_the_hand_sum_does_not(tmp_path):
    # .grad accumulation in bf16 rounds every micro-batch; summing the micro-batch gradients by
    # hand (torch.stack(...).sum(0)) rounds once: on stagnation cases the first drifts by hundreds
    # of ulps from RNE(S), the second stays within one. The same cases cross addmm's bf16 path
    # change (m*n*k = 1*D*T above 4096: oneDNN instead of BlasKernel's dot): both within its bound.
    worst = {"torch.grad_accumulation_bf16": 0, "torch.grad_stack_sum_bf16": 0}
    sizes = []
    for i, w in enumerate(accucheck.workloads("stagnation", format="bf16", seed=1, count=6)):
        path = tmp_path / f"stagnation{i}.json"
        w.save(str(path))
        sizes.append(w.addends.shape[0] * w.addends.shape[1])
        for r in replay_json("torch", path, "torch_backends.py", [*worst, "torch.addmm_beta1_bf16"]):
            # recursive(bf16) says nothing from n = 129 on (bound-vacuous), which is the point
            assert r["worst"] in ("ok", "bound-vacuous") if r["bound"] == "recursive(bf16)" else r["worst"] == "ok", r
            if r["backend"] in worst:
                worst[r["backend"]] = max(worst[r["backend"]], max(abs(e["ulps"]) for e in r["elements"]))
    assert worst["torch.grad_accumulation_bf16"] > 100, worst
    assert worst["torch.grad_stack_sum_bf16"] <= 1, worst
    assert min(sizes) <= 4096 < max(sizes), sizes


@pytest.mark.parametrize("fmt", ["bf16", "f16"])
def test_torch_sum_rounds_its_thread_partials_to_16_bits(fmt):
    # still so in 2.15.0 (ledger/README.md)
    case = f"torch_sum_two_threads_{fmt}.json"
    two = replay("torch", case, "torch_backends.py")
    assert two.returncode == 1 and "bound-exceeded" in two.stdout, two.stdout + two.stderr
    one = replay("torch", case, "torch_backends.py", "--backend", f"torch.sum_contiguous_{fmt}_t1")
    assert one.returncode == 0, one.stdout + one.stderr


def test_the_readme_example_runs():
    # in the PyTorch environment, with the build's package (the extension is CPython 3.11's, as that interpreter)
    readme = (ROOT / "README.md").read_text()
    match = re.search(r"<!-- python-example -->\s*```python\n(.*?)```", readme, re.S)
    assert match, "README.md has no python example block"
    code = match.group(1)
    assert len(code.strip().splitlines()) <= 15
    r = subprocess.run([interpreter("torch"), "-c", code], capture_output=True, text=True, timeout=300,
                       cwd=os.environ.get("TMPDIR", "/tmp"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "stated bound" in r.stdout and "torch_sum_bf16" in r.stdout and "no violations" in r.stdout, r.stdout
