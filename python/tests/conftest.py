"""The split between the per-commit suite and the nightly one (docs/testing.md): a test marked
`nightly` runs only where ACCUCHECK_NIGHTLY=1 (ci/nightly.sh's ctest label `nightly`), and
per_commit(n) is the size a campaign takes per commit, n itself at night."""
import os

import pytest

NIGHTLY = os.environ.get("ACCUCHECK_NIGHTLY") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "nightly: runs only in the nightly suite (ACCUCHECK_NIGHTLY=1)")


def pytest_collection_modifyitems(config, items):
    if NIGHTLY:
        return
    skip = pytest.mark.skip(reason="nightly only (ACCUCHECK_NIGHTLY=1; ci/nightly.sh)")
    for item in items:
        if "nightly" in item.keywords:
            item.add_marker(skip)
