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

# The README's install command for the Python package, in a new venv of Debian's interpreter
# (numpy 2.x and ml-dtypes from PyPI); ci/nightly.sh adds the 3.11 environment with numpy 1.23.
echo "fresh-check: pip install . into a new venv"
/usr/bin/python3 -m venv "$scratch/pip-venv"
bash ci/pip-check.sh "$scratch/pip-venv/bin/python"
echo "fresh-check: pip install . and its check took $((SECONDS - started)) s"
started=$SECONDS

# The nightly script at its smallest (every phase wired, nothing long), so that it cannot rot
# between nightly runs.
bash ci/nightly.sh --smoke
echo "fresh-check: ci/nightly.sh --smoke took $((SECONDS - started)) s"
echo "fresh-check: passed"
