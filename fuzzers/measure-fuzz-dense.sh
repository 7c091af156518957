#!/usr/bin/env bash
# fuzz_dense's speed (docs/performance.md, "fuzz_dense"): one libFuzzer process, SECONDS
# (default 60) from the committed seeds, fixed -seed, inputs of at most 64 addends per element
# (the target's limit), every CPU backend of the input's format. Reported per configuration:
# execs, CPU time (user + sys, the threads of the threaded backends included), execs per CPU
# second (what one core sustains), wall execs/s (what libFuzzer prints; on a shared machine
# lower), and the load average before and after.
#
# Configurations: the `fuzz` preset (ASan + UBSan, build-fuzz) and the same without
# sanitizers (build-fuzz-nosan: cmake --preset fuzz -B build-fuzz-nosan -DACCUCHECK_FUZZ_SANITIZE=),
# each with every property on every input (ACCUCHECK_FUZZ_PROPERTY_EVERY=1, the default) and
# with the properties beyond the stated bound on one input in 4.
#
# Usage: fuzzers/measure-fuzz-dense.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
[ -f build-fuzz/CMakeCache.txt ] || cmake --preset fuzz >/dev/null
[ -f build-fuzz-nosan/CMakeCache.txt ] || cmake --preset fuzz -B build-fuzz-nosan -DACCUCHECK_FUZZ_SANITIZE= >/dev/null
cmake --build build-fuzz -j2 --target fuzz_dense >/dev/null
cmake --build build-fuzz-nosan -j2 --target fuzz_dense >/dev/null

echo "| build | properties beyond the bound | execs | CPU s (user + sys) | execs per CPU second | wall s | execs/s (wall) | load average |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
for build in build-fuzz build-fuzz-nosan; do
  for every in 1 4; do
    dir=$(mktemp -d)
    mkdir -p "$dir/corpus"
    load=$(cut -d' ' -f1 /proc/loadavg)
    ACCUCHECK_FUZZ_PROPERTY_EVERY=$every /usr/bin/time -f "TIME %U %S %e" "$build/fuzzers/fuzz_dense" -seed=3 \
      -max_total_time="$seconds" -max_len=4096 -dict=fuzzers/dicts/fuzz_dense.dict -print_final_stats=1 \
      "$dir/corpus" corpora/fuzz_dense/seed >"$dir/log" 2>&1 || true
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
    read -r user sys wall <<<"$(grep '^TIME' "$dir/log" | cut -d' ' -f2-)"
    load2=$(cut -d' ' -f1 /proc/loadavg)
    label=$([ "$build" = build-fuzz ] && echo "fuzz preset (ASan + UBSan)" || echo "no sanitizers")
    props=$([ "$every" = 1 ] && echo "every input" || echo "1 input in $every")
    python3 -c "u,s,e,x=$user,$sys,$wall,$execs; print('| $label | $props | %d | %.1f (%.1f + %.1f) | %.0f | %.0f | %.0f | $load, $load2 |' % (x, u+s, u, s, x/(u+s), e, x/e))"
    rm -rf "$dir"
  done
done
