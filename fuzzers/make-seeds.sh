#!/usr/bin/env bash
# Regenerates the committed seed corpora (corpora/<target>/seed/) and the dictionaries
# (fuzzers/dicts/*.dict, the one each target's fuzzers/options file names) from the generator
# families, with accucheck_fuzz_tool.
# Deterministic: the same sources give the same files. Usage: fuzzers/make-seeds.sh [BUILD_DIR]
# (default build/, the `default` preset; it builds the tool there if needed).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
if [ ! -f "$build/CMakeCache.txt" ]; then cmake --preset default -B "$build" >/dev/null; fi
cmake --build "$build" --target accucheck_fuzz_tool -j2
for target in fuzz_dense fuzz_sparse fuzz_product fuzz_maxerr fuzz_oracle fuzz_inputs; do
  rm -rf "corpora/$target/seed"
done
"$build/fuzzers/accucheck_fuzz_tool" seeds corpora
"$build/fuzzers/accucheck_fuzz_tool" dicts fuzzers/dicts
for target in fuzz_dense fuzz_sparse fuzz_product fuzz_maxerr fuzz_oracle fuzz_inputs; do
  printf '%-12s %4d seeds, %7d bytes\n' "$target" "$(ls "corpora/$target/seed" | wc -l)" "$(cat corpora/$target/seed/* | wc -c)"
done
