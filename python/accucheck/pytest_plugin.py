"""pytest plugin: the `accucheck_check` fixture checks backends and fails the test with the
verdict table and the replay commands of what it found.

    import accucheck

    @accucheck.backend(storage="f32", bound="recursive(f32)")
    def my_sum(addends, buffer):
        for row in addends:
            buffer += row

    def test_my_sum(accucheck_check):
        accucheck_check(my_sum, cases=200, seed=1)

Installed with the package it is a pytest11 entry point (pyproject.toml); from a build tree,
`pytest -p accucheck.pytest_plugin`. Findings go to pytest's tmp_path unless findings= is given.
ACCUCHECK_SEED sets the seed of every check that names none (a failing CI seed reproduced).
"""
from __future__ import annotations

import os

import pytest

import accucheck


def _failure_text(result: accucheck.CheckResult) -> str:
    lines = [f"accucheck: {result.violations} violation(s), seed {result.seed}", result.table]
    for f in result.findings:
        lines.append(f"replay: {f.replay_command}")
    return "\n".join(lines)


@pytest.fixture
def accucheck_check(tmp_path):
    """Runs accucheck.check(backends, **options) and fails the test on any violation."""

    def run(backends, **options) -> accucheck.CheckResult:
        options.setdefault("findings", str(tmp_path / "findings"))
        if "seed" not in options and os.environ.get("ACCUCHECK_SEED"):
            options["seed"] = int(os.environ["ACCUCHECK_SEED"])
        if "cases" not in options and "seconds" not in options and "minutes" not in options:
            options["cases"] = 200
        result = accucheck.check(backends, **options)
        if not result.ok:
            pytest.fail(_failure_text(result), pytrace=False)
        return result

    return run
