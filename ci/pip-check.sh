#!/usr/bin/env bash
# The README's install command for the Python package, checked as a user meets it: `pip install .`
# into each given interpreter's environment (the build isolated by pip), then a correct backend
# passed and a wrong one caught, and the pytest plugin's documented example, from a directory
# outside the source tree.
#
# Usage: ci/pip-check.sh PYTHON...   (ci/fresh-check.sh: a new venv of Debian's python3;
#                                     ci/nightly.sh: also .envs/py311-numpy1, numpy 1.23)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: ci/pip-check.sh PYTHON..." >&2; exit 2; }
scratch="$(mktemp -d "${TMPDIR:-/tmp}/accucheck-pip.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

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
print(f"pip-check: the installed package (Python {sys.version.split()[0]}, numpy {numpy.__version__}) passes a "
      "correct backend and catches a wrong one")
PY
cat > "$scratch/documented_example.py" <<'PY'
import textwrap
import accucheck.pytest_plugin as plugin
lines = plugin.__doc__.splitlines()
start = next(i for i, line in enumerate(lines) if line.startswith("    "))
end = next(i for i in range(start, len(lines)) if lines[i] and not lines[i].startswith("    "))
print(textwrap.dedent("\n".join(lines[start:end])))
PY
for python in "$@"; do
  started=$SECONDS
  "$python" -m pip install --quiet --disable-pip-version-check . pytest==9.2.0
  # The pytest plugin's documented example (its docstring's first indented block), as a user
  # copies it into a test file.
  (cd "$scratch" && "$python" documented_example.py >test_pip_plugin.py)
  (cd "$scratch" && "$python" pip_check.py && "$python" -m pytest -q -p no:cacheprovider test_pip_plugin.py)
  echo "pip-check: $python: install and checks took $((SECONDS - started)) s"
done
