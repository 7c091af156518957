#!/usr/bin/env python3
"""accucheck's options and inputs through the CLI, where the outcome is not an error (bad input
that must be refused is in bad_inputs.py).

--mode seeds   every printed seed reproduces its run: a 20-digit seed and the random seed a
               run printed, reused with --seed, give the same table; the case file's and the
               results file's seed keep all 64 bits.
--mode cases   a case file with keys this version does not know replays (exit 0) with one
               warning line per key on stderr, naming the file and the key.
--mode numbers number and case files that must be read: a UTF-8 byte order mark at the very
               start, exact values written with thousands of trailing zeros.
--mode trace_as trace --as rounds (RNE) values that are not exact in the target format and
               keeps infinities and NaNs: such a trace runs (only finite values beyond the
               format's range are refused, in bad_inputs.py).
--mode report  report's max ulps is the check table's: 2^63-1 (an f64 backend's saturated
               distance) is 9.22e+18 in both, not -9223372036854775808; every backend of a
               real campaign shows the same cell in the table and in the report.
--mode help    every subcommand prints its synopsis for --help and -h, exit 0.
--mode plugins compare loads plugins like every command: --plugin and ACCUCHECK_PLUGINS.
"""
import json
import os
import re
import struct

from clitest import require, run
from modes import run_modes

SEED_20_DIGITS = "11133737535551991399"


def table_rows(stdout, backend):
    return [l for l in stdout.splitlines() if l.split() and l.split()[0] == backend]


def mode_seeds(args, tmp):
    a = args.accucheck
    campaign = ["check", "--backend", "naive_f32", "--cases", 30, "--findings", os.path.join(tmp, "f")]
    results = os.path.join(tmp, "r.json")
    first = run(a, campaign + ["--seed", SEED_20_DIGITS, "--json", results], 0)
    require("seed " + SEED_20_DIGITS in first.stderr, "the seed is not printed as given: " + first.stderr)
    require(json.load(open(results))["seed"] == int(SEED_20_DIGITS), "the results file's seed")
    again = run(a, campaign + ["--seed", SEED_20_DIGITS], 0)
    require(table_rows(first.stdout, "naive_f32") and table_rows(first.stdout, "naive_f32") == table_rows(again.stdout, "naive_f32"),
            "the same seed gave another table:\n%s\n%s" % (first.stdout, again.stdout))
    other = run(a, campaign + ["--seed", "1"], 0)
    require(table_rows(other.stdout, "naive_f32") != table_rows(first.stdout, "naive_f32"), "the seed changes nothing")
    # The seed a run chose itself (any of 2^64) is printed; reused, it gives the same table.
    chosen = run(a, campaign, 0)
    printed = re.search(r"seed (\d+)", chosen.stderr)
    require(printed, "no seed printed: " + chosen.stderr)
    reused = run(a, campaign + ["--seed", printed.group(1)], 0)
    require(table_rows(chosen.stdout, "naive_f32") == table_rows(reused.stdout, "naive_f32"), "the printed seed does not reproduce the run")
    # compare takes the same seeds.
    run(a, ["compare", "--backend", "naive_f32", "--n", 10, "--cases", 2, "--seed", "18446744073709551615"], 0)
    # A case file's seed keeps all 64 bits.
    case = os.path.join(tmp, "c.json")
    with open(case, "w") as f:
        f.write('{"accucheck_case": 1, "workload": "dense", "format": "f32", "seed": 18446744073709551615, "elements": 1,'
                ' "steps": 1, "initial": ["1"], "addends": [["0.5"]]}')
    run(a, ["replay", case, "--backend", "naive_f32"], 0)
    # So does a results file's: report reads the seed check wrote.
    run(a, ["report", "--html", os.path.join(tmp, "r.html"), results], 0)
    require(SEED_20_DIGITS in open(os.path.join(tmp, "r.html")).read(), "the report lost the seed")


def mode_cases(args, tmp):
    case = os.path.join(tmp, "c.json")
    with open(case, "w") as f:
        f.write('{"accucheck_case": 1, "workload": "sparse", "format": "f32", "colour": "red", "rows": 4, "dim": 1, "steps": 1,'
                ' "initial": "zeros", "pairs": [[{"row": 1, "values": ["0.5"], "weight": 2}]]}')
    proc = run(args.accucheck, ["replay", case], 0)
    warnings = [l for l in proc.stderr.splitlines() if l.strip()]
    require(len(warnings) == 2, "expected two warning lines: " + proc.stderr)
    for key in ("colour", "pairs[0][0].weight"):
        require(any(case in l and key + ": unknown key" in l for l in warnings), "no warning naming %s: %s" % (key, proc.stderr))


def mode_numbers(args, tmp):
    a = args.accucheck
    numbers = os.path.join(tmp, "n.txt")
    zeros = "0" * 5000
    with open(numbers, "wb") as f:
        f.write(b"\xef\xbb\xbf1 0.5\n" + ("0x1.%sp0 1.%s 0x0.8%s\n" % (zeros, zeros, zeros)).encode())
    proc = run(a, ["exact", "--format", "f32", "--json", numbers], 0)
    result = json.loads(proc.stdout)
    require(result["count"] == 5 and result["exact"] == "0x1p+2", "exact sum: " + proc.stdout)
    case = os.path.join(tmp, "c.json")
    with open(case, "wb") as f:
        f.write(b'\xef\xbb\xbf{"accucheck_case": 1, "workload": "dense", "format": "f32", "elements": 1, "steps": 1,'
                b' "initial": ["1.' + zeros.encode() + b'"], "addends": [["0.5"]]}')
    run(a, ["replay", case, "--backend", "naive_f32"], 0)


def npy_f4(path, rows, cols, values):
    """A little-endian float32 .npy file, written byte by byte (no numpy needed)."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + struct.pack("<%df" % len(values), *values))
    return path


def mode_trace_as(args, tmp):
    trace = npy_f4(os.path.join(tmp, "g.npy"), 3, 2, [1 + 2 ** -12, 0.1, float("inf"), 2.0, 65504.0, float("nan")])
    proc = run(args.accucheck, ["trace", trace, "--as", "f16", "--backend", "naive_f16", "--findings", os.path.join(tmp, "f")], 0)
    require(table_rows(proc.stdout, "naive_f16"), "naive_f16 did not run: " + proc.stdout)


def report_ulps(html):
    """backend -> the max ulps cell of the report's summary table (its last numeric cell)."""
    cells = {}
    for row in html.split("<tr")[1:]:
        name = re.search(r'<a href="#[^"]*">([^<]*)</a>', row)
        numbers = re.findall(r'<td class="num">([^<]*)</td>', row)
        if name and numbers:
            cells.setdefault(name.group(1), numbers[-1])
    return cells


def mode_report(args, tmp):
    a = args.accucheck
    results = os.path.join(tmp, "saturated.json")
    with open(results, "w") as f:
        json.dump({"tool": "accucheck check", "seed": 1, "backends": [
            {"name": "naive_f64", "storage": "f64", "bound": "recursive(f64)", "cases": 10, "max_ratio": 1, "max_ulps": 2 ** 63 - 1},
            {"name": "naive_f32", "storage": "f32", "bound": "recursive(f32)", "cases": 10, "max_ratio": 1, "max_ulps": 12345}]}, f)
    html = os.path.join(tmp, "r.html")
    run(a, ["report", "--html", html, results], 0)
    cells = report_ulps(open(html).read())
    require(cells.get("naive_f64") == "9.22e+18" and cells.get("naive_f32") == "12345", "report's max ulps: %s" % cells)
    # A campaign's own table and its report agree backend by backend.
    results = os.path.join(tmp, "r.json")
    proc = run(a, ["check", "--backend", "naive_*", "--cases", 40, "--seed", 5, "--json", results, "--findings", os.path.join(tmp, "f")], 0)
    run(a, ["report", "--html", html, results], 0)
    cells = report_ulps(open(html).read())
    for backend in ("naive_f64", "naive_f32", "naive_f16", "naive_bf16"):
        rows = table_rows(proc.stdout, backend)
        require(rows, "no %s row: %s" % (backend, proc.stdout))
        table_cell = rows[0].split()[-3]  # ... max err/bound, max ulps, "checked", "Nx"
        require(cells.get(backend) == table_cell, "%s: table says %s, report %s" % (backend, table_cell, cells.get(backend)))


SUBCOMMANDS = ["list", "exact", "check", "merge", "replay", "compare", "trace", "report", "scenario"]


def mode_help(args, tmp):
    for command in SUBCOMMANDS:
        for option in ("--help", "-h"):
            proc = run(args.accucheck, [command, option], 0)
            require(proc.stdout.startswith("usage: accucheck " + command), "%s %s: %s" % (command, option, proc.stdout))
            require(not proc.stderr, "%s %s wrote to stderr: %s" % (command, option, proc.stderr))
    # Anywhere among the options, before anything is read or run.
    run(args.accucheck, ["check", "--cases", 1, "--help"], 0)


def mode_plugins(args, tmp):
    a = args.accucheck
    compare = ["compare", "--backend", "example.kahan_f32", "--n", 10, "--cases", 2]
    proc = run(a, compare + ["--plugin", args.good], 0)
    require("example.kahan_f32" in proc.stdout, "compare did not run the plugin's backend: " + proc.stdout)
    proc = run(a, compare, 0, env={"ACCUCHECK_PLUGINS": args.good})
    require("example.kahan_f32" in proc.stdout, "compare ignores ACCUCHECK_PLUGINS: " + proc.stdout)


def mode_maximize(args, tmp):
    """check --maximize: the climb's columns in the table, the times in the JSON and the HTML
    report, and each backend's worst case written as a case file that replays to the ratio reported."""
    a = args.accucheck
    findings, results, html = os.path.join(tmp, "f"), os.path.join(tmp, "r.json"), os.path.join(tmp, "r.html")
    proc = run(a, ["check", "--maximize", "--backend", "naive_f32", "--backend", "kahan_f32", "--cases", 300, "--seed", 3,
                   "--findings", findings, "--json", results, "--html", html], 0)
    require("to 0.9 s" in proc.stdout and "to 0.99 s" in proc.stdout, "no climb columns: " + proc.stdout)
    data = {b["name"]: b for b in json.load(open(results))["backends"]}
    naive = data["naive_f32"]
    require(naive["max_ratio"] >= 0.99 and "seconds_to_ratio_0_99" in naive, "naive_f32 did not reach 0.99: %s" % naive)
    require("seconds_to_ratio_0_99" not in data["kahan_f32"] or data["kahan_f32"]["max_ratio"] >= 0.99, "a time for a ratio not reached")
    for name, b in data.items():
        worst = b.get("worst_case")
        require(worst and os.path.isfile(worst), name + ": no worst case file")
        replayed = run(a, ["replay", worst, "--json"], 0)
        ratios = [e["ratio"] for e in json.loads(replayed.stdout)["backends"][0]["elements"]]
        require(abs(max(ratios) - b["max_ratio"]) <= 1e-12 * b["max_ratio"], "%s: the worst case replays to %s, not %s" % (name, max(ratios), b["max_ratio"]))
    run(a, ["report", "--html", html, results], 0)
    require("Climbing toward the bound" in open(html).read(), "the report lacks the climb's table")


MODES = {"maximize": mode_maximize, "seeds": mode_seeds, "cases": mode_cases, "numbers": mode_numbers, "trace_as": mode_trace_as, "report": mode_report, "help": mode_help, "plugins": mode_plugins}


if __name__ == "__main__":
    run_modes(MODES, "accucheck_options_test_", {"--good": "the good example plugin"})
