"""The CLI loads Python backends: `accucheck check|list|replay|trace --python FILE.py`, a file a
user wrote. A backend that raises, crashes the interpreter, exits or hangs is that backend's
failure (the plugin worker runs it); a file that cannot load is exit 2 naming the file."""
import json
import os
import sys
import textwrap

import numpy as np
import pytest
from user_backends import COUNTED_TWICE, CRASHES, LOOP, RAISES, backend, written
from user_backends import run_cli as accucheck

# The user's file: a right loop and a planted bug.
USER_FILE = ("\nimport numpy as np\nimport accucheck\n" +
             backend("user_loop_f32", LOOP, doc="acc += g, one micro-batch after another") +
             backend("user_twice_f32", COUNTED_TWICE))


@pytest.fixture
def user_file(tmp_path):
    return written(tmp_path / "my_backends.py", USER_FILE)


def test_check_catches_the_wrong_backend_and_passes_the_right_one(tmp_path, user_file):
    findings = str(tmp_path / "findings")
    r = accucheck("check", "--python", user_file, "--backend", "user_*", "--minutes", "0.5", "--seed", "3",
                  "--findings", findings, "--json", str(tmp_path / "r.json"), "--quiet")
    assert r.returncode == 1, r.stdout + r.stderr
    results = {b["name"]: b for b in json.load(open(tmp_path / "r.json"))["backends"]}
    assert set(results) == {"user_loop_f32", "user_twice_f32"}
    assert not results["user_loop_f32"]["violations"] and results["user_loop_f32"]["cases"] > 100
    assert results["user_twice_f32"]["violations"]
    assert "[python my_backends.py]" in r.stdout
    cases = results["user_twice_f32"]["findings"]
    assert cases and "--python " + user_file in r.stderr  # the FINDING line's replay command
    again = accucheck("replay", cases[0], "--python", user_file)
    assert again.returncode == 1 and "user_twice_f32" in again.stdout, again.stdout + again.stderr
    right = accucheck("replay", cases[0], "--python", user_file, "--backend", "user_loop_f32")
    assert right.returncode == 0, right.stdout + right.stderr


def test_characterize_reveals_a_python_backends_order(tmp_path, user_file):
    # The user's loop is a left-to-right chain in f32 (trees written here, not by accucheck); the
    # one that counts a step twice is contradicted by a witness, with no campaign.
    out = str(tmp_path / "c.json")
    r = accucheck("characterize", "--python", user_file, "user_*", "--n", "3", "--n", "9", "--json", out,
                  "--findings", str(tmp_path / "findings"), "--quiet")
    assert r.returncode == 1, r.stdout + r.stderr
    backends = {b["backend"]: b for b in json.load(open(out))["backends"]}
    loop = {x["n"]: x for x in backends["user_loop_f32"]["lengths"]}
    chain = "0"
    for i in range(1, 9):
        chain = f"({chain} {i})"
    assert loop[9]["order"] == chain and loop[9]["accumulation_bits"] == 24
    assert backends["user_loop_f32"]["derived_bound"] == "depths(sequential,f32)"
    assert backends["user_loop_f32"]["relation"] == "tighter"
    assert backends["user_twice_f32"]["relation"] == "contradicted", backends["user_twice_f32"]["relation_reason"]


def test_list_shows_the_files_backends(user_file):
    r = accucheck("list", "--python", user_file, "--json")
    assert r.returncode == 0, r.stderr
    listed = {b["name"]: b for b in json.loads(r.stdout)["backends"]}
    assert listed["user_loop_f32"]["bound"] == "recursive(f32)"
    assert listed["user_loop_f32"]["origin"] == user_file


def test_trace_runs_python_backends_on_real_gradients(tmp_path, user_file):
    trace = tmp_path / "grads.npy"
    rng = np.random.default_rng(0)
    np.save(trace, (rng.standard_normal((12, 64)) * 1e-3).astype(np.float32))
    r = accucheck("trace", str(trace), "--python", user_file, "--backend", "user_*", "--findings", str(tmp_path / "f"),
                  "--quiet")
    assert r.returncode == 1, r.stdout + r.stderr  # counted twice on a 12-step trace
    assert "user_loop_f32" in r.stdout and "user_twice_f32" in r.stdout


FAILING = ("\nimport os, signal, time\nimport accucheck\n" + backend("fails_raise", RAISES, storage="f64") +
           backend("fails_crash", CRASHES, storage="f64") + '''
@accucheck.backend(storage="f64", bound="recursive(f64)")
def fails_exit(addends, buffer):
    os._exit(0)

@accucheck.backend(storage="f64", bound="recursive(f64)")
def fails_hang(addends, buffer):
    time.sleep(3600)

@accucheck.backend(storage="f64", bound="recursive(f64)")
def fails_shape(addends, buffer):
    return addends

@accucheck.backend(storage="f64", bound="recursive(f64)")
def fails_dtype(addends, buffer):
    return buffer.astype("float32")

@accucheck.backend(storage="f64", bound="recursive(f64)")
def fails_rounding(addends, buffer):
    import ctypes
    ctypes.CDLL(None).fesetround(0x800)  # FE_UPWARD on x86-64, left so
    buffer += addends.sum(axis=0)
''')


def test_failing_backends_are_their_own_failures(tmp_path):
    path = tmp_path / "failing.py"
    path.write_text(FAILING)
    findings = tmp_path / "findings"
    r = accucheck("check", "--python", str(path), "--backend", "fails_*", "--cases", "3", "--seed", "1", "--findings",
                  str(findings), "--json", str(tmp_path / "r.json"), "--quiet", env={"ACCUCHECK_PLUGIN_TIMEOUT": "2"})
    assert r.returncode == 1, r.stdout + r.stderr
    results = {b["name"]: b for b in json.load(open(tmp_path / "r.json"))["backends"]}
    expected = {
        "fails_raise": "raised ValueError: no kernel for this shape",
        "fails_crash": "SIGSEGV",
        "fails_exit": "exit",
        "fails_hang": "timed out",
        "fails_shape": "returned shape",
        "fails_dtype": "returned dtype float32, expected float64",
        "fails_rounding": "changed the floating-point environment and left it changed: rounding to nearest -> upward",
    }
    for name, text in expected.items():
        b = results[name]
        assert "backend-failed" in b["violations"], (name, b)
        assert any(text in f for f in b["failures"]), (name, b["failures"])
        assert any(os.path.basename(c).startswith(name + "_backend-failed") for c in b["findings"]), (name, b["findings"])


@pytest.mark.parametrize("content,message", [
    ("import accucheck\n", "registered no backends"),
    ("def broken(:\n", "SyntaxError"),
    ("import accucheck\n@accucheck.backend(storage='f32', bound='recursive(f99)')\ndef f(a, b): pass\n",
     "not a bound expression"),
    ("import accucheck\n@accucheck.backend(name='naive_f32', storage='f32', bound='recursive(f32)')\ndef f(a, b): pass\n",
     "already registered"),
])
def test_a_file_that_cannot_load_is_exit_2_naming_it(tmp_path, content, message):
    path = tmp_path / "bad.py"
    path.write_text(content)
    r = accucheck("list", "--python", str(path))
    assert r.returncode == 2, r.stdout + r.stderr
    assert str(path) in r.stderr and message in r.stderr, r.stderr


def test_a_missing_file_is_exit_2():
    r = accucheck("check", "--python", "/nonexistent/backends.py", "--cases", "1")
    assert r.returncode == 2 and "/nonexistent/backends.py: no such file" in r.stderr, r.stderr


def test_a_file_that_runs_a_campaign_at_its_top_level_is_told_to_guard_it(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(USER_FILE + "\nresult = accucheck.check([user_loop_f32], cases=5)\n")
    r = accucheck("list", "--python", str(path))
    assert r.returncode == 2 and "if __name__ ==" in r.stderr, r.stderr
    guarded = tmp_path / "guarded.py"
    guarded.write_text(USER_FILE + "\nif __name__ == '__main__':\n    accucheck.check([user_loop_f32], cases=5)\n")
    assert accucheck("list", "--python", str(guarded)).returncode == 0


def test_a_file_whose_import_switches_on_flush_to_zero_is_judged_as_its_users_run_it(tmp_path):
    # A fast-math library loaded by the file (as an extension module built with -ffast-math is):
    # its constructor switches on FTZ and DAZ for the whole process, so subnormal gradients vanish
    # in the user's process, and the verdicts must say so (accucheck's own arithmetic stays IEEE).
    fast_math = os.path.join(os.environ["ACCUCHECK_TEST_PLUGIN_DIR"], "libtest_plugin_fast_math.so")
    flushing = tmp_path / "flushing.py"
    flushing.write_text(f"import ctypes\nctypes.CDLL({fast_math!r})\n" + USER_FILE)
    plain = tmp_path / "plain.py"
    plain.write_text(USER_FILE)
    verdicts = {}
    for path in (flushing, plain):
        r = accucheck("check", "--python", str(path), "--backend", "user_loop_f32", "--family", "subnormal_only",
                      "--cases", "40", "--seed", "5", "--findings", str(tmp_path / "findings"), "--quiet")
        verdicts[path.name] = r
    r = verdicts["flushing.py"]
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("Python file flushing.py changed the floating-point environment while loading: "
            "flush-to-zero switched on, denormals-are-zero switched on") in r.stderr, r.stderr
    assert "bound-exceeded" in r.stdout, r.stdout
    assert verdicts["plain.py"].returncode == 0, verdicts["plain.py"].stdout + verdicts["plain.py"].stderr
