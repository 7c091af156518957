// The GPU CUB reduction backends (cub.cu): cub::DeviceReduce::Sum, and where the build has
// CCCL >= 3.1 (the nvidia-cuda-cccl headers) the gpu_to_gpu binned accumulator, whose CPU model
// is cub_rfa_models.cpp, and the env overload's run_to_run tree.
#include "cuda/common/raw_values.h"
#include "cuda/cub/kernels.h"
#include "cuda/device.h"

namespace accucheck::cuda {
namespace {

std::vector<Backend> cub_backends() {
  std::vector<Backend> backends;
  for (Format f : {Format::f64, Format::f32}) {
    const std::string F(name(f));
    backends.push_back(dense_backend(
        "cuda_cub_reduce_" + F, f, f, "anyorder(" + F + ")", Determinism::bitwise_deterministic,
        "cub::DeviceReduce::Sum per element (CUB's tree: run-to-run deterministic on one GPU, not modelled)",
        column_run(&cub_reduce, f)));
#if ACCUCHECK_HAVE_CUB_DETERMINISM
    const std::string W = f == Format::f64 ? "40" : "13";
    backends.push_back(dense_backend(
        "cuda_cub_gpu_to_gpu_" + F, f, f, "reproducible_binned(3," + W + "," + F + ")", Determinism::order_independent,
        "cub::DeviceReduce::Sum with determinism::gpu_to_gpu (3-fold binned accumulator; model: cuda_model_cub_rfa_" +
            F + ")",
        column_run(
            [](Format g, const void* columns, std::size_t n, std::size_t elements, void* out) {
              cub_reduce_with_determinism(g, CubDeterminism::gpu_to_gpu, columns, n, elements, out);
            },
            f)));
    backends.push_back(
        dense_backend("cuda_cub_run_to_run_" + F, f, f, "anyorder(" + F + ")", Determinism::bitwise_deterministic,
                      "cub::DeviceReduce::Sum with determinism::run_to_run (CUB's tree for this GPU, not modelled)",
                      column_run(
                          [](Format g, const void* columns, std::size_t n, std::size_t elements, void* out) {
                            cub_reduce_with_determinism(g, CubDeterminism::run_to_run, columns, n, elements, out);
                          },
                          f)));
#endif
  }
  return backends;
}

ACCUCHECK_REGISTER_BACKEND(on_gpu(&cub_backends));

}  // namespace
}  // namespace accucheck::cuda
