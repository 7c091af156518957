#!/usr/bin/env bash
# The nightly suite: what is too long for every commit (docs/testing.md, "Per commit and nightly").
# Runs every phase even after one fails, prints each phase's result and wall time, and exits 1 if
# any failed.
#   1. ctest label `nightly`: the frameworks' campaigns at full size with the tests marked
#      nightly (other CPU capabilities, oneDNN off, ...), the HTML report in Chromium, the property
#      suite through ACCUCHECK_PLUGINS;
#   2. `pip install .` into the Python 3.11 environment with numpy 1.23 (ci/pip-check.sh);
#   3. the unit and property tests under ASan + UBSan (the `asan` preset);
#   4. every fuzz target for FUZZ_SECONDS (default 60) under libFuzzer + ASan + UBSan;
#   5. the property suite with a random printed seed at 10x the cases and chains of 10^5
#      (ci/nightly-properties.sh; ACCUCHECK_MAX_LONG_STEPS=1000000 for a weekend's chains of 10^6,
#      ACCUCHECK_NIGHTLY_CASES=20000 for 100x on a machine with the cores for them).
#
# Usage: ci/nightly.sh            the whole suite: phases 1-4 about 30 min on 2 cores with the builds
#                                 current; phase 5 at its defaults about 1 h (ci/nightly-properties.sh)
#        ci/nightly.sh --smoke    every phase at its smallest: the nightly tests listed, the
#                                 sanitizer presets configured, the properties at 20 cases
#                                 (but the mutants suite)
#                                 (CI runs this after ci/test.sh, on its build; a few minutes)
set -uo pipefail
cd "$(dirname "$0")/.."

smoke=false
case "${1:-}" in
  --smoke) smoke=true ;;
  "") ;;
  *) echo "usage: ci/nightly.sh [--smoke]" >&2; exit 2 ;;
esac

failed=()
results=()
phase() {  # phase NAME COMMAND...: runs it, records its result and wall time
  local name="$1" start=$SECONDS
  shift
  echo "nightly: --- $name"
  if "$@"; then
    results+=("$(printf '%-44s passed  %5d s' "$name" $((SECONDS - start)))")
  else
    failed+=("$name")
    results+=("$(printf '%-44s FAILED  %5d s' "$name" $((SECONDS - start)))")
  fi
}

bash ci/install-deps.sh || exit 1
bash ci/python-envs.sh || exit 1
cmake --preset default -DACCUCHECK_MPI=ON >/dev/null && cmake --build --preset default || exit 1

listed_nightly_tests() {  # the label exists and holds tests (what --smoke can check without running them)
  local count
  count=$(ctest --preset nightly -N | sed -n 's/^Total Tests: //p')
  echo "nightly: $count tests labelled nightly"
  [ "${count:-0}" -gt 0 ]
}
configure_only() {  # configure_only PRESET
  cmake --preset "$1" >/dev/null && echo "nightly: preset $1 configures (--smoke: not built)"
}
asan_tests() { cmake --preset asan >/dev/null && cmake --build --preset asan && ctest --preset asan; }

if $smoke; then
  phase "ctest -L nightly (listed)" listed_nightly_tests
  echo "nightly: --smoke: pip install . into .envs/py311-numpy1 not run"
  phase "asan preset (configured)" configure_only asan
  if command -v clang++-14 >/dev/null 2>&1; then phase "fuzz preset (configured)" configure_only fuzz; fi
  # 20 cases, without the mutants suite: it needs CI's 200 cases to find every planted bug (and
  # runs at 200 per commit in ctest).
  phase "properties, 20 cases" env ACCUCHECK_NIGHTLY_CASES=20 ACCUCHECK_MAX_LONG_STEPS=2000 \
    PROPERTY_TESTS="backend_properties_test replay_test" \
    ACCUCHECK_FINDINGS="${TMPDIR:-/tmp}/accucheck-nightly-smoke-findings" bash ci/nightly-properties.sh
else
  phase "ctest -L nightly" ctest --preset nightly
  phase "pip install . (Python 3.11, numpy 1.23)" bash ci/pip-check.sh "${ACCUCHECK_ENVS:-$PWD/.envs}/py311-numpy1/bin/python"
  phase "asan: unit and property tests" asan_tests
  if command -v clang++-14 >/dev/null 2>&1; then
    phase "fuzz: every target ${FUZZ_SECONDS:-60} s" bash ci/fuzz-smoke.sh "${FUZZ_SECONDS:-60}"
  else
    failed+=("fuzz (no clang++-14)")
  fi
  phase "properties, random seed, ${ACCUCHECK_NIGHTLY_CASES:-2000} cases" bash ci/nightly-properties.sh
fi

echo "nightly: results ($(date -u +%Y-%m-%d), $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
printf '  %s\n' "${results[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "nightly: FAILED: ${failed[*]}"
  exit 1
fi
echo "nightly: passed"
