"""Case files written by the previous release replay unchanged (previous_release/README.md):
every case exits 1 and prints what that release's replay printed, byte for byte."""
import argparse
import glob
import os

from clitest import Failure, main, require, run

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "previous_release")
parser = argparse.ArgumentParser()
parser.add_argument("--accucheck", required=True)
parser.add_argument("--wrong", required=True, help="the wrong example plugin")
args = parser.parse_args()


def body():
    cases = sorted(glob.glob(os.path.join(here, "*.json")))
    require(len(cases) == 3, "expected the 3 committed cases, found %d" % len(cases))
    for path in cases:
        name = os.path.basename(path)
        with open(path[: -len(".json")] + ".replay.txt") as f:
            expected = f.read()
        proc = run(args.accucheck, ["replay", "--plugin", args.wrong, name], expect=1, cwd=here)
        got = proc.stdout + proc.stderr
        if got != expected:
            print("expected:\n" + expected + "\ngot:\n" + got)
            raise Failure(name + ": replay output differs from the previous release's")


main(body)
