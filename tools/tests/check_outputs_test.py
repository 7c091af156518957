#!/usr/bin/env python3
"""accucheck check over every shipped backend: exit 0, the table (one row per backend with its
format, cases, violations, max error/bound, max ulps, determinism), and the JSON and JUnit XML
it writes for machines and CI."""
import argparse
import json
import os
import tempfile
import xml.etree.ElementTree as ET

from clitest import main, require, run


def body():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accucheck")
    args = parser.parse_args()
    a = args.accucheck
    with tempfile.TemporaryDirectory(prefix="accucheck_check_test_") as tmp:
        listed = json.loads(run(a, ["list", "--json"], 0).stdout)["backends"]
        names = [b["name"] for b in listed]
        j, x = os.path.join(tmp, "r.json"), os.path.join(tmp, "r.xml")
        proc = run(a, ["check", "--cases", 120, "--seed", 11, "--findings", os.path.join(tmp, "f"), "--json", j, "--junit", x], 0)
        header = proc.stdout.strip().splitlines()[0].split()
        require(header[:4] == ["backend", "format", "stated", "bound"] and "determinism" in header, "table header: %s" % header)
        rows = {l.split()[0]: l for l in proc.stdout.splitlines() if l.split() and l.split()[0] in names}
        require(sorted(rows) == sorted(names), "the table lacks backends: %s" % (set(names) - set(rows)))
        require("no violations" in proc.stdout.splitlines()[-1], "summary line")
        require("accucheck check: " in proc.stderr, "no progress line on a non-TTY stderr")
        data = json.load(open(j))
        require([b["name"] for b in data["backends"]] == names, "JSON backends")
        for b in data["backends"]:
            require(b["cases"] > 0 and not b["violations"], b["name"] + ": cases/violations")
            require(b["samples"] and {"family", "n", "error", "bound", "ratio", "kappa", "exact", "abs_sum", "verdict"} <= set(b["samples"][0]),
                    b["name"] + ": samples")
        suite = ET.parse(x).getroot().find("testsuite")
        require(int(suite.get("tests")) == len(names) and int(suite.get("failures")) == 0, "JUnit counts")
        require(sorted(tc.get("name") for tc in suite.iter("testcase")) == sorted(names), "JUnit testcases")


if __name__ == "__main__":
    main(body)
