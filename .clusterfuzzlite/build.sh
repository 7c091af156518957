#!/bin/bash -eu
# Builds every fuzz target for ClusterFuzzLite / OSS-Fuzz with the builder's compiler and flags
# ($CC $CXX $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE) into $OUT, with each target's seed corpus
# (<target>_seed_corpus.zip: corpora/<target>/seed and regressions), dictionary
# (<target>.dict: the fuzzers/dicts file its options name, `dict = NAME`) and libFuzzer options
# (<target>.options, without that line).
#
# Runs outside the builder image too (docs/fuzzing.md, "ClusterFuzzLite"): set CC, CXX,
# CFLAGS, CXXFLAGS, LIB_FUZZING_ENGINE, SRC (with the checkout at $SRC/accucheck) and OUT.
targets="fuzz_dense fuzz_sparse fuzz_product fuzz_maxerr fuzz_oracle fuzz_inputs"
src="$SRC/accucheck"
build="${WORK:-$OUT/.build}/accucheck-build"

# MPFR and GMP statically, so that the binaries run on the runner image without them.
static_lib() {
  for dir in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    if [ -f "$dir/lib$1.a" ]; then echo "$dir/lib$1.a"; return; fi
  done
  echo "$1"
}

cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DACCUCHECK_FUZZ=ON -DACCUCHECK_FUZZ_EXTERNAL_FLAGS=ON -DACCUCHECK_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  -DACCUCHECK_BUILD_TESTS=OFF -DACCUCHECK_BUILD_CLI=OFF -DACCUCHECK_CUDA=OFF \
  -DACCUCHECK_MPFR_LIB="$(static_lib mpfr)" -DACCUCHECK_GMP_LIB="$(static_lib gmp)"
cmake --build "$build" -j"$(nproc)" --target $targets

for t in $targets; do
  cp "$build/fuzzers/$t" "$OUT/"
  rm -f "$OUT/${t}_seed_corpus.zip"
  for sub in seed regressions; do
    if [ -d "$src/corpora/$t/$sub" ]; then
      (cd "$src/corpora/$t/$sub" && find . -type f ! -name '*.summary' ! -name '*.md' ! -name 'README*' -print0 |
         xargs -0 -r zip -q -j "$OUT/${t}_seed_corpus.zip")
    fi
  done
  options="$src/fuzzers/options/$t.options"
  dict=$(sed -n 's/^[[:space:]]*dict[[:space:]]*=[[:space:]]*\([^[:space:]]*\).*/\1/p' "$options")
  cp "$src/fuzzers/dicts/$dict" "$OUT/$t.dict"
  grep -v '^[[:space:]]*dict[[:space:]]*=' "$options" >"$OUT/$t.options"
done
