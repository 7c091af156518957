// The deterministic reduction kernels whose CPU order models must match bit for bit (compiled
// with --fmad=false; they add only, so there is nothing to contract, but the flag keeps it so if
// a multiplication is ever added), and the atomicAdd scatter kernels.
#include "cuda/common/kahan.h"
#include "cuda/kernels/api.h"
#include "cuda/kernels/tree_kernels.cuh"

namespace accucheck::cuda {
namespace dev {

struct IeeeBuild {};  // tree_kernels.cuh's Build tag for this translation unit

// One thread per sum: Kahan over its terms in order (common/kahan.h, shared with the model).
template <class T>
__global__ void kahan_kernel(const T* columns, std::uint64_t n, std::uint64_t sums, T* out) {
  const std::uint64_t e = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e >= sums) return;
  const T* x = columns + e * n;
  out[e] = cuda_tree::kahan_sum<T>([x](std::uint64_t i) { return x[i]; }, n);
}

// Every (step, element) addend lands on its element by atomicAdd, in whatever order the
// hardware serializes them. V is the value type, or the pair type for f16x2 / bf16x2 (the
// buffer and the addends are then laid out as pairs).
template <class V>
__global__ void atomic_kernel(const V* addends, std::uint64_t total, std::uint64_t slots, V* buffer) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t q = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; q < total; q += stride)
    atomicAdd(buffer + q % slots, addends[q]);
}

template <class T>
void launch_kahan(const T* host_columns, std::uint64_t n, std::uint64_t sums, T* host_out) {
  if (sums == 0) return;
  DeviceBuffer x(n * sums * sizeof(T)), out(sums * sizeof(T));
  x.upload(host_columns, n * sums * sizeof(T));
  kahan_kernel<T><<<grid_for(sums, 128, 1u << 30), 128>>>(x.as<T>(), n, sums, out.as<T>());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  out.download(host_out, sums * sizeof(T));
}

// initial: `slots` values of V; addends: steps * slots values of V, step-major.
template <class V>
void launch_atomic(const V* initial, const V* addends, std::uint64_t slots, std::uint64_t steps, V* host_out) {
  if (slots == 0) return;
  DeviceBuffer buffer(slots * sizeof(V)), a(slots * steps * sizeof(V));
  buffer.upload(initial, slots * sizeof(V));
  a.upload(addends, slots * steps * sizeof(V));
  if (steps > 0) {
    atomic_kernel<V><<<grid_for(slots * steps, 256, 4096), 256>>>(a.as<V>(), slots * steps, slots, buffer.as<V>());
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  buffer.download(host_out, slots * sizeof(V));
}

}  // namespace dev

void warp_tree(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  using dev::IeeeBuild;
  switch (f) {
    case Format::f64:
      return dev::launch_warp_tree<double, IeeeBuild>(static_cast<const double*>(columns), n, elements,
                                                      static_cast<double*>(out));
    case Format::f32:
      return dev::launch_warp_tree<float, IeeeBuild>(static_cast<const float*>(columns), n, elements,
                                                     static_cast<float*>(out));
    case Format::f16:
      return dev::launch_warp_tree<__half, IeeeBuild>(static_cast<const __half*>(columns), n, elements,
                                                      static_cast<__half*>(out));
    case Format::bf16:
      return dev::launch_warp_tree<__nv_bfloat16, IeeeBuild>(static_cast<const __nv_bfloat16*>(columns), n, elements,
                                                             static_cast<__nv_bfloat16*>(out));
  }
}

void block_reduce(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  using dev::IeeeBuild;
  switch (f) {
    case Format::f64:
      return dev::launch_block_reduce<double, IeeeBuild>(static_cast<const double*>(columns), n, elements,
                                                         static_cast<double*>(out));
    case Format::f32:
      return dev::launch_block_reduce<float, IeeeBuild>(static_cast<const float*>(columns), n, elements,
                                                        static_cast<float*>(out));
    case Format::f16:
      return dev::launch_block_reduce<__half, IeeeBuild>(static_cast<const __half*>(columns), n, elements,
                                                         static_cast<__half*>(out));
    case Format::bf16:
      return dev::launch_block_reduce<__nv_bfloat16, IeeeBuild>(static_cast<const __nv_bfloat16*>(columns), n, elements,
                                                                static_cast<__nv_bfloat16*>(out));
  }
}

void kahan(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  if (f == Format::f64)
    return dev::launch_kahan<double>(static_cast<const double*>(columns), n, elements, static_cast<double*>(out));
  if (f == Format::f32)
    return dev::launch_kahan<float>(static_cast<const float*>(columns), n, elements, static_cast<float*>(out));
  throw_cuda_failure(__FILE__, __LINE__, "kahan", "unsupported format", "the Kahan kernel runs f32 and f64");
}

void atomic_scatter(Format f, const void* initial, const void* addends, std::size_t elements, std::size_t steps,
                    void* out) {
  switch (f) {
    case Format::f64:
      return dev::launch_atomic<double>(static_cast<const double*>(initial), static_cast<const double*>(addends),
                                        elements, steps, static_cast<double*>(out));
    case Format::f32:
      return dev::launch_atomic<float>(static_cast<const float*>(initial), static_cast<const float*>(addends), elements,
                                       steps, static_cast<float*>(out));
    case Format::f16:
    case Format::bf16: {
      // Pairs: elements 2k and 2k+1 share one 32-bit atomic; an odd last element is paired with a
      // padding slot that receives -0 and is dropped.
      const std::size_t slots = (elements + 1) / 2;
      std::vector<std::uint16_t> init(2 * slots, 0x8000), add(2 * slots * steps, 0x8000), result(2 * slots);
      std::memcpy(init.data(), initial, elements * 2);
      for (std::size_t t = 0; t < steps; ++t)
        std::memcpy(add.data() + t * 2 * slots, static_cast<const std::uint16_t*>(addends) + t * elements,
                    elements * 2);
      if (f == Format::f16)
        dev::launch_atomic<__half2>(reinterpret_cast<const __half2*>(init.data()),
                                    reinterpret_cast<const __half2*>(add.data()), slots, steps,
                                    reinterpret_cast<__half2*>(result.data()));
      else
        dev::launch_atomic<__nv_bfloat162>(reinterpret_cast<const __nv_bfloat162*>(init.data()),
                                           reinterpret_cast<const __nv_bfloat162*>(add.data()), slots, steps,
                                           reinterpret_cast<__nv_bfloat162*>(result.data()));
      std::memcpy(out, result.data(), elements * 2);
      return;
    }
  }
}

}  // namespace accucheck::cuda
