"""`accucheck --python FILE.py` in interpreters the build was not made for: the Python worker
(accucheck/_worker.py) runs the backend file in the user's own CPython, nothing compiled for it.

The environments are the project's (ci/python-envs.sh, ci/envs/): Python 3.13 with numpy 2.5, and a
3.11 other than the build's with numpy 1.23. A missing one is skipped, except under CI=true, where
it fails: an environment that was not there is a test that did not run."""
import json
import subprocess
import sys

import pytest
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
