// CUB's deterministic (gpu_to_gpu) reduction in CCCL 3.5.0 departs from its design on zeros,
// infinities, f64 subnormal maxima and f64 values near overflow.
//
// Standalone reproducer (needs CCCL >= 3.1 headers, i.e. newer than CUDA 13.0's CCCL 3.0.1, which
// has no cuda::execution; e.g. PyPI's nvidia-cuda-cccl, whose headers are in
// site-packages/nvidia/cu13/include/cccl). Build with those headers before the toolkit's:
//
//   nvcc -std=c++20 -arch=sm_90 -I<cccl> cccl_gpu_to_gpu_reduce.cu -o cccl_gpu_to_gpu_reduce
//
// Each case is one cub::DeviceReduce::Sum(d_in, d_out, n, env) over a few values with
// env = cuda::execution::require(cuda::execution::determinism::gpu_to_gpu), which runs the
// reproducible floating-point accumulator of cub/detail/rfa.cuh (K = 3 folds of binned summation,
// after Demmel & Nguyen / ReproBLAS). The same call with determinism::run_to_run is shown as a
// control. Every exact sum below is a value of the type, so a right answer is that value, bit for
// bit. "H100 2026-12-05" is what the same call returned on an NVIDIA H100 (CUDA 13.0, driver
// 580.159.04, CCCL 3.5.0 headers) inside accucheck; this file itself has not yet run on a GPU.
//
// Exit status: 1 if a gpu_to_gpu sum differs from the exact sum (the departures reproduce), 0 if
// none does, 2 on a CUDA error (no device, ...).
#include <cub/version.cuh>
#if CUB_VERSION < 300100
#error "CUB's gpu_to_gpu determinism needs CCCL >= 3.1 headers before the toolkit's (-I<cccl>)"
#endif
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <cuda/execution>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#define CHECK(call)                                                                                 \
  do {                                                                                              \
    cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), \
                   cudaGetErrorString(e_));                                                         \
      std::exit(2);                                                                                 \
    }                                                                                               \
  } while (0)

template <class T, class Determinism>
T device_sum(const std::vector<T>& values, Determinism determinism) {
  T *d_in = nullptr, *d_out = nullptr;
  CHECK(cudaMalloc(&d_in, values.size() * sizeof(T)));
  CHECK(cudaMalloc(&d_out, sizeof(T)));
  CHECK(cudaMemcpy(d_in, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
  const auto env = cuda::execution::require(determinism);
  CHECK(cub::DeviceReduce::Sum(d_in, d_out, static_cast<std::int64_t>(values.size()), env));
  CHECK(cudaDeviceSynchronize());
  T out;
  CHECK(cudaMemcpy(&out, d_out, sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return out;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
bool run_case(const char* type, const char* what, const std::vector<T>& values, T exact, const char* h100) {
  const T g2g = device_sum(values, cuda::execution::determinism::gpu_to_gpu);
  const T r2r = device_sum(values, cuda::execution::determinism::run_to_run);
  const bool departs = !same_bits(g2g, exact);
  std::printf("%s %-14s exact %-16a gpu_to_gpu %-18a run_to_run %-16a  H100 2026-12-05: %-16s %s\n", type, what,
              static_cast<double>(exact), static_cast<double>(g2g), static_cast<double>(r2r), h100,
              departs ? "DEPARTS" : "ok");
  return departs;
}

int main() {
  int runtime = 0, driver = 0, device = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, device));
  std::printf("CUB_VERSION %d (CCCL %d.%d.%d), CUDA runtime %d, driver %d, device %s (sm_%d%d)\n", CUB_VERSION,
              CUB_VERSION / 100000, CUB_VERSION / 100 % 1000, CUB_VERSION % 100, runtime, driver, prop.name, prop.major,
              prop.minor);

  const float finf = std::numeric_limits<float>::infinity();
  const double dinf = std::numeric_limits<double>::infinity();
  bool departs = false;
  // 1. A column of zeros: the folds are never set to their bins, deposits of 0 leave garbage.
  departs |= run_case<float>("f32", "{0}", {0.0f}, 0.0f, "-0x1.7fp-119");
  departs |= run_case<double>("f64", "{0}", {0.0}, 0.0, "-0x1.7ffffcp-1001");
  // 2. An infinity is deposited like a finite value, its last bit set: NaN.
  departs |= run_case<float>("f32", "{inf, 1}", {finf, 1.0f}, finf, "nan");
  departs |= run_case<double>("f64", "{inf, 1}", {dinf, 1.0}, dinf, "nan");
  // 3. f64 whose largest value is subnormal: its bin comes from frexpf of the value as a float (0).
  departs |= run_case<double>("f64", "{2^-1030}", {std::ldexp(1.0, -1030)}, std::ldexp(1.0, -1030), "0x0p+0");
  // 4. f64 near overflow: the conversion scales down by 2^-66 and "back up" by the same 2^-66.
  departs |= run_case<double>("f64", "{2^1000}", {std::ldexp(1.0, 1000)}, std::ldexp(1.0, 1000), "0x1p+868");

  std::printf(departs ? "REPRODUCES: gpu_to_gpu sums differ from the exact sums\n"
                      : "does not reproduce: every gpu_to_gpu sum equals the exact sum\n");
  return departs ? 1 : 0;
}
