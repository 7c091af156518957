// cub::DeviceReduce::Sum: the dense backends and the benchmark's reference point. Compiled with
// --fmad=false like every kernel with a model (cub_rfa_models.cpp models gpu_to_gpu).
//
// CUB's deterministic "gpu_to_gpu" reduction (cuda::execution::require(determinism::gpu_to_gpu))
// first shipped in CCCL 3.1; the CUDA 13.0 toolkit carries CCCL 3.0.1 (CUB_VERSION 300001),
// which has neither cuda::execution nor the environment overloads. When the build finds the
// headers of PyPI's nvidia-cuda-cccl (impls/cuda/CMakeLists.txt puts them before the toolkit's
// for every .cu file), ACCUCHECK_HAVE_CUB_DETERMINISM is set and cub_reduce_with_determinism runs
// Sum under gpu_to_gpu or run_to_run.
#include <cub/device/device_reduce.cuh>
#if ACCUCHECK_HAVE_CUB_DETERMINISM
#include <cuda/execution>
#endif

#include "cuda/common/device_common.cuh"
#include "cuda/cub/kernels.h"

namespace accucheck::cuda {
namespace dev {

template <class T>
void cub_sum(const T* x, std::uint64_t n, T* out, DeviceBuffer& temp) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, x, out, static_cast<std::int64_t>(n)));
  if (temp.bytes() < bytes) temp = DeviceBuffer(bytes);
  CUDA_CHECK(cub::DeviceReduce::Sum(temp.as<void>(), bytes, x, out, static_cast<std::int64_t>(n)));
}

template <class T>
void launch_cub_reduce(const T* host_columns, std::uint64_t n, std::uint64_t sums, T* host_out) {
  DeviceBuffer temp;
  reduce_columns(host_columns, n, sums, host_out, [&](const T* columns, T* out) {
    for (std::uint64_t e = 0; e < sums; ++e) cub_sum(columns + e * n, n, out + e, temp);
  });
}

#if ACCUCHECK_HAVE_CUB_DETERMINISM
// Sum through the environment overload (CUB allocates its temporary storage itself).
template <class T, class Determinism>
void launch_cub_reduce_with(const T* host_columns, std::uint64_t n, std::uint64_t sums, T* host_out,
                            Determinism determinism) {
  const auto env = ::cuda::execution::require(determinism);
  reduce_columns(host_columns, n, sums, host_out, [&](const T* columns, T* out) {
    for (std::uint64_t e = 0; e < sums; ++e)
      CUDA_CHECK(cub::DeviceReduce::Sum(columns + e * n, out + e, static_cast<std::int64_t>(n), env));
  });
}
#endif

template <class T>
double cub_sum_of_device(const T* x, std::uint64_t n) {
  static DeviceBuffer* temp = new DeviceBuffer;  // reused: the benchmark times the reduction, not cudaMalloc
  static DeviceBuffer* out = new DeviceBuffer(sizeof(double));
  cub_sum(x, n, out->as<T>(), *temp);
  T r;
  CUDA_CHECK(cudaMemcpy(&r, out->as<T>(), sizeof r, cudaMemcpyDeviceToHost));
  return static_cast<double>(r);
}

}  // namespace dev

constexpr const char* kCubFormats = "the CUB backends run f32 and f64";

void cub_reduce(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  dev::in_format<double, float>(f, "cub_reduce", kCubFormats, [&]<class T>() {
    dev::launch_cub_reduce<T>(static_cast<const T*>(columns), n, elements, static_cast<T*>(out));
  });
}

#if ACCUCHECK_HAVE_CUB_DETERMINISM
void cub_reduce_with_determinism(Format f, CubDeterminism d, const void* columns, std::size_t n, std::size_t elements,
                                 void* out) {
  namespace det = ::cuda::execution::determinism;
  const auto run = [&](auto determinism) {
    dev::in_format<double, float>(f, "cub_reduce_with_determinism", kCubFormats, [&]<class T>() {
      dev::launch_cub_reduce_with<T>(static_cast<const T*>(columns), n, elements, static_cast<T*>(out), determinism);
    });
  };
  if (d == CubDeterminism::gpu_to_gpu)
    run(det::gpu_to_gpu);
  else
    run(det::run_to_run);
}
#endif

double cub_sum_device(const float* x, std::size_t n) { return dev::cub_sum_of_device(x, n); }
double cub_sum_device(const double* x, std::size_t n) { return dev::cub_sum_of_device(x, n); }

}  // namespace accucheck::cuda
