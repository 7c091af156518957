#!/usr/bin/env bash
# Time-to-find of every planted mutant (impls/mutants) by the fuzzers: for each mutant, the
# *_mutants build of fuzz_dense (dense mutants), then fuzz_maxerr if fuzz_dense did not find
# it, or fuzz_sparse (sparse mutants) or fuzz_product (product mutants) runs with that mutant as its only backend, from the
# committed seed corpus and an empty working corpus, for at most SECONDS (default 60), with a
# fixed -seed. Time-to-find is the wall time from start to the abort (seed loading
# included), with the execs libFuzzer had done. Prints a Markdown table (docs/detection.md,
# "Fuzzers"), and exits 1 if a mutant was not found.
#
# Usage: fuzzers/detect-mutants.sh [SECONDS] [SEED] [seeds|empty]
#   seeds (default): start from corpora/<target>/seed; empty: from an empty corpus (the
#   fuzzer alone: header, mutator and dictionary, no generator seeds).
#   env: ACCUCHECK_FUZZ_BUILD  the fuzz build (default build-fuzz, the `fuzz` preset)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
seed="${2:-1}"
start_from="${3:-seeds}"
build="${ACCUCHECK_FUZZ_BUILD:-build-fuzz}"
work="$build/detect-mutants"

if [ ! -f "$build/CMakeCache.txt" ]; then cmake --preset fuzz -B "$build" >/dev/null; fi
cmake --build "$build" -j2 --target fuzz_dense_mutants fuzz_sparse_mutants fuzz_product_mutants fuzz_maxerr_mutants >/dev/null || exit 2

# name storage bound, for every mutant the dense build knows (the same list in every build).
mapfile -t mutants < <(ACCUCHECK_FUZZ_LIST_BACKENDS=1 "$build/fuzzers/fuzz_dense_mutants")

# The workload kind a mutant runs (the list prints it).
kind_of() { printf '%s\n' "${mutants[@]}" | awk -v m="$1" '$1 == m { print $2 }'; }

# try TARGET MUTANT -> prints "seconds execs first-report-line" and returns 0 when found
try() {
  local target="$1" mutant="$2" base="${1%_mutants}"
  local dir="$work/$start_from/$mutant/$target"
  rm -rf "$dir" && mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/maxerr"
  local start end rc
  start=$(date +%s.%N)
  ACCUCHECK_FUZZ_BACKENDS="$mutant" ACCUCHECK_MAXERR_DIR="$dir/maxerr" timeout $((seconds + 30)) \
    "$build/fuzzers/$target" -seed="$seed" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 \
    $(sed -n -e 's|^[[:space:]]*dict[[:space:]]*=[[:space:]]*\([^[:space:]]*\).*|-dict=fuzzers/dicts/\1|p;t' \
      -e 's/^[[:space:]]*\([a-z_]*\)[[:space:]]*=[[:space:]]*\([^[:space:]]*\).*/-\1=\2/p' "fuzzers/options/$base.options") \
    -artifact_prefix="$dir/artifacts/" "$dir/corpus" \
    $([ "$start_from" = seeds ] && echo "corpora/$base/seed") >"$dir/log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  if [ "$(ls "$dir/artifacts" | wc -l)" -gt 0 ]; then
    local execs what
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    what=$(grep -m1 -E '^  element [0-9]+: verdict|nondeterministic:|^property |^  element [0-9]+: not RNE' "$dir/log" | sed 's/^ *//')
    printf '%.1f %s %s\n' "$(echo "$end - $start" | bc)" "${execs:-?}" "$what"
    return 0
  fi
  return 1
}

echo "| mutant | found by | time to find (s) | execs | what the report says |"
echo "| --- | --- | ---: | ---: | --- |"
missed=0
for line in "${mutants[@]}"; do
  mutant="${line%% *}"
  case "$(kind_of "$mutant")" in
    *dense*) targets="fuzz_dense_mutants fuzz_maxerr_mutants" ;;
    *sparse*) targets="fuzz_sparse_mutants" ;;
    *product*) targets="fuzz_product_mutants" ;;
    *) echo "| $mutant | (no fuzz target runs its workloads) | - | - | - |"; missed=$((missed + 1)); continue ;;
  esac
  found=""
  for target in $targets; do
    if result=$(try "$target" "$mutant"); then
      read -r secs execs what <<<"$result"
      echo "| $mutant | ${target%_mutants} | $secs | $execs | $what |"
      found=1
      break
    fi
  done
  if [ -z "$found" ]; then
    echo "| $mutant | not found in ${seconds} s | - | - | - |"
    missed=$((missed + 1))
  fi
done
[ "$missed" -eq 0 ]
