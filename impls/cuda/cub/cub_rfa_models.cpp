// CPU order models of cub::DeviceReduce::Sum with gpu_to_gpu determinism (kernels/cub_rfa.cu,
// built when the CCCL headers of the nvidia-cuda-cccl wheel are found): CUB's binned
// accumulator (cub/binned_accumulator.h) over each element's terms. Its result does not
// depend on the order, the grid or the GPU, so one sequential pass is the model of every launch.
// The bound is Demmel & Nguyen's for K-fold binned sums, CUB's K = 3 and W = 13 (f32) / 40 (f64)
// (docs/bounds.md "CUB's deterministic reduction"). The model is the algorithm's design: where
// CCCL 3.5.0's code departs from it (all-zero columns, infinities, f64 subnormal and huge
// maxima) the code as shipped is the planted mutant cub_rfa_3_5_{f32,f64}, which the harness
// must catch (impls/mutants/).
#include "common/per_element.h"
#include "cuda/cub/binned_accumulator.h"

namespace accucheck::impls {
namespace {

template <class T>
void binned_run(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  std::vector<double> column;
  for (std::size_t j = 0; j < w.elements; ++j) {
    w.column(j, column);
    result[j] = cuda_models::binned_sum<T>(column);
  }
}

template <class T>
Backend binned_model() {
  constexpr Format f = storage_format_v<T>;
  using Acc = cuda_models::BinnedAccumulator<T>;
  const std::string bound = "reproducible_binned(" + std::to_string(Acc::kFolds) + "," +
                            std::to_string(Acc::kBinWidth) + "," + std::string(name(f)) + ")";
  return dense_backend(with_format("cuda_model_cub_rfa_{F}", f), f, f, bound, Determinism::order_independent,
                       "CPU model of cub::DeviceReduce::Sum with determinism::gpu_to_gpu: Demmel & Nguyen's "
                       "3-fold binned sum with CUB's bins, as designed (CUB 3.5 departs on zero, inf, f64 extremes)",
                       &binned_run<T>);
}

ACCUCHECK_REGISTER_BACKEND(binned_model<float>());
ACCUCHECK_REGISTER_BACKEND(binned_model<double>());

}  // namespace
}  // namespace accucheck::impls
