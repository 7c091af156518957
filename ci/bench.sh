#!/usr/bin/env bash
# Builds the benchmarks (Release, build-bench/), runs them once with 3 repetitions and writes
# docs/performance.md from the JSON results (bench/report.py, Python stdlib only), then measures
# check --jobs scaling (bench/jobs_scaling.py, its own section of the page).
#
#   ci/bench.sh                      # full run, a few minutes
#   BENCH_FILTER='f64' ci/bench.sh   # a subset (regex on benchmark names); the report then
#                                    # shows only what was measured
#   BUILD_DIR=... JOBS=... REPETITIONS=... ci/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build-bench}
jobs=${JOBS:-$(nproc)}
repetitions=${REPETITIONS:-3}
filter=${BENCH_FILTER:-.}
results="$build_dir/bench-results.json"

# The venv of ci/install-deps.sh (numpy for the Python peers, pip for xsum's sdist).
python="${ACCUCHECK_VENV:-$PWD/.venv}/bin/python3"
if [ ! -x "$python" ]; then
  echo "ci/bench.sh: $python is missing: run ci/install-deps.sh first" >&2
  exit 2
fi

# Neal's xsum as a peer, from the sdist of the PyPI package (benchmark only, never the product).
xsum_dir="$build_dir/_xsum"
if [ ! -f "$xsum_dir/xsum-2.0.0/xsum/xsum.hpp" ]; then
  mkdir -p "$xsum_dir"
  "$python" -m pip download --quiet --no-deps --no-binary xsum xsum==2.0.0 -d "$xsum_dir"
  tar -xzf "$xsum_dir/xsum-2.0.0.tar.gz" -C "$xsum_dir"
fi

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCUCHECK_BUILD_BENCH=ON \
  -DACCUCHECK_BUILD_TESTS=OFF -DACCUCHECK_XSUM_DIR="$PWD/$xsum_dir/xsum-2.0.0/xsum" >/dev/null
cmake --build "$build_dir" -j"$jobs" --target accucheck_bench accucheck

echo "running benchmarks (load average: $(cut -d' ' -f1-3 /proc/loadavg)) ..." >&2
start=$(date +%s)
inputs="$build_dir/bench-inputs"
mkdir -p "$inputs"
ACCUCHECK_BENCH_DUMP_INPUTS="$inputs" "$build_dir/bench/accucheck_bench" \
  --benchmark_filter="$filter" \
  --benchmark_repetitions="$repetitions" \
  --benchmark_format=json >"$results.tmp"
mv "$results.tmp" "$results"
echo "benchmarks took $(($(date +%s) - start)) s; results in $results" >&2

# math.fsum and numpy.sum on the same bytes (bench/python_peers.py), merged into the report.
"$python" bench/python_peers.py "$inputs" "$build_dir/python-peers.json" --repetitions "$repetitions" >/dev/null

compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
ACCUCHECK_BENCH_COMPILER="$("${compiler:-c++}" --version | head -n1)" \
  ACCUCHECK_BENCH_PYTHON_PEERS="$build_dir/python-peers.json" python3 bench/report.py "$results" docs/performance.md
echo "wrote docs/performance.md" >&2

# check --jobs scaling: the same campaign with 1, 2, ... jobs (its own section of the page).
python3 bench/jobs_scaling.py --accucheck "$build_dir/accucheck" --seconds "${JOBS_SCALING_SECONDS:-60}" \
  --build "Release build of ci/bench.sh" --page docs/performance.md

# A Python backend's call through the worker and in-process (its own section of the page).
PYTHONPATH="$build_dir/python" "$python" bench/python_call_overhead.py --accucheck "$build_dir/accucheck" \
  --page docs/performance.md
