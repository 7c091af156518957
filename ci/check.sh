#!/usr/bin/env bash
# The main job: build accucheck and run a short campaign over every backend, printing the
# verdict table. Exit status is accucheck's: 0 nothing violated, 1 a violation, 2 usage error.
# Arguments go to `accucheck check`; without any, the campaign runs for two minutes
# (`ci/check.sh --minutes 10`, `ci/check.sh --backend 'kahan_*' --cases 500`, ...).
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target accucheck

./build/accucheck list
[ $# -gt 0 ] || set -- --minutes 2
./build/accucheck check "$@"
