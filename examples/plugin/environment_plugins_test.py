#!/usr/bin/env python3
"""ACCUCHECK_PLUGINS reaches the property suite and the fuzz targets (issue 7: "an environment
variable names plugins for those"): the command given after `--` runs once with the correct
example plugin, which must pass and must actually have been checked (its backends named in the
output), and once with the deliberately wrong one, which must fail naming a wrong backend.

usage: environment_plugins_test.py --good LIB --wrong LIB --good-pattern TEXT -- COMMAND...
The command may contain {prefix}: the backend name prefix of the plugin of that run
(example. or example_wrong.), for filters such as ACCUCHECK_FUZZ_BACKENDS."""
import argparse
import os
import subprocess
import sys


def run(command, plugin, prefix):
    env = dict(os.environ, ACCUCHECK_PLUGINS=plugin)
    argv = [part.replace("{prefix}", prefix) for part in command]
    env = {k: v.replace("{prefix}", prefix) for k, v in env.items()}
    proc = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=500)
    return proc.returncode, proc.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--good", required=True)
    parser.add_argument("--wrong", required=True)
    parser.add_argument("--good-pattern", required=True, help="text the good run must print (its backends ran)")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for both runs ({prefix} allowed)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    for item in args.env:
        name, _, value = item.partition("=")
        os.environ[name] = value

    failures = []
    rc, out = run(command, args.good, "example.")
    if rc != 0:
        failures.append(f"with the correct plugin the command failed (exit {rc}):\n{out[-3000:]}")
    elif args.good_pattern not in out or "no backend selected" in out:
        failures.append(f"with the correct plugin the output never mentions {args.good_pattern!r}: "
                        f"were its backends checked at all?\n{out[-3000:]}")
    rc, out = run(command, args.wrong, "example_wrong.")
    if rc == 0:
        failures.append(f"with the wrong plugin the command passed:\n{out[-3000:]}")
    elif "example_wrong" not in out:
        failures.append(f"with the wrong plugin the command failed (exit {rc}) without naming a wrong backend:\n{out[-3000:]}")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("ok: the correct plugin passes, the wrong one is caught")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
