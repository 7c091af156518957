"""Helpers of the framework tests (test_frameworks_*.py): the CLI with its --python worker in a
framework's own environment (ci/python-envs.sh; tests/envs.py), campaigns and replays of
python/frameworks/ files and cases."""
import json
import os
import subprocess

from conftest import NIGHTLY
from envs import ROOT, interpreter

CLI = os.environ["ACCUCHECK_CLI"]
FRAMEWORKS = ROOT / "python" / "frameworks"
CASES = FRAMEWORKS / "cases"


def run_cli(framework, *args, timeout=900, env=()):
    """The CLI with its Python worker in `framework`'s environment."""
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "ACCUCHECK_PYTHON": interpreter(framework), **dict(env)})


def per_commit(cases):
    """A campaign's cases per stream: `cases` in the nightly suite, a fifth of them (at least 6)
    per commit, where these campaigns are smoke runs (every backend, every stream, few cases)."""
    return cases if NIGHTLY else min(cases, max(6, cases // 5))


def campaign(tmp_path, framework, file, globs, cases, seed=1, env=()):
    """A campaign of per_commit(cases) cases per stream; its results by backend name."""
    cases = per_commit(cases)
    out = tmp_path / "results.json"
    args = ["check", "--python", str(FRAMEWORKS / file), "--cases", str(cases), "--seed", str(seed),
            "--findings", str(tmp_path / "findings"), "--json", str(out), "--quiet"]
    for g in globs:
        args += ["--backend", g]
    r = run_cli(framework, *args, env=env)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return {b["name"]: b for b in json.load(open(out))["backends"]}, r


def assert_all_ran_within_bounds(results, prefix, cases, table):
    """Every backend named prefix* ran the per_commit(cases) cases of campaign(..., cases) within
    its bound, without failures."""
    mine = {name: b for name, b in results.items() if name.startswith(prefix)}
    assert mine, table
    for name, b in mine.items():
        assert b["cases"] == per_commit(cases), (name, b["cases"])
        assert not b["failures"], (name, b["failures"])
        assert not b["violations"], (name, b["violations"], table)
    return mine


def replay(framework, case, file, *extra, env=()):
    return run_cli(framework, "replay", str(CASES / case), "--python", str(FRAMEWORKS / file), *extra,
                   timeout=300, env=env)


def replay_json(framework, path, file, backends, env=()):
    args = [str(path), "--python", str(FRAMEWORKS / file), "--json"]
    for b in backends:
        args += ["--backend", b]
    r = run_cli(framework, "replay", *args, timeout=300, env=env)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return json.loads(r.stdout)["backends"]
