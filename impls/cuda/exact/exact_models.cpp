// CPU model of the CUDA exact superaccumulator (exact/exact.cu): the very deposit and rounding
// functions the kernels run (exact/superacc.h, __host__ __device__), per element, correctly
// rounded into the storage format. f64 terms go through the double deposit, the others through
// the float deposit (every f32, f16 and bf16 value is a float), as on the GPU.
#include <stdexcept>

#include "common/per_element.h"
#include "cuda/exact/superacc.h"

namespace accucheck::impls {
namespace {

exact_hd::Target target_of(Format f) {
  switch (f) {
    case Format::f64: return exact_hd::kF64;
    case Format::f32: return exact_hd::kF32;
    case Format::f16: return exact_hd::kF16;
    case Format::bf16: return exact_hd::kBF16;
    case Format::e4m3:
    case Format::e5m2: break;  // no backend stores fp8 values (format.h's all_formats)
  }
  throw std::logic_error("the CUDA exact model has no fp8 target");
}

DenseRun exact_run(Format f) {
  return [f](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    for (std::size_t j = 0; j < w.elements; ++j) {
      exact_hd::SuperAccumulator acc;
      for (std::size_t i = 0; i <= w.steps; ++i) {
        const double x = i == 0 ? w.initial[j] : w.addends[(i - 1) * w.elements + j];
        if (f == Format::f64)
          acc.add(x);
        else
          acc.add(static_cast<float>(x));
      }
      result[j] = acc.rounded(target_of(f));
    }
  };
}

std::vector<Backend> exact_models() {
  std::vector<Backend> backends;
  for (Format f : all_formats)
    backends.push_back(dense_backend(with_format("cuda_model_exact_superacc_{F}", f), f, f, "correctly_rounded",
                                     Determinism::order_independent,
                                     "CPU model of cuda_exact_superacc: carry-save 32-bit cells, the kernels' own "
                                     "deposit and rounding code",
                                     exact_run(f)));
  return backends;
}
ACCUCHECK_REGISTER_BACKEND(exact_models());

}  // namespace
}  // namespace accucheck::impls
