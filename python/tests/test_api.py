"""The Python API: the decorator, check, replay, exact, the families, and contained failures.

Expected values come from outside the code under test: Python's fractions for exact sums, a
planted bug (a dropped addend, a 16-bit accumulator) for violations."""
import json
import subprocess
import sys
import os
import time
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import accucheck


@accucheck.backend(storage="f32", bound="recursive(f32)", summary="acc += g in order, in f32")
def api_loop_f32(addends, buffer):
    for row in addends:
        buffer += row


@accucheck.backend(storage="f32", bound="recursive(f32)")
def api_drops_last_f32(addends, buffer):
    for row in addends[:-1]:  # planted: the last micro-batch is lost
        buffer += row


@accucheck.backend(storage="bf16", accumulation="f32", bound="widened(recursive(f32),bf16)")
def api_bf16_claims_f32(addends, buffer):
    acc = buffer.copy()  # planted: accumulates in bf16 while it states an f32 accumulator
    for row in addends:
        acc = (acc.astype(np.float32) + row.astype(np.float32)).astype(ml_dtypes.bfloat16)
    return acc


@accucheck.backend(storage="bf16", accumulation="f32", bound="widened(recursive(f32),bf16)")
def api_bf16_acc_f32(addends, buffer):
    acc = buffer.astype(np.float32)
    for row in addends:
        acc += row.astype(np.float32)
    return acc.astype(ml_dtypes.bfloat16)


@accucheck.backend(storage="f16", bound="recursive(f16)", bits=True)
def api_f16_bits(addends, buffer):
    assert addends.dtype == np.uint16 and buffer.dtype == np.uint16
    acc = buffer.view(np.float16).copy()
    for row in addends.view(np.float16):
        acc += row
    return acc.view(np.uint16)


@accucheck.backend(storage="f32", bound="recursive(f32)")
def api_sparse_f32(table, step_offsets, rows, values):
    for q in range(len(rows)):
        table[rows[q]] += values[q]


@accucheck.backend(storage="f32", bound="recursive(f32)")
def api_raises(addends, buffer):
    raise RuntimeError("kernel launch failed")


@accucheck.backend(storage="f32", bound="recursive(f32)")
def api_wrong_shape(addends, buffer):
    return addends.sum(axis=0, keepdims=True)


@accucheck.backend(storage="f32", bound="recursive(f32)")
def api_wrong_dtype(addends, buffer):
    return buffer.astype(np.float64) + addends.astype(np.float64).sum(axis=0)


@accucheck.backend(storage="f32", bound="recursive(f32)")
def api_hangs(addends, buffer):
    time.sleep(3600)


def run(backends, tmp_path, **options):
    options.setdefault("cases", 150)
    options.setdefault("seed", 1)
    return accucheck.check(backends, findings=str(tmp_path / "findings"), **options)


def test_a_correct_backend_passes(tmp_path):
    r = run([api_loop_f32, api_bf16_acc_f32, api_f16_bits], tmp_path)
    assert r.ok, r.table
    rows = {b.name: b for b in r.backends}
    assert rows["api_loop_f32"].cases == 150 and rows["api_loop_f32"].bound == "recursive(f32)"
    assert rows["api_bf16_acc_f32"].cases == 150
    assert rows["api_f16_bits"].cases == 150
    # The climb of a sequential f32 sum reaches its bound: the check is not vacuous.
    assert rows["api_loop_f32"].max_ratio > 0.5
    assert "api_loop_f32" in r.table and "no violations" in r.table


def test_a_wrong_backend_is_caught_with_a_replayable_case(tmp_path):
    r = run([api_drops_last_f32, api_bf16_claims_f32], tmp_path)
    assert not r.ok
    rows = {b.name: b for b in r.backends}
    assert rows["api_drops_last_f32"].violations
    assert rows["api_bf16_claims_f32"].violations, r.table
    assert r.findings
    for f in r.findings:
        assert os.path.exists(f.case_file)
        assert f.replay_command.endswith("--python " + os.path.abspath(__file__))
        case = json.load(open(f.case_file))
        assert case["backend"] == f.backend
        replayed = accucheck.replay(f.case_file)
        assert replayed[0]["backend"] == f.backend and replayed[0]["violated"], replayed
        # The correct backend of the same format does not violate on the finding.
        if case["format"] == "f32":
            assert not accucheck.replay(f.case_file, backends=[api_loop_f32])[0]["violated"]


def test_the_same_seed_gives_the_same_findings(tmp_path):
    a = run([api_drops_last_f32], tmp_path / "a", cases=60)
    b = run([api_drops_last_f32], tmp_path / "b", cases=60)
    assert [os.path.basename(f.case_file) for f in a.findings] == [os.path.basename(f.case_file) for f in b.findings]
    assert a.backends[0].violations == b.backends[0].violations


def test_sparse_backends_run_sparse_workloads(tmp_path):
    r = run([api_sparse_f32], tmp_path, cases=80)
    assert r.ok, r.table
    assert r.backends[0].cases == 80


@pytest.mark.parametrize("fn,message", [
    (api_raises, "raised RuntimeError: kernel launch failed"),
    (api_wrong_shape, "returned shape (1, "),
    (api_wrong_dtype, "returned dtype float64, expected float32"),
])
def test_a_failing_backend_is_its_own_failure(tmp_path, fn, message):
    r = run([fn], tmp_path, cases=5)
    row = r.backends[0]
    assert "backend-failed" in row.violations, r.table
    assert any(message in f for f in row.failures), row.failures
    assert any("backend-failed" in f.case_file for f in r.findings)


def test_a_hanging_backend_times_out(tmp_path):
    start = time.monotonic()
    r = run([api_hangs], tmp_path, cases=2, timeout=0.5)
    assert time.monotonic() - start < 60
    assert any("timed out after 0.5 s" in f for f in r.backends[0].failures), r.backends[0].failures


def test_registration_errors_name_the_field():
    with pytest.raises(ValueError, match="storage 'f8'"):
        accucheck.backend(storage="f8", bound="recursive(f32)")
    with pytest.raises(ValueError, match="determinism 'sometimes'"):
        accucheck.backend(storage="f32", bound="recursive(f32)", determinism="sometimes")
    with pytest.raises(ValueError, match="name 'bad name'"):
        accucheck.backend(name="bad name", storage="f32", bound="recursive(f32)")(lambda a, b: None)

    with pytest.raises(ValueError, match="api_bad_bound.*not a bound expression.*'f99' is not a format"):
        accucheck.backend(name="api_bad_bound", storage="f32", bound="recursive(f99)")(lambda a, b: None)
    with pytest.raises(ValueError, match="'naive_f32' is already registered .a built-in backend"):
        accucheck.backend(name="naive_f32", storage="f32", bound="recursive(f32)")(lambda a, b: None)
    with pytest.raises(ValueError, match="already registered"):
        accucheck.backend(name="api_loop_f32", storage="f64", bound="recursive(f64)")(lambda a, b: None)
    with pytest.raises(ValueError, match="matches no backend|no backend"):
        accucheck.check(["no_such_backend_*"], cases=1)


def test_exact_against_fractions():
    rng = np.random.default_rng(7)
    for _ in range(50):
        values = rng.standard_normal(30) * np.exp2(rng.integers(-60, 60, 30))
        values[::7] *= -1e30
        expected = sum(Fraction(float(v)) for v in values)
        e = accucheck.exact(values)
        assert Fraction(e["exact_nearest_f64"]) == Fraction(float(expected)) or abs(
            Fraction(e["exact_nearest_f64"]) - expected) <= abs(Fraction(float(expected)) - expected)
        assert e["sum"] == float(expected)  # float(Fraction) rounds to nearest, ties to even
        assert e["count"] == 30
    assert accucheck.exact([1e16, 1.0, -1e16])["sum"] == 1.0
    assert accucheck.exact([np.inf, 1.0])["special"] == "+inf"
    assert accucheck.exact([0.1], format="f64")["sum"] == 0.1
    with pytest.raises(ValueError, match=r"values\[0\] is not a value of f16"):
        accucheck.exact([0.1], format="f16")


def test_exact_of_fp8_arrays_against_ml_dtypes():
    # Sums of 20 E4M3 / E5M2 values are exact in float32 here (multiples of 2^-9 below 2^14; of
    # 2^-16 below 2^20), so ml-dtypes' float32 -> float8 conversion (one rounding) is the reference.
    rng = np.random.default_rng(8)
    for fmt, dtype, largest in (("e4m3", ml_dtypes.float8_e4m3fn, 448), ("e5m2", ml_dtypes.float8_e5m2, 57344)):
        for _ in range(200):
            codes = rng.integers(0, 256, 20, dtype=np.uint8)
            values = codes.view(dtype)
            values = values[np.isfinite(values.astype(np.float64))]
            exact = sum(Fraction(float(v)) for v in values.astype(np.float64))
            if Fraction(float(np.float32(float(exact)))) != exact:
                continue
            e = accucheck.exact(values, format=fmt)
            expected = float(np.array([float(exact)], dtype=np.float32).astype(dtype).astype(np.float64)[0])
            assert (np.isnan(e["sum"]) and np.isnan(expected)) or e["sum"] == expected, (fmt, values, exact)
            assert Fraction(e["exact_nearest_f64"]) == exact
        assert accucheck.exact(np.array([largest, largest], dtype=dtype), format=fmt)["count"] == 2
    # Beyond 448, E4M3 has no infinity: the sum is NaN (OFP8's non-saturating rule).
    assert np.isnan(accucheck.exact([448.0, 32.0], format="e4m3")["sum"])
    assert accucheck.exact([448.0, 16.0], format="e4m3")["sum"] == 448.0  # the tie 464: to the even 448
    with pytest.raises(ValueError, match=r"values\[1\] is not a value of e4m3"):
        accucheck.exact([1.0, np.inf], format="e4m3")
    with pytest.raises(ValueError, match="not a format"):
        accucheck.exact([1.0], format="e3m4")


def test_workloads_are_reproducible_and_valid():
    names = [f[0] for f in accucheck.families()]
    assert {"near_cancelling", "stagnation", "special_values", "embedding_zipf"} <= set(names)
    first = list(accucheck.workloads("special_values", format="bf16", seed=5, count=3))
    again = list(accucheck.workloads("special_values", format="bf16", seed=5, count=3))
    assert [w.case_json for w in first] == [w.case_json for w in again]
    for w in first:
        assert w.kind == "dense" and w.addends.shape == (w.steps, w.elements)
        bf = w.as_storage("addends")
        assert bf.dtype == ml_dtypes.bfloat16
        finite = np.isfinite(w.addends)
        assert np.array_equal(bf.astype(np.float64)[finite], w.addends[finite])  # every value is a bf16
    sparse = next(iter(accucheck.workloads(kind="sparse", seed=2, count=1)))
    assert sparse.initial.shape == (sparse.rows, sparse.dim)
    assert len(sparse.step_offsets) == sparse.steps + 1


def test_fp8_product_workloads_carry_their_input_format():
    # A and B of gemm_fp8_inputs are values of their FP8 format by ml_dtypes' own conversion
    # (an implementation independent of accucheck's), C of the storage format.
    # B's format is b_input_format where it differs from A's (the HYBRID recipe's E4M3
    # activations against E5M2 gradients).
    dtypes = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
    seen = set()
    for w in accucheck.workloads("gemm_fp8_inputs", format="f32", seed=3, count=40):
        assert w.kind == "product"
        assert w.input_format in dtypes and w.b_input_format in (None, "e4m3", "e5m2")
        assert w.b_input_format != w.input_format
        b_format = w.b_input_format or w.input_format
        seen.add((w.input_format, b_format))
        for values, fmt in ((w.a, w.input_format), (w.b, b_format)):
            finite = values[np.isfinite(values)]
            assert np.array_equal(finite.astype(dtypes[fmt]).astype(np.float64), finite)
        assert '"input_format": "%s"' % w.input_format in w.case_json
        assert ('"b_input_format"' in w.case_json) == (w.b_input_format is not None)
    assert seen == {("e4m3", "e4m3"), ("e5m2", "e4m3"), ("e5m2", "e5m2")}
    plain = next(iter(accucheck.workloads("gemm_accumulation", format="f32", seed=1, count=1)))
    assert plain.input_format is None and plain.b_input_format is None
    fp8_only = {b["name"] for b in accucheck.backends() if b["fp8_inputs_only"]}
    assert fp8_only == {"tc_h100_fp8_gemm_f32", "tc_h100_fp8_gemm_nc128_f32", "tc_b200_fp8_gemm_f32"}
    normal_only = {b["name"] for b in accucheck.backends() if b["normal_inputs_only"]}
    assert normal_only == {"tc_a100_tf32_gemm_f32", "tc_h100_tf32_gemm_f32"}


def test_fp8_dense_workloads_carry_their_input_format():
    # fp8_gradients: the addends are values of their FP8 format by ml_dtypes' conversion, the
    # initial buffer a value of the storage format (bf16 here) that need not be one.
    dtypes = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
    seen, wider_initial = set(), False
    for w in accucheck.workloads("fp8_gradients", format="bf16", seed=5, count=40, max_steps=8):
        assert w.kind == "dense" and w.input_format in dtypes
        seen.add(w.input_format)
        finite = w.addends[np.isfinite(w.addends)]
        assert np.array_equal(finite.astype(dtypes[w.input_format]).astype(np.float64), finite)
        initial = w.initial[np.isfinite(w.initial)]
        assert np.array_equal(initial.astype(ml_dtypes.bfloat16).astype(np.float64), initial)
        wider_initial |= not np.array_equal(initial.astype(dtypes[w.input_format]).astype(np.float64), initial)
        assert '"input_format": "%s"' % w.input_format in w.case_json
    assert seen == {"e4m3", "e5m2"} and wider_initial
    plain = next(iter(accucheck.workloads("mixed_magnitudes", format="f32", seed=1, count=1)))
    assert plain.input_format is None
    rows_seen = set()
    for w in accucheck.workloads("embedding_fp8_rows", kind="sparse", format="f16", seed=5, count=40):
        assert w.kind == "sparse" and w.input_format in dtypes
        rows_seen.add(w.input_format)
        finite = w.values[np.isfinite(w.values)]
        assert np.array_equal(finite.astype(dtypes[w.input_format]).astype(np.float64), finite)
    assert rows_seen == {"e4m3", "e5m2"}


def test_a_generated_workload_saves_as_a_case_file(tmp_path):
    w = next(iter(accucheck.workloads("near_cancelling", format="f32", seed=11, count=1)))
    path = tmp_path / "case.json"
    w.save(str(path))
    out = accucheck.replay(str(path), backends=[api_loop_f32])
    assert out[0]["backend"] == "api_loop_f32" and not out[0]["violated"]
    # The oracle's exact sums, against Python's fractions of the workload's own values.
    expected = [sum(Fraction(float(x)) for x in [w.initial[j], *w.addends[:, j]]) for j in range(w.elements)]
    assert out[0]["elements"]
    for e in out[0]["elements"]:
        assert e["exact"] == float(expected[e["element"]])


STEPS_SEEN = []


@accucheck.backend(storage="f64", bound="recursive(f64)")
def api_records_steps(addends, buffer):
    STEPS_SEEN.append(addends.shape[0])
    return np.add.reduce(np.concatenate([buffer[None], addends]), axis=0)


def test_the_limits_reach_the_generators(tmp_path):
    # long chains draw T from max_steps (64) to max_long_steps
    run([api_records_steps], tmp_path, cases=20, families=["long_chain"], max_long_steps=200, format="f64")
    assert STEPS_SEEN and 64 <= min(STEPS_SEEN) and max(STEPS_SEEN) <= 200
    STEPS_SEEN.clear()
    run([api_records_steps], tmp_path, cases=20, families=["long_chain"], format="f64")
    assert max(STEPS_SEEN) > 200


@accucheck.backend(storage="f64", bound="recursive(f64)")
def api_crashes(addends, buffer):
    import ctypes
    ctypes.string_at(0)  # a segmentation fault inside C code: no exception to catch in-process


def test_isolate_runs_the_same_campaign_in_the_cli(tmp_path):
    inside = run([api_drops_last_f32, api_loop_f32], tmp_path / "in", cases=80)
    isolated = run([api_drops_last_f32, api_loop_f32], tmp_path / "cli", cases=80, isolate=True)
    assert [(b.name, b.cases, b.violations) for b in inside.backends] == \
        [(b.name, b.cases, b.violations) for b in isolated.backends]
    assert [os.path.basename(f.case_file) for f in inside.findings] == \
        [os.path.basename(f.case_file) for f in isolated.findings]
    assert inside.violations == isolated.violations > 0
    assert "api_drops_last_f32" in isolated.table


def test_jobs_run_the_same_campaign_in_worker_processes(tmp_path, monkeypatch):
    one = run([api_drops_last_f32, api_loop_f32], tmp_path / "one", cases=80)
    # The CLI behind a wrapper that records its arguments: jobs=3 must reach it as --jobs 3.
    calls = tmp_path / "calls.txt"
    wrapper = tmp_path / "accucheck_wrapper.sh"
    wrapper.write_text('#!/bin/sh\necho "$*" >> %s\nexec %s "$@"\n' % (calls, accucheck._cli_binary()))
    wrapper.chmod(0o755)
    monkeypatch.setenv("ACCUCHECK_CLI", str(wrapper))
    three = run([api_drops_last_f32, api_loop_f32], tmp_path / "three", cases=80, jobs=3)
    assert "--jobs 3" in calls.read_text()
    assert [(b.name, b.cases, b.violations, b.max_ratio) for b in one.backends] == \
        [(b.name, b.cases, b.violations, b.max_ratio) for b in three.backends]
    assert [os.path.basename(f.case_file) for f in one.findings] == \
        [os.path.basename(f.case_file) for f in three.findings]
    assert one.violations == three.violations > 0
    assert three.results["cases_per_stream"] == 80
    with pytest.raises(ValueError, match="jobs: 0 is not a number of processes"):
        run([api_loop_f32], tmp_path, cases=1, jobs=0)


def test_isolate_contains_a_crash_in_c_code(tmp_path):
    r = run([api_crashes], tmp_path, cases=2, isolate=True)
    assert "backend-failed" in r.backends[0].violations
    assert any("SIGSEGV" in f for f in r.backends[0].failures), r.backends[0].failures


def test_a_case_file_says_how_to_load_the_python_backend_again(tmp_path):
    # found_by names the backend's file with --python, whether globs select it or none are given
    # (every backend: in a fresh interpreter, so that only the built-ins and this one are registered)
    module = tmp_path / "one_backend.py"
    module.write_text("import accucheck\n"
                      "@accucheck.backend(storage='f32', bound='recursive(f32)')\n"
                      "def found_by_drops_last(addends, buffer):\n"
                      "    for row in addends[:-1]:\n"
                      "        buffer += row\n")
    for selection in ("['found_by_drops_last']", "None"):
        findings = tmp_path / ("some" if selection != "None" else "all")
        code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import one_backend, accucheck, json\n"
                f"r = accucheck.check({selection}, cases=40, seed=1, format='f32', findings={str(findings)!r})\n"
                "mine = [f for f in r.findings if f.backend == 'found_by_drops_last']\n"
                "print(json.load(open(mine[0].case_file))['found_by'])\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert "--python " + str(module) in out.stdout, (selection, out.stdout)
