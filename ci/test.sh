#!/usr/bin/env bash
# Everything needed, then all tests: install dependencies, configure, build, run ctest.
# Usage: ci/test.sh            (the `default` preset: g++, RelWithDebInfo)
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
bash ci/install-deps.sh
bash ci/python-envs.sh  # the interpreters the --python worker is tested in (python/tests/test_interpreters.py)
echo "test.sh: dependencies took $((SECONDS - started)) s"; started=$SECONDS
cmake --preset default -DACCUCHECK_MPI=ON  # the MPI_Allreduce backends must be built and tested here
cmake --build --preset default
echo "test.sh: configure and build took $((SECONDS - started)) s"; started=$SECONDS
ctest --preset default
echo "test.sh: ctest took $((SECONDS - started)) s"
