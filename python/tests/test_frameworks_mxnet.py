"""MXNet 1.9.1's accumulators (python/frameworks/mxnet_backends.py) in campaigns with oneDNN on and
off, and the seed's mxnet-16686 CPU reproduction on MXNet itself, in the mxnet environment.
docs/frameworks.md, "MXNet 1.9.1"."""
import json
import subprocess

import pytest

from envs import interpreter
from frameworks_cli import CLI, FRAMEWORKS, assert_all_ran_within_bounds, campaign


@pytest.mark.parametrize("onednn", ["1", pytest.param("0", marks=pytest.mark.nightly)])  # oneDNN off at night
def test_mxnet_ops_hold_their_bounds(tmp_path, onednn):
    results, r = campaign(tmp_path, "mxnet", "mxnet_backends.py", ["mxnet.*"], cases=40,
                          env={"MXNET_MKLDNN_ENABLED": onednn})
    assert len(assert_all_ran_within_bounds(results, "mxnet.", 40, r.stdout)) == 7


def test_mxnet_16686_cpu_on_mxnet_itself(tmp_path):
    # The seed's CPU reproduction on MXNet 1.9.1 (docs/frameworks.md, "MXNet 1.9.1"): 'add' equals
    # manual bit for bit and both are the correctly rounded sum of the two step gradients, with
    # oneDNN on and off; without oneDNN MXNet's tensors are the scenario's manual ones, element by
    # element, and the scenario's 'add' (1.6's unrounded product) is not what 1.9.1 computes.
    out = tmp_path / "mx16686.json"
    r = subprocess.run([interpreter("mxnet"), str(FRAMEWORKS / "mxnet_16686_cpu.py"), "--accucheck", CLI,
                        "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    settings = json.load(open(out))["settings"]
    assert set(settings) == {"1", "0"}, settings.keys()
    for setting, result in settings.items():
        assert result["info"]["mxnet"] == "1.9.1"
        for name, t in result["tensors"].items():
            assert t["add_eq_manual_bits"] == t["n"], (setting, name, t)
            assert t["add_correctly_rounded"] == t["n"] and t["manual_correctly_rounded"] == t["n"], (setting, name, t)
    without = settings["0"]["tensors"]
    for name, t in without.items():
        assert t["mx_manual_eq_scen_manual"] == t["n"], (name, t)
    assert without["dense0_weight"]["mx_add_eq_scen_add"] < without["dense0_weight"]["n"], without["dense0_weight"]
