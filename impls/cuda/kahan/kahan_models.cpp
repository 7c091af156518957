// CPU order models of the CUDA Kahan kernels (kahan.cu): the kernel's own loop (kahan.h),
// registered as CPU backends so that CI property-tests and fuzzes them without a GPU.
#include "common/per_element.h"
#include "cuda/kahan/kahan.h"

namespace accucheck::impls {
namespace {

template <class T>
void kahan_run(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    const auto term = [&w, j](std::uint64_t i) {
      return from_value<T>(i == 0 ? w.initial[j] : w.addends[(i - 1) * w.elements + j]);
    };
    result[j] = to_value(cuda_tree::kahan_sum<T>(term, w.steps + 1));
  }
}

ACCUCHECK_REGISTER_BACKEND(in_formats<double, float>(
    dense_backend, []<class T>() { return &kahan_run<T>; }, "cuda_model_kahan_{F}", "kahan({F})",
    Determinism::bitwise_deterministic,
    "CPU order model of cuda_kahan_{F}: one thread per element, Kahan over its terms"));

}  // namespace
}  // namespace accucheck::impls
