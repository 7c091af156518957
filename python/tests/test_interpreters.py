"""`accucheck --python FILE.py` in interpreters the build was not made for: the Python worker
(accucheck/_worker.py) runs the backend file in the user's own CPython, nothing compiled for it.

The environments are the project's (ci/python-envs.sh, ci/envs/): Python 3.13 with numpy 2.5, and a
3.11 other than the build's with numpy 1.23. A missing one is skipped, except under CI=true, where
it fails: an environment that was not there is a test that did not run."""
import json
import subprocess
import sys

import pytest
import envs
from envs import interpreter
from user_backends import COUNTED_TWICE, CRASHES, LOOP, RAISES, backend, run_cli, written

# name: (the interpreter's version prefix, numpy's)
ENVIRONMENTS = {"py313": ("3.13", "2.5"), "py311-numpy1": ("3.11", "1.23")}

BACKENDS = ("\nimport os, signal\nimport numpy as np\nimport accucheck\n" +
            backend("loop_f32", LOOP, doc="acc += g, one micro-batch after another", determinism="bitwise-deterministic") +
            backend("twice_f32", COUNTED_TWICE) + '''
@accucheck.backend(storage="f32", bound="products(f32)", determinism="bitwise-deterministic")
def addmm_f32(a, b, c):
    """C += A_t B_t per micro-batch (GEMM with beta = 1): every product rounded, any order"""
    for t in range(a.shape[0]):
        c += a[t] @ b[t]

@accucheck.backend(storage="f32", bound="products(f32)")
def addmm_in_f16_f32(a, b, c):
    # planted: the running C kept in float16 while the bound claims f32 arithmetic
    acc = c.astype(np.float16)
    for t in range(a.shape[0]):
        acc = (acc + (a[t] @ b[t]).astype(np.float16)).astype(np.float16)
    return acc.astype(np.float32)
''' + backend("raises_f64", RAISES, storage="f64") + backend("crashes_f64", CRASHES, storage="f64"))


def accucheck(python, *args, timeout=300):
    return run_cli(*args, env={"ACCUCHECK_PYTHON": python, "ACCUCHECK_PLUGIN_TIMEOUT": "20"}, timeout=timeout)


@pytest.fixture
def backend_file(tmp_path):
    return written(tmp_path / "user_backends.py", BACKENDS)


# Per commit Python 3.13 with numpy 2.5; 3.11 with numpy 1.23 at night (ci/nightly.sh).
@pytest.mark.parametrize("name", ["py313", pytest.param("py311-numpy1", marks=pytest.mark.nightly)])
def test_a_backend_file_runs_in_the_users_interpreter(name, tmp_path, backend_file):
    python = interpreter(name)
    version, numpy_version = ENVIRONMENTS[name]
    listed = accucheck(python, "list", "--python", backend_file, "--json")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    rows = {b["name"]: b for b in json.loads(listed.stdout)["backends"] if b["name"] in
            ("loop_f32", "twice_f32", "addmm_f32", "addmm_in_f16_f32", "raises_f64", "crashes_f64")}
    assert len(rows) == 6, listed.stdout
    summary = rows["loop_f32"]["summary"]
    assert f"(Python {version}" in summary and f"numpy {numpy_version}" in summary, summary
    assert rows["loop_f32"]["determinism"] == "bitwise-deterministic"

    findings = tmp_path / "findings"
    r = accucheck(python, "check", "--python", backend_file, "--cases", "150", "--seed", "11", "--findings",
                  str(findings), "--json", str(tmp_path / "r.json"), "--quiet", "--backend", "loop_f32",
                  "--backend", "twice_f32", "--backend", "addmm_*", "--backend", "*_f64", "--jobs", "1")
    assert r.returncode == 1, r.stdout + r.stderr
    results = {b["name"]: b for b in json.load(open(tmp_path / "r.json"))["backends"]}
    # Correct backends pass, on dense and on product workloads with real operands.
    for good in ("loop_f32", "addmm_f32"):
        assert not results[good]["violations"] and results[good]["cases"] >= 100, results[good]
    # False claims are caught, each with a case file that replays with the same command.
    for wrong in ("twice_f32", "addmm_in_f16_f32"):
        assert results[wrong]["violations"], results[wrong]
        case = results[wrong]["findings"][0]
        again = accucheck(python, "replay", case, "--python", backend_file, "--backend", wrong)
        assert again.returncode == 1 and "VIOLATED" in again.stdout, again.stdout + again.stderr
    # A raise and a crash are those backends' failures, never accucheck's.
    assert any("raised ValueError: no kernel for this shape" in f for f in results["raises_f64"]["failures"])
    assert any("SIGSEGV" in f for f in results["crashes_f64"]["failures"]), results["crashes_f64"]["failures"]


def test_a_missing_interpreter_or_numpy_is_exit_2_saying_which(tmp_path, backend_file):
    r = accucheck("/nonexistent/python3", "list", "--python", backend_file)
    assert r.returncode == 2 and "cannot run the Python interpreter '/nonexistent/python3'" in r.stderr, r.stderr
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    r = accucheck(str(bare / "bin" / "python"), "list", "--python", backend_file)
    assert r.returncode == 2 and "No module named 'numpy'" in r.stderr, r.stderr


# ---- a GPU machine's own PyTorch: no numpy (issue 47) -------------------------------------------

# Backends of arrays="torch": CPU tensors in, a tensor of the storage dtype out; the file imports no
# numpy. One per workload kind, one false claim.
TORCH_ARRAYS = '''
import torch
import accucheck

@accucheck.backend(storage="f32", bound="recursive(f32)", arrays="torch")
def loop_t_f32(addends, buffer):
    for row in addends:
        buffer += row

@accucheck.backend(storage="bf16", accumulation="f32", bound="widened(recursive(f32),bf16)", arrays="torch")
def sum_in_f32_t_bf16(addends, buffer):
    assert addends.dtype == torch.bfloat16
    acc = buffer.float()
    for row in addends:
        acc += row.float()
    return acc.to(torch.bfloat16)

@accucheck.backend(storage="f32", bound="recursive(f32)", arrays="torch")
def index_add_t_f32(table, step_offsets, rows, values):
    assert rows.dtype == step_offsets.dtype == torch.int64
    return table.index_add_(0, rows, values)

@accucheck.backend(storage="f32", bound="products(f32)", arrays="torch")
def addmm_t_f32(a, b, c):
    for t in range(a.shape[0]):
        c = torch.addmm(c, a[t], b[t])
    return c

@accucheck.backend(storage="f32", bound="recursive(f32)", arrays="torch")
def twice_t_f32(addends, buffer):
    # planted: the last micro-batch counted twice
    return buffer + addends.sum(0) + addends[-1]
'''


@pytest.fixture
def without_numpy(tmp_path):
    return envs.without_numpy(tmp_path)


def test_a_torch_arrays_file_runs_where_numpy_is_missing(tmp_path, without_numpy):
    python = interpreter("torch")
    backend_file = written(tmp_path / "torch_arrays_backends.py", TORCH_ARRAYS)
    env = {"ACCUCHECK_PYTHON": python, "PYTHONPATH": without_numpy, "ACCUCHECK_PLUGIN_TIMEOUT": "60"}
    listed = run_cli("list", "--python", backend_file, "--json", env=env)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    summaries = {b["name"]: b["summary"] for b in json.loads(listed.stdout)["backends"] if "_t_" in b["name"]}
    assert len(summaries) == 5 and "no numpy, torch 2." in summaries["loop_t_f32"], summaries

    findings = tmp_path / "findings"
    r = run_cli("check", "--python", backend_file, "--backend", "*_t_*", "--cases", "100", "--seed", "5", "--jobs", "1",
                "--findings", str(findings), "--json", str(tmp_path / "r.json"), "--quiet", env=env, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    results = {b["name"]: b for b in json.load(open(tmp_path / "r.json"))["backends"]}
    for good in ("loop_t_f32", "sum_in_f32_t_bf16", "index_add_t_f32", "addmm_t_f32"):
        assert results[good]["cases"] >= 100 and not results[good]["violations"] and not results[good]["failures"], \
            results[good]
    assert results["twice_t_f32"]["violations"], results["twice_t_f32"]
    again = run_cli("replay", results["twice_t_f32"]["findings"][0], "--python", backend_file, "--backend",
                    "twice_t_f32", env=env)
    assert again.returncode == 1 and "VIOLATED" in again.stdout, again.stdout + again.stderr


def test_a_numpy_backend_where_numpy_is_missing_is_exit_2_saying_so(tmp_path, without_numpy):
    backend_file = written(tmp_path / "plain.py", "import accucheck\n\n"
                           "@accucheck.backend(storage='f64', bound='recursive(f64)')\n"
                           "def plain_f64(addends, buffer):\n    for row in addends:\n        buffer += row\n")
    r = run_cli("list", "--python", backend_file, env={"ACCUCHECK_PYTHON": interpreter("torch"),
                                                       "PYTHONPATH": without_numpy})
    assert r.returncode == 2 and "backend 'plain_f64' takes numpy arrays" in r.stderr and \
        "declare arrays='torch'" in r.stderr, r.stderr


def test_reserved_address_space_is_not_memory_used(tmp_path):
    # CUDA's lazy start reserves tens of GiB of address space at a backend's first call: the
    # worker's limit (ACCUCHECK_PLUGIN_MEMORY) counts memory written, so that passes, while an
    # allocation past the limit is still that backend's failure.
    backend_file = written(tmp_path / "memory_backends.py", '''
import mmap
import accucheck

reserved = []

@accucheck.backend(storage="f64", bound="recursive(f64)")
def reserves_f64(addends, buffer):
    if not reserved:  # 64 GiB, private, no access: an address-space reservation, nothing written
        reserved.append(mmap.mmap(-1, 64 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=0))
    for row in addends:
        buffer += row

@accucheck.backend(storage="f64", bound="recursive(f64)")
def allocates_f64(addends, buffer):
    block = bytearray(2 << 30)
    for row in addends:
        buffer += row
''')
    r = run_cli("check", "--python", backend_file, "--backend", "*s_f64", "--cases", "20", "--seed", "3", "--jobs", "1",
                "--findings", str(tmp_path / "f"), "--json", str(tmp_path / "r.json"), "--quiet",
                env={"ACCUCHECK_PLUGIN_MEMORY": "1G"})
    results = {b["name"]: b for b in json.load(open(tmp_path / "r.json"))["backends"]}
    assert not results["reserves_f64"]["failures"] and results["reserves_f64"]["cases"] >= 20, results["reserves_f64"]
    assert any("allocates_f64 ran out of memory (MemoryError; a worker may grow by 1 GiB" in f
               for f in results["allocates_f64"]["failures"]), results["allocates_f64"]
