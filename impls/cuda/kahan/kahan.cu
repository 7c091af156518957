// One thread per sum, Kahan over its terms in order (kahan.h, shared with the CPU model
// kahan_models.cpp); compiled with --fmad=false so that the compensation is not contracted.
#include "cuda/common/device_common.cuh"
#include "cuda/kahan/kahan.h"
#include "cuda/kahan/kernels.h"

namespace accucheck::cuda {
namespace dev {

// One thread per sum: Kahan over its terms in order (kahan/kahan.h, shared with the model).
template <class T>
__global__ void kahan_kernel(const T* columns, std::uint64_t n, std::uint64_t sums, T* out) {
  const std::uint64_t e = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e >= sums) return;
  const T* x = columns + e * n;
  out[e] = cuda_tree::kahan_sum<T>([x](std::uint64_t i) { return x[i]; }, n);
}

template <class T>
void launch_kahan(const T* host_columns, std::uint64_t n, std::uint64_t sums, T* host_out) {
  reduce_columns(host_columns, n, sums, host_out, [n, sums](const T* columns, T* out) {
    kahan_kernel<T><<<grid_for(sums, 128, 1u << 30), 128>>>(columns, n, sums, out);
    CUDA_CHECK_LAUNCH();
  });
}

}  // namespace dev

void kahan(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  dev::in_format<double, float>(f, "kahan", "the Kahan kernel runs f32 and f64", [&]<class T>() {
    dev::launch_kahan<T>(static_cast<const T*>(columns), n, elements, static_cast<T*>(out));
  });
}

}  // namespace accucheck::cuda
