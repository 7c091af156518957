// The GPU exact backends (exact.cu): a carry-save superaccumulator per element, rounded once;
// their CPU models: exact_models.cpp.
#include "cuda/common/raw_values.h"
#include "cuda/device.h"
#include "cuda/exact/kernels.h"

namespace accucheck::cuda {
namespace {

DenseRun exact_run(Format f) {
  return [f](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    const Format as = f == Format::f64 ? Format::f64 : Format::f32;
    const auto in = columns(w, as);
    exact_columns(f, in.data(), w.steps + 1, w.elements, result.data());
  };
}

std::vector<Backend> exact_backends() {
  std::vector<Backend> backends;
  for (Format f : all_formats) {
    const std::string F(name(f));
    backends.push_back(dense_backend("cuda_exact_superacc_" + F, f, f, "correctly_rounded",
                                     Determinism::order_independent,
                                     "one thread per element, carry-save superaccumulator (exact/superacc.h), RNE "
                                     "into " +
                                         F,
                                     exact_run(f)));
  }
  return backends;
}

ACCUCHECK_REGISTER_BACKEND(on_gpu(&exact_backends));

}  // namespace
}  // namespace accucheck::cuda
