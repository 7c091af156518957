// The GPU Kahan backends (kahan.cu), one thread per element; their CPU models: kahan_models.cpp.
#include "common/per_element.h"
#include "cuda/common/raw_values.h"
#include "cuda/device.h"
#include "cuda/kahan/kernels.h"

namespace accucheck::cuda {
namespace {

std::vector<Backend> kahan_backends() {
  return impls::in_formats<double, float>(
      dense_backend, []<class T>() { return column_run(&kahan, storage_format_v<T>); }, "cuda_kahan_{F}", "kahan({F})",
      Determinism::bitwise_deterministic, "one thread per element, Kahan over its terms (model: cuda_model_kahan_{F})");
}

ACCUCHECK_REGISTER_BACKEND(on_gpu(&kahan_backends));

}  // namespace
}  // namespace accucheck::cuda
