// The GPU atomicAdd backends (atomic.cu); their CPU models (one order per
// RunOptions::order_seed): atomic_models.cpp.
#include "cuda/atomic/kernels.h"
#include "cuda/common/raw_values.h"
#include "cuda/device.h"

namespace accucheck::cuda {
namespace {

DenseRun atomic_run(Format f) {
  return [f](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    std::vector<unsigned char> initial(w.elements * raw_size(f)), addends(w.addends.size() * raw_size(f)),
        out(w.elements * raw_size(f));
    for (std::size_t j = 0; j < w.elements; ++j) put_raw(initial, j, w.initial[j], f);
    for (std::size_t q = 0; q < w.addends.size(); ++q) put_raw(addends, q, w.addends[q], f);
    atomic_scatter(f, initial.data(), addends.data(), w.elements, w.steps, out.data());
    for (std::size_t j = 0; j < w.elements; ++j) result[j] = get_raw(out, j, f);
  };
}

std::vector<Backend> atomic_backends() {
  constexpr auto any_run = Determinism::run_to_run_nondeterministic;
  return {dense_backend("cuda_atomic_f32", Format::f32, Format::f32, "ftz(anyorder(f32),f32)", any_run,
                        "atomicAdd (red.global.add.f32, flushes subnormals) of every addend onto the buffer",
                        atomic_run(Format::f32)),
          dense_backend("cuda_atomic_f64", Format::f64, Format::f64, "anyorder(f64)", any_run,
                        "atomicAdd of every addend onto the buffer", atomic_run(Format::f64)),
          dense_backend("cuda_atomic_f16x2", Format::f16, Format::f16, "anyorder(f16)", any_run,
                        "atomicAdd on __half2 pairs of elements", atomic_run(Format::f16)),
          dense_backend("cuda_atomic_bf16x2", Format::bf16, Format::bf16, "anyorder(bf16)", any_run,
                        "atomicAdd on __nv_bfloat162 pairs of elements", atomic_run(Format::bf16))};
}

ACCUCHECK_REGISTER_BACKEND(on_gpu(&atomic_backends));

}  // namespace
}  // namespace accucheck::cuda
