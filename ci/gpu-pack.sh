#!/usr/bin/env bash
# Builds here what ci/gpu-check.sh runs and packs it for a GPU machine that cannot build it: a
# machine lent for minutes, with CUDA and a driver but without this project's dependencies
# (Boost, GoogleTest, RapidCheck, MPFR, CLI11) and without a network to install them.
#   ci/gpu-pack.sh [DIR]            (default DIR: .gpu-pack, ignored by git)
# writes DIR/pack.tar.xz: the GPU test binaries, the property suite, the GPU benchmark, the CLI, the replay
# and (when clang-14 is here) libFuzzer builds of fuzz_dense_gpu, and nccl_probe where NCCL was
# found, all stripped, with the shared libraries they need that a CUDA image may lack (lib/), and
# the Python side (python/: the worker's pure-Python package and the framework backend files,
# which run in the GPU machine's own interpreter: no numpy needed, docs/python.md).
# Not packed: the C and C++ runtimes (every image has them), and libcublas/libnccl, which
# the GPU machine's own CUDA provides (gpu-check.sh --prebuilt looks for them there).
# On the GPU machine, from a checkout of the same commit: ci/gpu-check.sh --prebuilt DIR
#   env: ACCUCHECK_GPU_BUILD (default build-cuda), ACCUCHECK_GPU_FUZZ_BUILD (build-fuzz-gpu),
#        JOBS (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."

pack="${1:-.gpu-pack}"
build="${ACCUCHECK_GPU_BUILD:-build-cuda}"
fuzz_build="${ACCUCHECK_GPU_FUZZ_BUILD:-build-fuzz-gpu}"
jobs="${JOBS:-$(nproc)}"
export PATH="$PATH:/usr/local/cuda/bin"

targets=(cuda_backends_test cuda_exact_device_test backend_properties_test accucheck_gpu_bench fuzz_dense_gpu accucheck)
[ -f "$build/CMakeCache.txt" ] || cmake --preset cuda -B "$build" -DACCUCHECK_CUDA=ON >/dev/null
grep -q 'accucheck_cuda' "$build/build.ninja" ||
  { echo "ci/gpu-pack.sh: $build is not configured with CUDA" >&2; exit 2; }
grep -q 'nccl_probe' "$build/build.ninja" && targets+=(nccl_probe)
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
libfuzzer_built=0
if command -v clang++-14 >/dev/null 2>&1; then
  [ -f "$fuzz_build/CMakeCache.txt" ] || cmake --preset fuzz -B "$fuzz_build" -DACCUCHECK_CUDA=ON >/dev/null
  cmake --build "$fuzz_build" -j "$jobs" --target fuzz_dense_gpu && libfuzzer_built=1
fi

rm -rf "$pack" && mkdir -p "$pack/bin" "$pack/lib"
for t in "${targets[@]}"; do
  strip -o "$pack/bin/$t" "$(find "$build" -name "$t" -type f -perm -u+x | head -1)"
done
libfuzzer_build="$fuzz_build/fuzzers/fuzz_dense_gpu"
# Only one built just now from this tree (an older one in $fuzz_build would carry the wrong commit).
[ $libfuzzer_built -eq 1 ] && strip -o "$pack/bin/fuzz_dense_gpu_libfuzzer" "$libfuzzer_build"

# Shared libraries outside the C/C++ runtime, as this machine resolves them.
system_libs='^(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux-x86-64|linux-vdso|libcuda|libcublas|libcublasLt|libnccl)\.so'
for b in "$pack"/bin/*; do
  ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r soname path; do
  [[ "$soname" =~ $system_libs ]] || cp -L "$path" "$pack/lib/$soname"
done

# The Python side, of the same commit as the binaries (no compiled extension: the GPU machine's
# Python need not be this one's).
mkdir -p "$pack/python/accucheck" "$pack/python/frameworks"
cp python/accucheck/*.py "$pack/python/accucheck/"
cp python/frameworks/*.py "$pack/python/frameworks/"

git describe --always --dirty > "$pack/commit"  # "-dirty": built from uncommitted changes
tar -C "$pack" -cJf "$pack/pack.tar.xz" bin lib python commit
rm -rf "$pack/bin" "$pack/lib" "$pack/python"
echo "ci/gpu-pack.sh: $pack/pack.tar.xz ($(du -h "$pack/pack.tar.xz" | cut -f1)) for commit $(cat "$pack/commit")"
tar -tJvf "$pack/pack.tar.xz"
