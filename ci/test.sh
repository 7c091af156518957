#!/usr/bin/env bash
# Everything needed, then all tests: install dependencies, configure, build, run ctest.
# Usage: ci/test.sh            (the `default` preset: g++, RelWithDebInfo)
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh
cmake --preset default -DACCUCHECK_MPI=ON  # the MPI_Allreduce backends must be built and tested here
cmake --build --preset default
ctest --preset default
