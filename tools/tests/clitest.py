"""Shared helpers of the CLI tests: run accucheck, check its exit status and output."""
import os
import subprocess
import sys


class Failure(Exception):
    pass


def clean_env(extra=None):
    env = dict(os.environ)
    for k in ("ACCUCHECK_PLUGINS", "ACCUCHECK_PLUGIN_ISOLATION", "ACCUCHECK_PLUGIN_TIMEOUT", "ACCUCHECK_PLUGIN_MEMORY"):
        env.pop(k, None)
    env.update(extra or {})
    return env


def run(binary, args, expect, cwd=None, env=None, timeout=240):
    """Runs `binary args`; fails unless the exit status is `expect`. Returns the process."""
    proc = subprocess.run([binary] + [str(a) for a in args], cwd=cwd, env=clean_env(env), capture_output=True, text=True,
                          timeout=timeout)
    shown = " ".join(str(a) for a in args)
    print("$ accucheck %s   -> exit %d" % (shown, proc.returncode))
    if proc.returncode != expect:
        print("stdout:\n" + proc.stdout[-6000:] + "\nstderr:\n" + proc.stderr[-6000:])
        raise Failure("accucheck %s: exit %d, expected %d" % (shown, proc.returncode, expect))
    return proc


def require(condition, what):
    if not condition:
        raise Failure(what)


def main(body):
    try:
        body()
    except Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)
    print("ok")
