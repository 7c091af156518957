#!/usr/bin/env python3
"""Wide buffers through the CLI: memory proportional to the values, outputs summarised, limits
checked before allocating, and S shown exactly when the `exact` double is not S.

--mode replay_memory   replay of 10^6 and 10^7 "zeros" elements: the peak memory (max RSS of
                       the process, from wait4) at most 48 bytes per value plus 64 MiB, and a
                       printed table of the 20 most severe elements with the count per verdict.
--mode trace_memory    an embedding trace into --vocab 10^6 rows of dim 3: peak memory under
                       64 MiB, judged in cases of at most 4096 elements.
--mode replay_output   small buffers print every element; wide ones the most severe first
                       (a wrong plugin's two violations), counts, --all (text and JSON).
--mode limits          cases and traces too large for ACCUCHECK_MEMORY_LIMIT are refused before
                       allocating (exit 2, the file named); an allocation that fails anyway is "out of
                       memory" (exit 2), never a crash.
--mode exact_display   S = 16783751 - 2^-118 in f32: the exact column marks the double with `~`
                       and S follows exactly, in the table and in the JSON.
With --sanitized (ASan builds) the memory is not measured (the sanitizer's shadow and
quarantine are most of it, and it needs the address space that RLIMIT_AS would take).
"""
import argparse
import json
import os
import resource
import struct
import subprocess
import tempfile

from clitest import Failure, clean_env, main, require, run

MiB = 1 << 20


def zeros_case(path, elements, backend="naive_f32"):
    with open(path, "w") as f:
        json.dump({"accucheck_case": 1, "workload": "dense", "format": "f32", "backend": backend, "elements": elements,
                   "steps": 0, "initial": "zeros", "addends": []}, f)
    return path


def run_measured(binary, args, expect, env=None, limit_address_space=None):
    """Runs accucheck; returns (stdout, stderr, max RSS in bytes) of that process alone."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        def limit():
            if limit_address_space:
                resource.setrlimit(resource.RLIMIT_AS, (limit_address_space, limit_address_space))
        proc = subprocess.Popen([binary] + [str(a) for a in args], stdout=out, stderr=err, env=clean_env(env), preexec_fn=limit)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    shown = " ".join(str(a) for a in args)
    rss = usage.ru_maxrss * 1024
    print("$ accucheck %s   -> exit %d, max RSS %.1f MiB, %d bytes printed" % (shown, proc.returncode, rss / MiB, len(stdout)))
    if proc.returncode != expect:
        print("stdout:\n" + stdout[-4000:] + "\nstderr:\n" + stderr[-4000:])
        raise Failure("accucheck %s: exit %d, expected %d" % (shown, proc.returncode, expect))
    return stdout, stderr, rss


def table_rows(stdout):
    """The element rows of replay's tables (not the "N elements: ..." summary line)."""
    return [l for l in stdout.splitlines() if len(l.split()) >= 10 and l.split()[0].isdigit() and l.split()[1] != "elements:"]


def mode_replay_memory(args, tmp):
    for elements in (10 ** 6, 10 ** 7):
        case = zeros_case(os.path.join(tmp, "zeros.json"), elements)
        stdout, _, rss = run_measured(args.accucheck, ["replay", case], 0)
        if not args.sanitized:
            # The values (8 bytes each), the result, one copy for the properties and its result.
            require(rss <= 48 * elements + 64 * MiB,
                    "replay of %d elements used %.0f MiB (%.1f bytes per value)" % (elements, rss / MiB, rss / elements))
        require(len(stdout) < 8000, "%d bytes printed for %d elements" % (len(stdout), elements))
        require(len(table_rows(stdout)) == 20, "the 20 most severe elements: " + stdout)
        require("%d elements: ok %d; the 20 most severe shown (--all shows every element)" % (elements, elements) in stdout,
                "the count per verdict: " + stdout)


def write_npy(path, descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, "".join("%d, " % s for s in shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def mode_trace_memory(args, tmp):
    steps, batch, dim, vocab = 4, 8, 3, 10 ** 6
    indices = [(i * 7919 + 31) % vocab for i in range(steps * batch)]
    values = [((i % 13) - 6) * 0.375 for i in range(steps * batch * dim)]
    idx, rows = os.path.join(tmp, "idx.npy"), os.path.join(tmp, "rows.npy")
    write_npy(idx, "<i8", (steps, batch), struct.pack("<%dq" % len(indices), *indices))
    write_npy(rows, "<f4", (steps, batch, dim), struct.pack("<%df" % len(values), *values))
    stdout, stderr, rss = run_measured(args.accucheck, ["trace", "--indices", idx, "--rows", rows, "--vocab", vocab,
                                                        "--findings", os.path.join(tmp, "f")], 0)
    cases = (vocab + 4096 // dim - 1) // (4096 // dim)  # 1365 rows (4095 elements) per case
    require("32 pairs into 1000000 rows (32 touched) x dim 3, %d case(s)" % cases in stderr, "the trace's cases: " + stderr)
    require(" %d " % cases in stdout and "no violations" in stdout, "every case judged: " + stdout)
    if not args.sanitized:
        require(rss <= 64 * MiB, "trace into 10^6 x 3 used %.0f MiB" % (rss / MiB))


def mode_replay_output(args, tmp):
    a = args.accucheck
    small = zeros_case(os.path.join(tmp, "small.json"), 20)
    proc = run(a, ["replay", small], 0)
    require([int(l.split()[0]) for l in table_rows(proc.stdout)] == list(range(20)), "20 elements: every one, in order")
    require("most severe" not in proc.stdout, "no summary line for a small buffer")
    # Two violations among 100 elements (the wrong plugin doubles its running sum on every step
    # past the fourth): element 77 (S = 1, computed 32) before element 40 (S = 2, computed 48:
    # a smaller error relative to the bound), then ok elements by index.
    initial = ["0x0p+0"] * 100
    initial[40] = initial[77] = "0x1p+0"
    addends = [["0x0p+0"] * 100 for _ in range(5)]
    addends[0][40] = "0x1p+0"
    case = os.path.join(tmp, "wide.json")
    with open(case, "w") as f:
        json.dump({"accucheck_case": 1, "workload": "dense", "format": "f32", "backend": "example_wrong.elemwise_sum_f32",
                   "elements": 100, "steps": 5, "initial": initial, "addends": addends}, f)
    proc = run(a, ["replay", case, "--plugin", args.wrong], 1)
    shown = [(int(l.split()[0]), l.split()[-1]) for l in table_rows(proc.stdout)]
    require(shown[:3] == [(77, "bound-exceeded"), (40, "bound-exceeded"), (0, "ok")] and len(shown) == 20,
            "the most severe first: %s" % shown)
    require("100 elements: ok 98, bound-exceeded 2; the 20 most severe shown" in proc.stdout, "counts: " + proc.stdout)
    data = json.loads(run(a, ["replay", case, "--plugin", args.wrong, "--json"], 1).stdout)["backends"][0]
    require([e["element"] for e in data["elements"]][:3] == [77, 40, 0] and len(data["elements"]) == 20, "JSON: the 20 most severe")
    require(data["elements_shown"] == "most_severe" and data["verdicts"] == {"ok": 98, "bound-exceeded": 2}, "JSON counts")
    require(data["worst"] == "bound-exceeded", "JSON worst")
    proc = run(a, ["replay", case, "--plugin", args.wrong, "--all"], 1)
    require([int(l.split()[0]) for l in table_rows(proc.stdout)] == list(range(100)), "--all: every element, in order")
    data = json.loads(run(a, ["replay", case, "--plugin", args.wrong, "--json", "--all"], 1).stdout)["backends"][0]
    require([e["element"] for e in data["elements"]] == list(range(100)) and data["elements_shown"] == "all", "JSON --all")
    # --all on a wide buffer is printed as it is judged (the JSON too, in pieces).
    big = zeros_case(os.path.join(tmp, "big.json"), 300000)
    data = json.loads(run(a, ["replay", big, "--json", "--all"], 0).stdout)["backends"][0]
    require(len(data["elements"]) == 300000 and data["elements"][-1]["element"] == 299999, "JSON --all of 300000 elements")


def mode_limits(args, tmp):
    a = args.accucheck
    case = zeros_case(os.path.join(tmp, "zeros.json"), 10 ** 7)
    proc = run(a, ["replay", case], 2, env={"ACCUCHECK_MEMORY_LIMIT": "64M"})
    require(case + ": initial: 10000000 values: the workload needs about 76.3 MiB, more than the 64.0 MiB" in proc.stderr
            and "(ACCUCHECK_MEMORY_LIMIT)" in proc.stderr, "refused while reading: " + proc.stderr)
    proc = run(a, ["replay", case], 2, env={"ACCUCHECK_MEMORY_LIMIT": "200M"})
    require(case + ": replaying dense f32, 10000000 element(s) x 1 addends needs about" in proc.stderr,
            "refused before replaying: " + proc.stderr)
    explicit = os.path.join(tmp, "explicit.json")
    with open(explicit, "w") as f:
        f.write('{"accucheck_case": 1, "workload": "dense", "format": "f32", "elements": 200000, "steps": 1, '
                '"initial": "zeros", "addends": [[' + ",".join(["0"] * 200000) + "]]}")
    proc = run(a, ["replay", explicit], 2, env={"ACCUCHECK_MEMORY_LIMIT": "16M"})
    require(explicit + ": parsing its " in proc.stderr and " values needs about" in proc.stderr, "refused before parsing: " + proc.stderr)
    proc = run(a, ["replay", explicit], 2, env={"ACCUCHECK_MEMORY_LIMIT": "1M"})
    require(explicit + ": reading its " in proc.stderr and "KiB needs about" in proc.stderr, "refused before reading: " + proc.stderr)
    # A trace: an f16 file's values take 4 times its bytes as doubles (400000 + 1600000 bytes),
    # and judging a case of 4096 elements 1 KiB each.
    trace = os.path.join(tmp, "grads16.npy")
    write_npy(trace, "<f2", (4, 50000), b"\0" * (2 * 4 * 50000))
    proc = run(a, ["trace", trace], 2, env={"ACCUCHECK_MEMORY_LIMIT": "1600K"})
    require(trace + ": this trace needs about 5.9 MiB, more than the 1.6 MiB" in proc.stderr, "trace refused: " + proc.stderr)
    proc = run(a, ["trace", trace, "--chunk", 10 ** 6], 2, env={"ACCUCHECK_MEMORY_LIMIT": "40M"})
    require(trace + ": this trace needs about 50.7 MiB, more than the 40.0 MiB" in proc.stderr, "a wide --chunk: " + proc.stderr)
    proc = run(a, ["trace", trace], 2, env={"ACCUCHECK_MEMORY_LIMIT": "1M"})
    require(trace + ": header: shape (4, 50000) of <f2 is 400000 bytes, more than the limit of 349525" in proc.stderr,
            "trace refused before reading (a third of the limit): " + proc.stderr)
    proc = run(a, ["replay", case], 2, env={"ACCUCHECK_MEMORY_LIMIT": "lots"})
    require("ACCUCHECK_MEMORY_LIMIT: 'lots' is not a size" in proc.stderr, "a bad limit: " + proc.stderr)
    if not args.sanitized:
        # The estimates waved through (a limit of 1 TiB) and the address space at 1 GiB: the
        # result buffer of 10^8 elements cannot be allocated. A message and exit 2, not a crash
        # and not a verdict on the backend.
        big = zeros_case(os.path.join(tmp, "big.json"), 10 ** 8)
        _, stderr, _ = run_measured(a, ["replay", big], 2, env={"ACCUCHECK_MEMORY_LIMIT": "1T"}, limit_address_space=1 << 30)
        require("out of memory while running 'accucheck replay %s' (std::bad_alloc)" % big in stderr, "out of memory: " + stderr)
        # With the limit it finds itself (RLIMIT_AS), the same case is refused before allocating.
        _, stderr, _ = run_measured(a, ["replay", big], 2, limit_address_space=1 << 30)
        require(big + ": replaying dense f32, 100000000 element(s) x 1 addends needs about" in stderr and "RLIMIT_AS" in stderr,
                "RLIMIT_AS: " + stderr)


def mode_exact_display(args, tmp):
    a = args.accucheck
    case = os.path.join(tmp, "midpoint.json")
    with open(case, "w") as f:  # 16783752 - 1 - 2^-118: just below the f32 midpoint 16783751
        json.dump({"accucheck_case": 1, "workload": "dense", "format": "f32", "backend": "naive_f32", "elements": 1, "steps": 2,
                   "initial": ["0x1.001988p+24"], "addends": [["-0x1p+0"], ["-0x1p-118"]]}, f)
    s_hex = "0x400661bfffffffffffffffffffffffffffffp-118"  # python3 -c "print(hex((16783751<<118)-1))"
    proc = run(a, ["replay", case], 0)
    row = table_rows(proc.stdout)[0].split()
    require(row[1] == "16783751~" and row[3] == "16783750", "the exact column marks the rounded double: %s" % row)
    require("~ S = %s exactly" % s_hex in proc.stdout, "S exactly under the row: " + proc.stdout)
    element = json.loads(run(a, ["replay", case, "--json"], 0).stdout)["backends"][0]["elements"][0]
    require(element["exact"] == 16783751 and element["exact_is_rounded"] is True and element["exact_hex"] == s_hex,
            "JSON: %s" % element)
    # A sum that is a double is shown as it is.
    with open(case, "w") as f:
        json.dump({"accucheck_case": 1, "workload": "dense", "format": "f32", "backend": "naive_f32", "elements": 1, "steps": 1,
                   "initial": ["0x1p+0"], "addends": [["0x1p-3"]]}, f)
    proc = run(a, ["replay", case], 0)
    require(table_rows(proc.stdout)[0].split()[1] == "1.125" and "~" not in proc.stdout, "an exact S: " + proc.stdout)
    element = json.loads(run(a, ["replay", case, "--json"], 0).stdout)["backends"][0]["elements"][0]
    require(element["exact_is_rounded"] is False and element["exact_hex"] == "0x9p-3", "JSON of an exact S: %s" % element)


def body():
    parser = argparse.ArgumentParser()
    for option in ("--accucheck", "--wrong", "--mode"):
        parser.add_argument(option)
    parser.add_argument("--sanitized", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="accucheck_wide_test_") as tmp:
        {"replay_memory": mode_replay_memory, "trace_memory": mode_trace_memory, "replay_output": mode_replay_output,
         "limits": mode_limits, "exact_display": mode_exact_display}[args.mode](args, tmp)


if __name__ == "__main__":
    main(body)
