// The atomicAdd scatter kernels: every addend lands on its element in whatever order the
// hardware serializes them (CPU model: atomic_models.cpp, one order per RunOptions::order_seed).
#include <cstring>
#include <vector>

#include "cuda/atomic/kernels.h"
#include "cuda/common/device_common.cuh"

namespace accucheck::cuda {
namespace dev {

// Every (step, element) addend lands on its element by atomicAdd, in whatever order the
// hardware serializes them. V is the value type, or the pair type for f16x2 / bf16x2 (the
// buffer and the addends are then laid out as pairs).
template <class V>
__global__ void atomic_kernel(const V* addends, std::uint64_t total, std::uint64_t slots, V* buffer) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t q = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; q < total; q += stride)
    atomicAdd(buffer + q % slots, addends[q]);
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
