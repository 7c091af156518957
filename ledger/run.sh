#!/usr/bin/env bash
# Re-runs the findings' standalone CPU reproducers (ledger/README.md) under the framework
# releases the project installs, and compiles the CUDA ones (they are not run: they need a GPU).
#
#   ledger/run.sh
#
# Interpreters (each reproducer runs under each one found):
#   ACCUCHECK_FINDINGS_PYTHON         PyTorch at its newest release (default: .envs/torch/bin/python,
#                                     made by ci/python-envs.sh torch). Required.
#   ACCUCHECK_FINDINGS_PYTHON_DEBIAN  Debian's PyTorch 1.13, the version the findings were made with
#                                     (default: /usr/bin/python3 if it imports torch, else skipped
#                                     with a note).
#   ACCUCHECK_FINDINGS_JAX_PYTHON     jax and optax at their newest releases, for optax_multisteps_inf.py
#                                     (default: .envs/jax/bin/python, made by ci/python-envs.sh jax). Required.
# CUDA:
#   ACCUCHECK_FINDINGS_CUDA=0         do not compile the .cu reproducers (default: compile them when
#                                     nvcc is found: $NVCC, then PATH, then /usr/local/cuda/bin).
#   ACCUCHECK_CCCL_INCLUDE_DIR        CCCL >= 3.1 headers for cccl_gpu_to_gpu_reduce.cu (default: the
#                                     nvidia-cuda-cccl package of .venv, else of .envs/*).
#   ACCUCHECK_FINDINGS_CUDA_OUT=DIR   keep the compiled binaries there (to carry them to a GPU
#                                     machine); default: a temporary directory, removed.
#
# A reproducer's own exit status says 1 = reproduces, 0 = fixed (does not reproduce), anything
# else = could not run. This script exits 0 when every reproducer ran and every compilation it
# tried succeeded, whatever the findings' status; 2 when one could not run or compile.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$here" || exit 2

failures=0
summary=()

imports_torch() { [ -x "$1" ] && "$1" -c 'import torch' >/dev/null 2>&1; }

echo "ledger/run.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm)"
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1), $(nproc) CPUs"
echo

# ---- interpreters --------------------------------------------------------------------------------
labels=()
pythons=()
newest=${ACCUCHECK_FINDINGS_PYTHON:-$root/.envs/torch/bin/python}
labels+=("newest PyTorch")
pythons+=("$newest")

if [ -n "${ACCUCHECK_FINDINGS_PYTHON_DEBIAN:-}" ]; then
  labels+=("Debian's PyTorch")
  pythons+=("$ACCUCHECK_FINDINGS_PYTHON_DEBIAN")
elif imports_torch /usr/bin/python3; then
  labels+=("Debian's PyTorch")
  pythons+=(/usr/bin/python3)
else
  echo "note: no Debian PyTorch (/usr/bin/python3 does not import torch; the project no longer installs it): skipped"
fi

# ---- CPU reproducers -----------------------------------------------------------------------------
for script in torch_sum_two_threads_16bit.py gloo_float16_sum.py; do
  for i in "${!pythons[@]}"; do
    python=${pythons[$i]}
    label=${labels[$i]}
    if ! imports_torch "$python"; then
      status="could not run (no $python, or it does not import torch)"
      output=""
      failures=$((failures + 1))
    else
      version=$("$python" -c 'import torch; print(torch.__version__)' 2>/dev/null)
      label="$label $version"
      output=$(timeout 600 "$python" "$script" 2>&1)
      rc=$?
      case $rc in
        1) status="reproduces" ;;
        0) status="fixed" ;;
        *) status="could not run (exit $rc)"; failures=$((failures + 1)) ;;
      esac
    fi
    echo "== $script, $label ($python): $status"
    [ -n "$output" ] && printf '%s\n' "$output" | sed 's/^/    /'
    echo
    summary+=("$(printf '%-34s %-28s %s' "$script" "$label" "$status")")
  done
done

jax_python=${ACCUCHECK_FINDINGS_JAX_PYTHON:-$root/.envs/jax/bin/python}
if [ -x "$jax_python" ] && "$jax_python" -c 'import jax, optax' >/dev/null 2>&1; then
  output=$(timeout 600 "$jax_python" optax_multisteps_inf.py 2>&1)
  case $? in
    1) status="reproduces" ;;
    0) status="fixed" ;;
    *) status="could not run"; failures=$((failures + 1)) ;;
  esac
  label="optax $("$jax_python" -c 'import optax; print(optax.__version__)')"
else
  output=""
  status="could not run (no $jax_python, or it does not import jax and optax)"
  label="optax"
  failures=$((failures + 1))
fi
echo "== optax_multisteps_inf.py, $label ($jax_python): $status"
[ -n "$output" ] && printf '%s\n' "$output" | sed 's/^/    /'
echo
summary+=("$(printf '%-34s %-28s %s' optax_multisteps_inf.py "$label" "$status")")

# ---- CUDA reproducers: compiled, not run ---------------------------------------------------------
if [ "${ACCUCHECK_FINDINGS_CUDA:-1}" = 0 ]; then
  echo "CUDA reproducers: skipped (ACCUCHECK_FINDINGS_CUDA=0)"
  summary+=("$(printf '%-34s %-28s %s' "*.cu" "" "not compiled (ACCUCHECK_FINDINGS_CUDA=0)")")
else
  nvcc=${NVCC:-$(command -v nvcc || true)}
  [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
  if [ -z "$nvcc" ]; then
    echo "CUDA reproducers: no nvcc found (NVCC, PATH, /usr/local/cuda/bin): not compiled"
    summary+=("$(printf '%-34s %-28s %s' "*.cu" "" "not compiled (no nvcc)")")
  else
    cccl=${ACCUCHECK_CCCL_INCLUDE_DIR:-}
    if [ -z "$cccl" ]; then
      for candidate in "$root"/.venv/lib/python3*/site-packages/nvidia/cu13/include/cccl \
                       "$root"/.envs/*/lib/python3*/site-packages/nvidia/cu13/include/cccl; do
        [ -f "$candidate/cub/detail/rfa.cuh" ] && { cccl=$candidate; break; }
      done
    fi
    if [ -n "${ACCUCHECK_FINDINGS_CUDA_OUT:-}" ]; then
      out=$ACCUCHECK_FINDINGS_CUDA_OUT
      mkdir -p "$out"
    else
      out=$(mktemp -d)
      trap 'rm -rf "$out"' EXIT
    fi
    echo "CUDA reproducers: compiled with $nvcc ($("$nvcc" --version | sed -n 's/.*release \([^,]*\),.*/\1/p')), not run (they need a GPU)"
    compile() {  # name, then nvcc's extra arguments
      local name=$1 log status
      shift
      if log=$("$nvcc" -std=c++20 -arch=sm_90 "$@" 2>&1); then
        status="compiled"
      else
        status="did not compile"
        failures=$((failures + 1))
      fi
      echo "== $name: $status"
      [ -n "$log" ] && printf '%s\n' "$log" | sed 's/^/    /'
      summary+=("$(printf '%-34s %-28s %s' "$name" "nvcc $("$nvcc" --version | sed -n 's/.*release \([^,]*\),.*/\1/p')" "$status, not run")")
    }
    if [ -z "$cccl" ]; then
      echo "== cccl_gpu_to_gpu_reduce.cu: no CCCL >= 3.1 headers (set ACCUCHECK_CCCL_INCLUDE_DIR): not compiled"
      failures=$((failures + 1))
      summary+=("$(printf '%-34s %-28s %s' "cccl_gpu_to_gpu_reduce.cu" "" "not compiled (no CCCL >= 3.1 headers)")")
    else
      echo "   CCCL headers: $cccl ($(sed -n 's/^#define CUB_VERSION \([0-9]*\).*/CUB_VERSION \1/p' "$cccl/cub/version.cuh"))"
      compile cccl_gpu_to_gpu_reduce.cu -I"$cccl" cccl_gpu_to_gpu_reduce.cu -o "$out/cccl_gpu_to_gpu_reduce"
    fi
    compile cublas_tf32_edge.cu cublas_tf32_edge.cu -o "$out/cublas_tf32_edge" -lcublas
    [ -n "${ACCUCHECK_FINDINGS_CUDA_OUT:-}" ] && echo "   binaries in $out"
  fi
fi

echo
echo "summary:"
printf '  %s\n' "${summary[@]}"
if [ "$failures" -gt 0 ]; then
  echo "run.sh: $failures reproducer(s) or compilation(s) could not run"
  exit 2
fi
exit 0
