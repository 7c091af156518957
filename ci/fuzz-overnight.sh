#!/usr/bin/env bash
# Overnight fuzz campaign: every fuzz target for an equal share of HOURS, libFuzzer -fork on
# JOBS cores (default: all), periodic corpus merges, every finding minimized and filed into
# corpora/<target>/regressions/ with a one-line summary, and a campaign summary
# (summary.json, summary.md: execs, execs/s, corpus, coverage, findings, worst error/bound per
# backend) in the state directory.
#
# Kill it at any moment (even with SIGKILL) and run the same command again: it resumes with
# the time that remains and loses no finding and no corpus growth (state on disk, written
# atomically). The work is done by fuzzers/campaign.py; see docs/fuzzing.md.
#
# Usage: ci/fuzz-overnight.sh HOURS [JOBS] [campaign.py options...]
#   env: ACCUCHECK_FUZZ_BUILD  build directory (default build-fuzz, the `fuzz` preset)
#        ACCUCHECK_CAMPAIGN    state directory (default $BUILD/campaign)
# Exit status: 0 no finding, 1 findings were filed, 2 usage.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ]; then
  echo "usage: ci/fuzz-overnight.sh HOURS [JOBS] [--targets T...] [--slice S] [--merge-every N]" >&2
  exit 2
fi
hours="$1"
shift
jobs="$(nproc)"
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  jobs="$1"
  shift
fi
build="${ACCUCHECK_FUZZ_BUILD:-build-fuzz}"
state="${ACCUCHECK_CAMPAIGN:-$build/campaign}"

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake --preset fuzz -B "$build" >/dev/null
fi
cmake --build "$build" -j2 --target fuzz_dense fuzz_sparse fuzz_product fuzz_maxerr fuzz_oracle fuzz_inputs

exec python3 fuzzers/campaign.py --hours "$hours" --jobs "$jobs" --build "$build" --state "$state" "$@"
