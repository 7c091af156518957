#!/usr/bin/env python3
"""`accucheck check` catches every planted bug: accucheck_with_mutants (the CLI with impls/mutants
registered beside the product's backends) runs `check --backend MUTANT --fail-fast` for each
mutant, with a fixed seed and a budget of --seconds; each must exit 1 with a case file written.
The budget is the campaign's own time limit (a mutant not caught within it is a harness bug), not
a timing assertion; the seconds and cases each took are printed (docs/detection.md)."""
import argparse
import json
import os
import re
import tempfile
import time

from clitest import Failure, main, require, run


def body():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accucheck", help="the product's CLI (its backends are not mutants)")
    parser.add_argument("--with-mutants", help="accucheck_with_mutants")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    product = {b["name"] for b in json.loads(run(args.accucheck, ["list", "--json"], 0).stdout)["backends"]}
    listed = [b["name"] for b in json.loads(run(args.with_mutants, ["list", "--json"], 0).stdout)["backends"]]
    mutants = [n for n in listed if n not in product]
    require(len(mutants) >= 21, "accucheck_with_mutants lists %d mutants" % len(mutants))
    missed = []
    with tempfile.TemporaryDirectory(prefix="accucheck_mutants_") as tmp:
        for m in mutants:
            findings = os.path.join(tmp, m)
            start = time.monotonic()
            try:
                proc = run(args.with_mutants, ["check", "--backend", m, "--fail-fast", "--minutes", args.seconds / 60, "--seed",
                                               args.seed, "--quiet", "--findings", findings], 1, timeout=args.seconds + 120)
            except Failure as e:
                print("MUTANT %-40s MISSED: %s" % (m, e))
                missed.append(m)
                continue
            elapsed = time.monotonic() - start
            cases = re.search(r"(\d+) cases per format x workload stream", proc.stdout)
            written = os.listdir(findings) if os.path.isdir(findings) else []
            print("MUTANT %-40s exit %d  %6.2f s  %s cases  %s" % (m, proc.returncode, elapsed, cases.group(1) if cases else "?",
                                                                 written[0] if written else "no case file"))
            if not written:
                missed.append(m)
    require(not missed, "check missed %s within %g s (seed %d): a harness bug" % (", ".join(missed), args.seconds, args.seed))


if __name__ == "__main__":
    main(body)
