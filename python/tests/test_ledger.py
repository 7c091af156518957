"""The findings ledger's standalone reproducers (ledger/README.md), each in the environment of the
release it records a status for, must still run and still give that status: 1 = reproduces,
0 = fixed (the reproducers' own exit codes). A changed status means the ledger is out of date."""
import subprocess

import pytest

from envs import interpreter
from frameworks_cli import ROOT

LEDGER = ROOT / "ledger"

# (reproducer, environment, exit status recorded in ledger/README.md's summary for that release)
STATUSES = [
    ("torch_sum_two_threads_16bit.py", "torch", 1),  # 1: reproduces in PyTorch 2.15.0
    ("gloo_float16_sum.py", "torch", 0),             # 2: fixed in PyTorch 2.15.0
    ("optax_multisteps_inf.py", "jax", 1),           # 6: reproduces in optax 0.2.8
]


@pytest.mark.parametrize("script,environment,status", STATUSES)
def test_reproducer_gives_the_status_the_ledger_records(script, environment, status):
    r = subprocess.run([interpreter(environment), str(LEDGER / script)], capture_output=True, text=True,
                       timeout=300, cwd=LEDGER)
    assert r.returncode == status, f"{script}: exit {r.returncode}, ledger says {status}\n{r.stdout}{r.stderr}"


def test_every_python_reproducer_is_checked():
    assert {s for s, _, _ in STATUSES} == {p.name for p in LEDGER.glob("*.py")}
