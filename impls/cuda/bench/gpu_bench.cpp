// The GPU benchmark of ci/gpu-check.sh: the exact device reduction (exact/exact.cu) against
// cub::DeviceReduce::Sum on 2^N addends generated on the device, f32 and f64, in GB/s of input
// read, as a fraction of CUB and of the device's peak memory bandwidth; each exact result is
// checked against the host oracle once. Reference point: ExBLAS's exact GPU sum reached about
// 61-68% of peak memory bandwidth; the target here is >= 50% of the H200's 4.8 TB/s on 2^28 f32.
//
//   accucheck_gpu_bench [--log2-n 28] [--repeats 20] [--peak-gbs 4800]
#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/cub/kernels.h"
#include "cuda/device.h"
#include "cuda/exact/kernels.h"
#include "numerics/fast_exact.h"

using namespace accucheck;

namespace {

template <class F>
double milliseconds(F f, int repeats) {
  f();  // warm-up (allocations, first launch)
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int i = 0; i < repeats; ++i) f();
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / repeats;
}

template <class T>
bool bench(const char* type, std::size_t n, int repeats, double peak_gbs) {
  T* x = static_cast<T*>(cuda::device_alloc(n * sizeof(T)));
  cuda::fill_device(x, n, 20240601);
  volatile double sink = 0;
  const double cub_ms = milliseconds([&] { sink = cuda::cub_sum_device(x, n); }, repeats);
  cuda::DeviceExactResult r{};
  const double exact_ms = milliseconds([&] { r = cuda::exact_sum_device(x, n); }, repeats);
  const double gb = static_cast<double>(n * sizeof(T)) / 1e9;
  const double cub_gbs = gb / (cub_ms / 1e3), exact_gbs = gb / (exact_ms / 1e3);

  // Check the exact result once against the host oracle.
  std::vector<T> host(n);
  cuda::copy_to_host(host.data(), x, n * sizeof(T));
  cuda::device_free(x);
  const auto t0 = std::chrono::steady_clock::now();
  FastExactAccumulator oracle;
  std::vector<double> chunk;
  for (std::size_t i = 0; i < n; i += 1 << 20) {
    const std::size_t end = std::min(n, i + (std::size_t{1} << 20));
    chunk.assign(host.begin() + static_cast<std::ptrdiff_t>(i), host.begin() + static_cast<std::ptrdiff_t>(end));
    oracle.add(std::span<const double>(chunk));
  }
  const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double want64 = oracle.rounded(Format::f64), want32 = oracle.rounded(Format::f32);
  const bool ok = std::memcmp(&want64, &r.rounded_f64, 8) == 0 && std::memcmp(&want32, &r.rounded_f32, 8) == 0;
  std::printf(
      "%s n=2^%d (%.2f GB): cub::DeviceReduce::Sum %.3f ms = %.0f GB/s (%.1f%% of peak); exact %.3f ms = %.0f GB/s "
      "(%.1f%% of peak, %.1f%% of CUB); exact result %s the host oracle (%.1f s on the host: %.0fx slower)\n",
      type, static_cast<int>(std::lround(std::log2(static_cast<double>(n)))), gb, cub_ms, cub_gbs,
      100 * cub_gbs / peak_gbs, exact_ms, exact_gbs, 100 * exact_gbs / peak_gbs, 100 * cub_ms / exact_ms,
      ok ? "EQUALS" : "DIFFERS FROM", host_s, host_s * 1e3 / exact_ms);
  std::printf("RESULT %s exact_gbs=%.1f cub_gbs=%.1f fraction_of_cub=%.3f fraction_of_peak=%.3f correct=%d\n", type,
              exact_gbs, cub_gbs, cub_ms / exact_ms, exact_gbs / peak_gbs, ok ? 1 : 0);
  (void)sink;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int log2_n = 28, repeats = 20;
  double peak_gbs = 4800;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--log2-n")
      log2_n = std::atoi(argv[i + 1]);
    else if (flag == "--repeats")
      repeats = std::atoi(argv[i + 1]);
    else if (flag == "--peak-gbs")
      peak_gbs = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--log2-n N] [--repeats R] [--peak-gbs GB/s]\n", argv[0]);
      return 2;
    }
  }
  const auto& device = cuda::device_status();
  if (!device.usable) {
    std::fprintf(stderr, "accucheck_gpu_bench: %s\n", device.description.c_str());
    return 3;
  }
  std::printf("device: %s; peak memory bandwidth taken as %.0f GB/s\n", device.description.c_str(), peak_gbs);
  const std::size_t n = std::size_t{1} << log2_n;
  bool ok = true;
  try {
    ok = bench<float>("f32", n, repeats, peak_gbs) && ok;
    ok = bench<double>("f64", n, repeats, peak_gbs) && ok;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accucheck_gpu_bench: %s\n", e.what());
    return 1;
  }
  return ok ? 0 : 1;
}
