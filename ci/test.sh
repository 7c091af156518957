#!/usr/bin/env bash
# Everything needed, then all tests: install dependencies, configure, build, run ctest.
# Usage: ci/test.sh            (the `default` preset: g++, RelWithDebInfo)
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh
cmake --preset default
cmake --build --preset default
ctest --preset default
