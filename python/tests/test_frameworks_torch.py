"""PyTorch 2.15's eager accumulators (python/frameworks/torch_backends.py) in campaigns, in the
torch environment of ci/python-envs.sh, on each CPU capability; the seed's question (.grad
accumulation vs the hand sum); the two-thread 16-bit torch.sum finding (ledger/README.md, 1)
replayed; the README's Python example. docs/frameworks.md."""
import json
import os
import re
import subprocess

import pytest

import accucheck
from envs import interpreter, without_numpy
from frameworks_cli import FRAMEWORKS, ROOT, assert_all_ran_within_bounds, campaign, replay, replay_json, run_cli


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


def test_the_cuda_file_runs_on_the_cpu_in_an_interpreter_without_numpy(tmp_path):
    # python/frameworks/torch_cuda_backends.py is for a GPU machine's own Python, which may lack
    # numpy (issue 47): its backends take torch tensors. Here its ops run on the CPU
    # (ACCUCHECK_TORCH_DEVICE=cpu) with numpy and ml_dtypes missing: the file's plumbing on every
    # workload kind, each op within the bound stated for its CUDA kernel (any order's bounds, which
    # the CPU kernels meet too). What the CUDA kernels do is for ci/gpu-check.sh.
    blocked = without_numpy(tmp_path)
    # torch.compile's first call on the CPU compiles C++ (tens of seconds): f32 only.
    results, r = campaign(tmp_path, "torch", "torch_cuda_backends.py", ["torch.cuda.[!c]*", "torch.cuda.compiled_sum_f32"],
                          cases=30, env={"ACCUCHECK_TORCH_DEVICE": "cpu", "PYTHONPATH": blocked})
    mine = assert_all_ran_within_bounds(results, "torch.cuda.", 30, r.stdout)
    assert len(mine) == 41, sorted(mine)
    listed = run_cli("torch", "list", "--python", str(FRAMEWORKS / "torch_cuda_backends.py"), "--json",
                     env={"ACCUCHECK_TORCH_DEVICE": "cpu", "PYTHONPATH": blocked})
    summaries = [b["summary"] for b in json.loads(listed.stdout)["backends"] if b["name"].startswith("torch.cuda.")]
    assert summaries and all("(Python 3.11" in s and "no numpy, torch 2.15" in s for s in summaries), summaries[:2]
    nondeterministic = {n for n, b in mine.items() if b["determinism"] == "run-to-run-nondeterministic"}
    assert nondeterministic == {f"torch.cuda.{op}_{fmt}" for op in ("index_add", "scatter_add", "embedding_backward")
                                for fmt in ("f32", "f16", "bf16")}, nondeterministic


def test_the_seeds_gpu_scenario_script_judges_pytorchs_embedding_accumulation(tmp_path):
    # python/frameworks/torch_16686_gpu.py on the CPU (ACCUCHECK_TORCH_DEVICE=cpu; ci/gpu-check.sh
    # runs it on the GPU): both paths, 16 and 32 micro-batches, judged against exact sums.
    script = FRAMEWORKS / "torch_16686_gpu.py"
    r = subprocess.run([interpreter("torch"), str(script), "8", "16"], capture_output=True, text=True, timeout=600,
                       env={**os.environ, "ACCUCHECK_TORCH_DEVICE": "cpu"})
    assert r.returncode == 0 and "every element within recursive(f32)" in r.stdout, r.stdout + r.stderr
    rows = [line.split() for line in r.stdout.splitlines() if line.split()[:1] in (["8"], ["16"])]
    assert len(rows) == 8 and all(row[-2:] == ["same", "bits"] for row in rows), r.stdout
    # Its judge catches a wrong accumulation: one micro-batch's gradient left out.
    check = tmp_path / "dropped.py"
    check.write_text(f"""
import sys
sys.path.insert(0, {str(FRAMEWORKS)!r})
import torch_16686_gpu as s
batches = s.token_batches(16)
computed = s.accumulate(batches[:-1], by_hand=False, deterministic=False)
ulps, wrong, ratio = s.judge(computed, s.exact_sums(batches))
print(ratio)
# and its rounding of exact sums to f32 agrees with accucheck's oracle (an independent one)
import random, accucheck
r = random.Random(5)
for trial in range(500):
    values = [s.f32(r.choice((-1, 1)) * r.random() * 2.0 ** r.randrange(-60, -20)) for _ in range(r.randrange(1, 40))]
    values += [-values[0]] * (trial % 3 == 0)
    assert s.round_f32(sum(s.exact_units(v) for v in values)) == accucheck.exact(values, "f32")["sum"], values
sys.exit(0 if ratio > 1 else 1)
""")
    dropped = subprocess.run([interpreter("torch"), str(check)], capture_output=True, text=True, timeout=600,
                             env={**os.environ, "ACCUCHECK_TORCH_DEVICE": "cpu"})
    assert dropped.returncode == 0, dropped.stdout + dropped.stderr
