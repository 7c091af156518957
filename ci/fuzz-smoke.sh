#!/usr/bin/env bash
# Per-commit fuzz smoke test: every fuzz target for SECONDS (default 60) under libFuzzer with
# ASan + UBSan, starting from its committed corpora (seed/ and regressions/). Fails on any
# finding (a violated bound, an oracle disagreement, a crash, leak, timeout or UB) and prints
# the report and the command that replays it.
#
# Usage: ci/fuzz-smoke.sh [SECONDS] [TARGET...]
#   env: ACCUCHECK_FUZZ_BUILD  build directory (default build-fuzz, the `fuzz` preset)
#        ACCUCHECK_FUZZ_OUT    where corpora grown and artifacts go (default $BUILD/smoke)
# Needs clang-14 (the `fuzz` preset); configures and builds the targets when needed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_dense fuzz_sparse fuzz_product fuzz_maxerr fuzz_oracle fuzz_inputs)
build="${ACCUCHECK_FUZZ_BUILD:-build-fuzz}"
out="${ACCUCHECK_FUZZ_OUT:-$build/smoke}"

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake --preset fuzz -B "$build" >/dev/null
fi
cmake --build "$build" -j2 --target "${targets[@]}"

# "[libfuzzer]" key = value lines of fuzzers/options/<target>.options as -key=value flags; its
# dictionary (dict = NAME) is fuzzers/dicts/NAME.
options_flags() {
  local file="fuzzers/options/$1.options"
  [ -f "$file" ] || return 0
  sed -n -e 's|^[[:space:]]*dict[[:space:]]*=[[:space:]]*\([^[:space:]]*\).*|-dict=fuzzers/dicts/\1|p;t' \
    -e 's/^[[:space:]]*\([a-z_]*\)[[:space:]]*=[[:space:]]*\([^[:space:]]*\).*/-\1=\2/p' "$file"
}

failed=()
printf '%-12s %10s %9s %7s %7s %s\n' target execs "execs/s" cov corpus result
for target in "${targets[@]}"; do
  dir="$out/$target"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/maxerr"
  corpora=("$dir/corpus")
  for sub in seed regressions; do
    [ -d "corpora/$target/$sub" ] && corpora+=("corpora/$target/$sub")
  done
  log="$dir/fuzz.log"
  set +e
  ACCUCHECK_MAXERR_DIR="$dir/maxerr" "$build/fuzzers/$target" $(options_flags "$target") \
    -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 \
    -artifact_prefix="$dir/artifacts/" "${corpora[@]}" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1 || true)
  cov=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
  corpus=$(ls "$dir/corpus" | wc -l)
  artifacts=$(ls "$dir/artifacts" | wc -l)
  if [ "$rc" -eq 0 ] && [ "$artifacts" -eq 0 ]; then
    printf '%-12s %10s %9s %7s %7s %s\n' "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$corpus" ok
    continue
  fi
  printf '%-12s %10s %9s %7s %7s %s\n' "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$corpus" "FINDING (exit $rc)"
  failed+=("$target")
  echo "---- $target: the report (full log: $log) ----"
  if grep -q '==== accucheck' "$log"; then
    sed -n '/==== accucheck/,/==== end of accucheck report ====/p' "$log" | head -80
  elif grep -q -E 'ERROR|SUMMARY|runtime error' "$log"; then
    grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$log" | head -20 || true
  else
    tail -15 "$log"  # libFuzzer did not run (a bad flag or dictionary, a crash at start-up)
  fi
  for artifact in "$dir"/artifacts/*; do
    [ -e "$artifact" ] || continue
    echo "replay:   $build/fuzzers/$target $artifact"
    echo "          (without clang: build/fuzzers/$target $artifact; minimize: $build/fuzzers/$target -minimize_crash=1 -runs=20000 $artifact)"
    echo "keep it:  cp $artifact corpora/$target/regressions/  (once minimized; see docs/fuzzing.md)"
  done
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz smoke: findings in ${failed[*]}"
  exit 1
fi
echo "fuzz smoke: no findings (${seconds}s per target)"
