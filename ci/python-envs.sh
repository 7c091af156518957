#!/usr/bin/env bash
# Makes the project's extra Python environments: one venv per name, .envs/NAME, from the pinned
# requirements ci/envs/NAME.txt, whose first line names the interpreter version ("# python: 3.13") and
# whose optional second line the disk the environment needs in GiB ("# disk: 9"), checked before
# anything is downloaded. The frameworks' environments (torch, jax, mxnet) are among them.
# Usage: ci/python-envs.sh [NAME...]   (default: every ci/envs/*.txt)
#
# The interpreter is the first of: pyenv's newest python<version> (~/.pyenv/versions/<version>.*),
# python<version> on PATH. A machine that has neither skips that environment and says so; under
# CI=true that fails instead, since a skipped environment is an untested one.
# Idempotent: an environment whose requirements have not changed is left as it is.
# ACCUCHECK_ENVS=DIR puts the environments elsewhere (default: .envs in the repository).
set -euo pipefail
cd "$(dirname "$0")/.."

root="${ACCUCHECK_ENVS:-$PWD/.envs}"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in ci/envs/*.txt; do names+=("$(basename "$f" .txt)"); done
fi

find_interpreter() {  # version -> path of an interpreter of that version, or nothing
  local version=$1 candidate
  for candidate in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".* 2>/dev/null | sort -V -r); do
    [ -x "$candidate/bin/python$version" ] && { echo "$candidate/bin/python$version"; return; }
  done
  command -v "python$version" 2>/dev/null || true
}

# One line per environment: the interpreter and the versions of what its requirements pin.
describe='import sys, importlib.metadata as m
pins = [l.split("==")[0] for l in open(sys.argv[1]) if "==" in l and not l.startswith("#")]
print("Python", sys.version.split()[0] + ",", ", ".join(p + " " + m.version(p) for p in pins))'
failed=0
for name in "${names[@]}"; do
  requirements="ci/envs/$name.txt"
  [ -f "$requirements" ] || { echo "python-envs: no $requirements" >&2; exit 2; }
  version=$(sed -n '1s/^# python: *//p' "$requirements")
  [ -n "$version" ] || { echo "python-envs: $requirements: its first line must be '# python: X.Y'" >&2; exit 2; }
  venv="$root/$name"
  stamp="$venv/.accucheck-requirements"
  if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$requirements" "$stamp"; then
    echo "python-envs: $name up to date ($("$venv/bin/python" -c "$describe" "$requirements"))"
    continue
  fi
  disk=$(sed -n '2s/^# disk: *//p' "$requirements")
  if [ -n "$disk" ]; then
    mkdir -p "$root"
    free=$(df -Pk "$root" | awk 'NR == 2 { print int($4 / 1048576) }')
    if [ "$free" -lt "$disk" ]; then
      echo "python-envs: $name needs about $disk GiB of disk and $root has $free GiB free" >&2
      failed=1
      continue
    fi
  fi
  python=$(find_interpreter "$version")
  if [ -z "$python" ]; then
    echo "python-envs: $name: no Python $version on this machine (pyenv or python$version on PATH)" >&2
    [ "${CI:-}" = "true" ] && failed=1
    continue
  fi
  started=$SECONDS
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
  echo "python-envs: $name made in $((SECONDS - started)) s: $("$venv/bin/python" -c "$describe" "$requirements") ($python)"
done
exit $failed
