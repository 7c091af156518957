#!/usr/bin/env bash
# The README's test command on a fresh clone, on a machine made hostile to it: a Python without
# numpy (a new venv without site packages) comes first on PATH, so anything that picks "the
# python3 on PATH" or relies on what this machine already has fails here instead of in a
# user's first hour. .ci/run calls it; it passes only when ci/test.sh installs and chooses
# everything itself.
#
# Usage: ci/fresh-check.sh [REV]   (default HEAD: committed work only, the clone has no
#                                   uncommitted changes). Keeps nothing: the clone is removed.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
rev="${1:-HEAD}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/accucheck-fresh.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# The hostile Python: whatever python3 this machine has first on PATH, in a bare venv.
python3 -m venv --without-pip "$scratch/hostile-python"
export PATH="$scratch/hostile-python/bin:$PATH"
if python3 -c "import numpy" 2>/dev/null; then
  echo "fresh-check: the hostile python3 ($(command -v python3)) has numpy: the check would prove nothing" >&2
  exit 1
fi
echo "fresh-check: python3 first on PATH is $(command -v python3), without numpy"

git clone -q --no-local "$repo" "$scratch/clone"
git -C "$scratch/clone" checkout -q --detach "$rev"
echo "fresh-check: ci/test.sh in a fresh clone of $(git -C "$scratch/clone" rev-parse --short HEAD)"
cd "$scratch/clone"
unset ACCUCHECK_VENV ACCUCHECK_PYTHON
started=$SECONDS
bash ci/test.sh
echo "fresh-check: ci/test.sh took $((SECONDS - started)) s"
started=$SECONDS

# The README's install command for the Python package, in two environments: a new venv of
# Debian's interpreter (numpy 2.x and ml-dtypes from PyPI, the build isolated by pip), and the
# project's Python 3.11 environment pinned to numpy 1.23 (ci/envs/py311-numpy1.txt, made by
# ci/test.sh); then the first example's check and the pytest plugin in each.
echo "fresh-check: pip install . into a new venv"
/usr/bin/python3 -m venv "$scratch/pip-venv"
cat > "$scratch/pip_check.py" <<'PY'
import sys
import accucheck
import numpy

@accucheck.backend(storage="f32", bound="recursive(f32)")
def fresh_loop_f32(addends, buffer):
    for row in addends:
        buffer += row

@accucheck.backend(storage="f32", bound="recursive(f32)")
def fresh_drops_last_f32(addends, buffer):
    for row in addends[:-1]:
        buffer += row

good = accucheck.check([fresh_loop_f32], cases=100, seed=1, findings="pip-findings")
bad = accucheck.check([fresh_drops_last_f32], cases=100, seed=1, findings="pip-findings")
print(good.table)
assert good.ok and not bad.ok and bad.findings, (good.table, bad.table)
print(f"fresh-check: the installed package (Python {sys.version.split()[0]}, numpy {numpy.__version__}) passes a "
      "correct backend and catches a wrong one")
PY
cat > "$scratch/test_pip_plugin.py" <<'PY'
import accucheck

@accucheck.backend(storage="f64", bound="recursive(f64)")
def plugin_loop_f64(addends, buffer):
    for row in addends:
        buffer += row

def test_the_pytest_plugin_checks_a_backend(accucheck_check):
    accucheck_check(plugin_loop_f64, cases=50, seed=2)
PY
for python in "$scratch/pip-venv/bin/python" "$PWD/.envs/py311-numpy1/bin/python"; do
  "$python" -m pip install --quiet --disable-pip-version-check . pytest==9.2.0
  (cd "$scratch" && "$python" pip_check.py && "$python" -m pytest -q -p no:cacheprovider test_pip_plugin.py)
done
echo "fresh-check: pip install . and its check took $((SECONDS - started)) s"
echo "fresh-check: passed"
