"""The project's extra Python environments (ci/python-envs.sh, ci/envs/NAME.txt, made in .envs/NAME
or under ACCUCHECK_ENVS): the interpreters the CLI's --python worker runs backend files in.

A missing environment is skipped, except under CI=true, where it fails: an environment that was
not there is a test that did not run."""
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENVS = os.environ.get("ACCUCHECK_ENVS", os.path.join(ROOT, ".envs"))

# The framework each environment holds at its newest release reachable here (ci/envs/*.txt).
FRAMEWORKS = {"torch": "torch", "numpy": "py313", "jax": "jax", "mxnet": "mxnet"}


def interpreter(name):
    """The python of environment `name` (a ci/envs/ name or a FRAMEWORKS key)."""
    name = FRAMEWORKS.get(name, name)
    python = os.path.join(ENVS, name, "bin", "python")
    if not os.path.exists(python):
        message = f"no environment {name} at {python}: run ci/python-envs.sh {name}"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: a missing interpreter is a failure, not a skip)")
        pytest.skip(message)
    return python


def without_numpy(directory):
    """A directory to put first on PYTHONPATH in which numpy and ml_dtypes are missing, as on a
    machine that lacks them (each raises ModuleNotFoundError, which torch takes as 'no numpy')."""
    blocked = Path(directory) / "without_numpy"
    for module in ("numpy", "ml_dtypes"):
        (blocked / module).mkdir(parents=True)
        (blocked / module / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{module}' (blocked by the test)\", name='{module}')\n")
    return str(blocked)
