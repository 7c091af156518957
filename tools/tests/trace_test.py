#!/usr/bin/env python3
"""accucheck trace through the CLI.

--mode committed     the traces in examples/traces (dense f32, f16, bf16 with --bf16; an
                     embedding's indices + rows) run through every backend of their format:
                     exit 0, the table, and the JSON.
--mode numpy         traces written by numpy itself (numpy.save, and numpy.lib.format version
                     2.0 and 3.0 headers; every dtype; int32 and int64 indices; (T, B) and (P,)
                     layouts; FP8 bit patterns written by ml_dtypes, with --fp8); the exact sum
                     of a one-element trace agrees with math.fsum; arrays
                     numpy saves Fortran-ordered or big-endian are refused (exit 2).
                     Needs numpy: ctest runs this with the venv ci/install-deps.sh makes (ci/python-requirements.txt).
--mode wrong_plugin  a wrong plugin is caught on a trace (exit 1) and its finding replays (exit 1).
"""
import argparse
import glob
import json
import math
import os
import struct
import sys
import tempfile

from clitest import Failure, main, require, run


def table_rows(stdout, storage):
    return [l for l in stdout.splitlines() if len(l.split()) > 2 and l.split()[1] == storage]


def mode_committed(args, tmp):
    a = args.accucheck
    traces = os.path.join(args.source, "examples", "traces")
    f32 = os.path.join(traces, "softmax_weight_grad_f32.npy")
    f16 = os.path.join(traces, "softmax_weight_grad_f16.npy")
    bf16 = os.path.join(traces, "softmax_weight_grad_bf16.npy")
    idx = os.path.join(traces, "embedding_indices.npy")
    rows = os.path.join(traces, "embedding_rows.npy")
    proc = run(a, ["trace", f32, "--findings", os.path.join(tmp, "f")], 0)
    require("16 steps x 32 elements" in proc.stderr, "the trace's shape is not reported: " + proc.stderr)
    require(len(table_rows(proc.stdout, "f32")) >= 5 and not table_rows(proc.stdout, "f16"), "f32 backends only: " + proc.stdout)
    require("no violations" in proc.stdout, "summary")
    run(a, ["trace", f16], 0)
    # bf16 needs the flag: uint16 alone is refused with a hint.
    refused = run(a, ["trace", bf16], 2)
    require("--bf16" in refused.stderr, "no --bf16 hint")
    proc = run(a, ["trace", bf16, "--bf16"], 0)
    require(table_rows(proc.stdout, "bf16"), "no bf16 backend ran")
    # Embedding traces run on every backend with sparse support: the good example plugin's
    # (and the built-in ones that have it).
    results = os.path.join(tmp, "trace.json")
    proc = run(a, ["trace", "--indices", idx, "--rows", rows, "--json", results, "--plugin", args.good], 0)
    require("example.kahan_f32" in proc.stdout, "the plugin's sparse backend did not run")
    require("embedding gradient, 16 step(s), 96 pairs" in proc.stderr, "the embedding trace is not described: " + proc.stderr)
    data = json.load(open(results))
    require(data["tool"] == "accucheck trace", "tool")
    require(data["backends"] and all(b["storage"] == "f32" for b in data["backends"]), "backends of the trace's format")
    require(all(s["family"] == "trace:embedding_rows.npy" for b in data["backends"] for s in b["samples"]), "sample families")
    # Several dense traces at once, with the report options.
    run(a, ["trace", f32, f16, "--chunk", 7, "--json", os.path.join(tmp, "all.json"), "--html", os.path.join(tmp, "all.html")], 0)
    data = json.load(open(os.path.join(tmp, "all.json")))
    cases = {b["storage"]: b["cases"] for b in data["backends"]}
    require(cases == {"f32": 5, "f16": 5}, "32 elements in chunks of 7 are 5 cases per file: %s" % cases)
    require(os.path.getsize(os.path.join(tmp, "all.html")) > 10000, "no HTML report")


def mode_numpy(args, tmp):
    try:
        import numpy as np
    except ImportError:
        raise Failure("numpy is not installed for %s (ctest runs the tests with the interpreter CMake chose, ACCUCHECK_PYTHON: run ci/install-deps.sh)"
                      % sys.executable)
    a = args.accucheck
    rng = np.random.default_rng(7)
    t = lambda name: os.path.join(tmp, name)
    # A training run's per-micro-batch gradients, as numpy.save writes them.
    grads = (rng.standard_normal((12, 3, 5)) * np.logspace(-6, 3, 5)).astype(np.float64)
    np.save(t("g64.npy"), grads)
    np.save(t("g32.npy"), grads.astype(np.float32))
    np.save(t("g16.npy"), (grads * 1e-3).astype(np.float16))
    f32 = grads.astype(np.float32)
    bits = f32.view(np.uint32).astype(np.uint64)
    bf16 = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)  # round to nearest even
    np.save(t("gbf16.npy"), bf16)
    with open(t("g32_v2.npy"), "wb") as f:
        np.lib.format.write_array(f, f32, version=(2, 0))
    with open(t("g32_v3.npy"), "wb") as f:
        np.lib.format.write_array(f, f32, version=(3, 0))
    for name, flag in (("g64.npy", []), ("g32.npy", []), ("g16.npy", []), ("gbf16.npy", ["--bf16"]), ("g32_v2.npy", []),
                       ("g32_v3.npy", [])):
        proc = run(a, ["trace", t(name), "--findings", t("f")] + flag, 0)
        require("12 steps x 15 elements (shape (12, 3, 5))" in proc.stderr, name + ": " + proc.stderr)
    # Embedding traces: (T, B) int64 with rows (T, B, dim); (P,) int32 with rows (P, dim).
    idx = rng.integers(0, 9, size=(5, 4))
    np.save(t("idx64.npy"), idx.astype(np.int64))
    np.save(t("rows3.npy"), rng.standard_normal((5, 4, 3)).astype(np.float32))
    run(a, ["trace", "--indices", t("idx64.npy"), "--rows", t("rows3.npy"), "--vocab", 12, "--plugin", args.good], 0)
    np.save(t("idx32.npy"), idx.reshape(-1).astype(np.int32))
    np.save(t("rows2.npy"), rng.standard_normal((20, 3)).astype(np.float16))
    run(a, ["trace", "--indices", t("idx32.npy"), "--rows", t("rows2.npy"), "--plugin", args.good], 0)
    proc = run(a, ["trace", "--indices", t("idx32.npy"), "--rows", t("rows3.npy"), "--plugin", args.good], 0)
    require("5 step(s), 20 pairs" in proc.stderr, "(P,) indices with (T, B, dim) rows: " + proc.stderr)
    # One element: the exact sum agrees with math.fsum (correctly rounded) of the same values.
    column = (rng.standard_normal(300) * 10.0 ** rng.integers(-8, 8, 300)).astype(np.float32)
    np.save(t("one.npy"), column)
    run(a, ["trace", t("one.npy"), "--backend", "naive_f32", "--json", t("one.json")], 0)
    sample = json.load(open(t("one.json")))["backends"][0]["samples"][0]
    expected = math.fsum(float(x) for x in column)
    require(sample["n"] == 301, "n counts the +0 initial value: %s" % sample["n"])
    require(sample["exact"] == expected, "exact sum %r, math.fsum %r" % (sample["exact"], expected))
    require(sample["abs_sum"] == math.fsum(abs(float(x)) for x in column), "sum |x|")
    # FP8 gradients as uint8 bit patterns, encoded by ml_dtypes (independent of accucheck's
    # decoder), accumulated into f32 (the default) or --as bf16 buffers; the exact sum of one
    # element agrees with math.fsum of ml_dtypes' decoded values.
    import ml_dtypes
    g8 = np.clip(grads, -448, 448).astype(ml_dtypes.float8_e4m3fn)
    np.save(t("g8.npy"), g8.view(np.uint8))
    require("--fp8 e4m3 or --fp8 e5m2" in run(a, ["trace", t("g8.npy")], 2).stderr, "uint8 without --fp8: no hint")
    proc = run(a, ["trace", t("g8.npy"), "--fp8", "e4m3", "--findings", t("f")], 0)
    require("e4m3 into f32, 12 steps x 15 elements" in proc.stderr, "FP8 trace: " + proc.stderr)
    require(table_rows(proc.stdout, "f32") and not table_rows(proc.stdout, "bf16"), "f32 buffers: " + proc.stdout)
    proc = run(a, ["trace", t("g8.npy"), "--fp8", "e4m3", "--as", "bf16", "--findings", t("f")], 0)
    require(table_rows(proc.stdout, "bf16") and not table_rows(proc.stdout, "f32"), "--as bf16 buffers: " + proc.stdout)
    column8 = (rng.standard_normal(200) * 2.0 ** rng.integers(-14, 14, 200)).astype(ml_dtypes.float8_e5m2)
    column8 = column8[np.isfinite(column8.astype(np.float64))]
    np.save(t("one8.npy"), column8.view(np.uint8))
    run(a, ["trace", t("one8.npy"), "--fp8", "e5m2", "--backend", "naive_f32", "--json", t("one8.json")], 0)
    sample = json.load(open(t("one8.json")))["backends"][0]["samples"][0]
    require(sample["exact"] == math.fsum(float(x) for x in column8.astype(np.float64)), "FP8 exact sum vs math.fsum")
    np.save(t("rows8.npy"), rng.standard_normal((20, 3)).astype(ml_dtypes.float8_e5m2).view(np.uint8))
    proc = run(a, ["trace", "--indices", t("idx32.npy"), "--rows", t("rows8.npy"), "--fp8", "e5m2", "--plugin", args.good], 0)
    require("e5m2 into f32 embedding gradient" in proc.stderr, "FP8 embedding trace: " + proc.stderr)
    require("is not an FP8 format" in run(a, ["trace", t("g8.npy"), "--fp8", "f16"], 2).stderr, "--fp8 f16")
    require("give one" in run(a, ["trace", t("g8.npy"), "--fp8", "e4m3", "--bf16"], 2).stderr, "--fp8 with --bf16")
    require("--fp8 reads uint8 arrays" in run(a, ["trace", t("g32.npy"), "--fp8", "e5m2"], 2).stderr, "--fp8 on float32")
    # What numpy can save but accucheck refuses, with the reason.
    np.save(t("fortran.npy"), np.asfortranarray(f32[:, :, 0]))
    require("fortran_order is True" in run(a, ["trace", t("fortran.npy")], 2).stderr, "Fortran order")
    np.save(t("big.npy"), f32.astype(">f4"))
    require("big-endian" in run(a, ["trace", t("big.npy")], 2).stderr, "big-endian")
    np.save(t("complex.npy"), f32.astype(np.complex64))
    require("'<c8' is not supported" in run(a, ["trace", t("complex.npy")], 2).stderr, "complex")


def mode_wrong_plugin(args, tmp):
    a = args.accucheck
    f32 = os.path.join(args.source, "examples", "traces", "softmax_weight_grad_f32.npy")
    findings = os.path.join(tmp, "findings")
    proc = run(a, ["trace", f32, "--plugin", args.wrong, "--backend", "example_wrong.*", "--findings", findings], 1)
    found = sorted(glob.glob(os.path.join(findings, "example_wrong.elemwise_sum_f32_*.json")))
    require(found, "no finding for the wrong plugin")
    case = json.load(open(found[0]))
    require(case["found_by"].startswith("accucheck trace ") and case["family"].startswith("trace:"), "provenance of the finding")
    replay = run(a, ["replay", found[0], "--plugin", args.wrong], 1)
    require("VIOLATED" in replay.stdout, "replay")
    # An FP8 trace (uint8 bit patterns, written here without numpy: E4M3 1.0 is 0x38, 1.125
    # 0x39, 0.5 0x30, -0.75 0xb4): the finding's case file keeps the addends' format.
    steps, elements = 16, 4
    header = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d, %d), }" % (steps, elements)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    fp8 = os.path.join(findings, "..", "fp8.npy")
    with open(fp8, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(bytes([0x38, 0x39, 0x30, 0xb4] * steps))
    fp8_findings = os.path.join(tmp, "fp8_findings")
    run(a, ["trace", fp8, "--fp8", "e4m3", "--plugin", args.wrong, "--backend", "example_wrong.*", "--findings", fp8_findings], 1)
    found = sorted(glob.glob(os.path.join(fp8_findings, "*.json")))
    require(found, "no finding on the FP8 trace")
    case = json.load(open(found[0]))
    require(case.get("input_format") == "e4m3" and case["format"] == "f32", "the FP8 finding's formats: %s" % case)
    require("--fp8 e4m3" in case["found_by"], "provenance: " + case["found_by"])
    require("VIOLATED" in run(a, ["replay", found[0], "--plugin", args.wrong], 1).stdout, "FP8 replay")


def body():
    parser = argparse.ArgumentParser()
    for option in ("--accucheck", "--source", "--wrong", "--good", "--mode"):
        parser.add_argument(option)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="accucheck_trace_test_") as tmp:
        {"committed": mode_committed, "numpy": mode_numpy, "wrong_plugin": mode_wrong_plugin}[args.mode](args, tmp)


if __name__ == "__main__":
    main(body)
