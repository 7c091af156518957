// The GPU Kahan backends (kahan.cu), one thread per element; their CPU models: kahan_models.cpp.
#include "cuda/common/raw_values.h"
#include "cuda/device.h"
#include "cuda/kahan/kernels.h"

namespace accucheck::cuda {
namespace {

std::vector<Backend> kahan_backends() {
  std::vector<Backend> backends;
  for (Format f : {Format::f64, Format::f32}) {
    const std::string F(name(f));
    backends.push_back(dense_backend("cuda_kahan_" + F, f, f, "kahan(" + F + ")", Determinism::bitwise_deterministic,
                                     "one thread per element, Kahan over its terms (model: cuda_model_kahan_" + F + ")",
                                     column_run(&kahan, f)));
  }
  return backends;
}

ACCUCHECK_REGISTER_BACKEND(on_gpu(&kahan_backends));

}  // namespace
}  // namespace accucheck::cuda
