#!/usr/bin/env bash
# fuzz_dense's speed (docs/performance.md, "fuzz_dense"): one libFuzzer process, inputs of at
# most 64 addends per element (the target's limit), every CPU backend of the input's format.
# Reported per configuration: execs, CPU time (user + sys, the threaded backends' pool threads
# included), execs per CPU second (what one core sustains), wall execs/s (what libFuzzer
# prints; on a shared machine lower), and the load average before and after.
#
# Two starts per configuration, SECONDS (default 60) each, fixed -seed:
#   seeds: from the committed seeds (corpora/fuzz_dense/seed, ~100 inputs), as a smoke run or
#          a first campaign starts: the first tens of seconds grow the corpus to ~2,000 inputs,
#          and each new feature costs libFuzzer's entropic schedule a pass over the corpus;
#   warm:  from the corpus a WARMUP-second run (default 120, every property) grew from the
#          seeds, as an overnight campaign runs after its first minutes or when it resumes.
#
# Configurations: the `fuzz` preset (ASan + UBSan, build-fuzz) and the same without
# sanitizers (build-fuzz-nosan: cmake --preset fuzz -B build-fuzz-nosan -DACCUCHECK_FUZZ_SANITIZE=),
# each with every property on every input (ACCUCHECK_FUZZ_PROPERTY_EVERY=1, the default) and
# with the properties beyond the stated bound on one input in 4.
#
# Usage: fuzzers/measure-fuzz-dense.sh [SECONDS] [WARMUP]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
warmup="${2:-120}"
[ -f build-fuzz/CMakeCache.txt ] || cmake --preset fuzz >/dev/null
[ -f build-fuzz-nosan/CMakeCache.txt ] || cmake --preset fuzz -B build-fuzz-nosan -DACCUCHECK_FUZZ_SANITIZE= >/dev/null
cmake --build build-fuzz -j2 --target fuzz_dense >/dev/null
cmake --build build-fuzz-nosan -j2 --target fuzz_dense >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run BUILD EVERY SECONDS CORPUS...: libFuzzer on the first corpus directory (it grows), the
# others read-only; leaves the log in $work/log.
run() {
  local build="$1" every="$2" secs="$3"
  shift 3
  ACCUCHECK_FUZZ_PROPERTY_EVERY=$every /usr/bin/time -f "TIME %U %S %e" "$build/fuzzers/fuzz_dense" -seed=3 \
    -max_total_time="$secs" -max_len=4096 -dict=fuzzers/dicts/workload.dict -print_final_stats=1 \
    "$@" >"$work/log" 2>&1 || true
}

echo "| build | start | properties beyond the bound | execs | CPU s (user + sys) | execs per CPU second | wall s | execs/s (wall) | load average |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
for build in build-fuzz build-fuzz-nosan; do
  rm -rf "$work/warm" && mkdir -p "$work/warm"
  run "$build" 1 "$warmup" "$work/warm" corpora/fuzz_dense/seed
  for start in seeds warm; do
    for every in 1 4; do
      rm -rf "$work/corpus" && mkdir -p "$work/corpus"
      if [ "$start" = warm ]; then cp -r "$work/warm/." "$work/corpus/"; fi
      load=$(cut -d' ' -f1 /proc/loadavg)
      if [ "$start" = seeds ]; then
        run "$build" "$every" "$seconds" "$work/corpus" corpora/fuzz_dense/seed
      else
        run "$build" "$every" "$seconds" "$work/corpus"
      fi
      execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
      read -r user sys wall <<<"$(grep '^TIME' "$work/log" | cut -d' ' -f2-)"
      load2=$(cut -d' ' -f1 /proc/loadavg)
      label=$([ "$build" = build-fuzz ] && echo "fuzz preset (ASan + UBSan)" || echo "no sanitizers")
      props=$([ "$every" = 1 ] && echo "every input" || echo "1 input in $every")
      python3 -c "u,s,e,x=$user,$sys,$wall,$execs; print('| $label | $start | $props | %d | %.1f (%.1f + %.1f) | %.0f | %.0f | %.0f | $load, $load2 |' % (x, u+s, u, s, x/(u+s), e, x/e))"
    done
  done
done
