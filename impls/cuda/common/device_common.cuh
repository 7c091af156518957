// Device-side helpers shared by the .cu files: value types per format, the -0 identity, the
// shuffle trees of common/tree_config.h, and an owning device buffer.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cuda/common/cuda_check.h"
#include "cuda/common/tree_config.h"
#include "cuda/common/tree_reduce.h"
#include "numerics/format.h"

namespace accucheck::cuda::dev {

// -0: the identity that keeps every sign (x + (-0) == x, also for x = +-0).
template <class T>
__device__ __forceinline__ T neg_zero();
template <>
__device__ __forceinline__ float neg_zero<float>() {
  return -0.0f;
}
template <>
__device__ __forceinline__ double neg_zero<double>() {
  return -0.0;
}
template <>
__device__ __forceinline__ __half neg_zero<__half>() {
  return __ushort_as_half(static_cast<unsigned short>(0x8000));
}
template <>
__device__ __forceinline__ __nv_bfloat16 neg_zero<__nv_bfloat16>() {
  return __ushort_as_bfloat16(static_cast<unsigned short>(0x8000));
}

// One correctly rounded addition (round to nearest even) in T.
__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ __half add(__half a, __half b) { return __hadd(a, b); }
__device__ __forceinline__ __nv_bfloat16 add(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }

// The warp tree of common/tree_reduce.h, the lane exchange being __shfl_down_sync: lane 0 ends
// with the warp's sum.
template <class T>
__device__ __forceinline__ T warp_reduce(T v) {
  return cuda_tree::warp_reduce(
      v, [](T mine, unsigned offset) { return __shfl_down_sync(0xffffffffu, mine, offset); },
      [](T a, T b) { return add(a, b); });
}

// The block level of common/tree_config.h: warp sums to shared memory, warp 0 reduces them
// (common/tree_reduce.h's second_level_lane). The result is valid in thread 0. `scratch` holds 32
// values of T.
template <class T, unsigned THREADS>
__device__ __forceinline__ T block_reduce(T v, T* scratch) {
  v = warp_reduce(v);
  if constexpr (THREADS == cuda_tree::kWarp) {
    return v;
  } else {
    const unsigned lane = threadIdx.x % cuda_tree::kWarp, warp = threadIdx.x / cuda_tree::kWarp;
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    if (warp == 0) {
      v = cuda_tree::second_level_lane(
          lane, THREADS / cuda_tree::kWarp, [scratch](unsigned w) { return scratch[w]; }, neg_zero<T>());
      v = warp_reduce(v);
    }
    return v;
  }
}

// Shared storage for 32 values of T (T may have constructors: __half, __nv_bfloat16).
template <class T>
__device__ __forceinline__ T* shared_scratch() {
  __shared__ alignas(16) unsigned char storage[32 * sizeof(double)];
  return reinterpret_cast<T*>(storage);
}

// An owning device allocation. cudaFree's status is not checked in the destructor (it cannot
// throw): a failure there is an earlier asynchronous error, which the synchronizing CUDA_CHECK
// before it has already reported.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes) CUDA_CHECK(cudaMalloc(&p_, bytes));
  }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (p_) cudaFree(p_);
      p_ = o.p_;
      bytes_ = o.bytes_;
      o.p_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* src, std::size_t bytes) {
    if (bytes) CUDA_CHECK(cudaMemcpy(p_, src, bytes, cudaMemcpyHostToDevice));
  }
  void download(void* dst, std::size_t bytes) const {
    if (bytes) CUDA_CHECK(cudaMemcpy(dst, p_, bytes, cudaMemcpyDeviceToHost));
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// The column kernels' host side: uploads `sums` columns of n values of T, calls
// reduce(columns, out) with device pointers, synchronizes and downloads the `sums` results.
template <class T, class Reduce>
void reduce_columns(const T* host_columns, std::uint64_t n, std::uint64_t sums, T* host_out, Reduce reduce) {
  if (sums == 0) return;
  DeviceBuffer x(n * sums * sizeof(T)), out(sums * sizeof(T));
  x.upload(host_columns, n * sums * sizeof(T));
  reduce(x.as<const T>(), out.as<T>());
  CUDA_CHECK(cudaDeviceSynchronize());
  out.download(host_out, sums * sizeof(T));
}

// The format of each device type the kernels run.
template <class T>
inline constexpr Format format_of_v = std::is_same_v<T, double>   ? Format::f64
                                      : std::is_same_v<T, float>  ? Format::f32
                                      : std::is_same_v<T, __half> ? Format::f16
                                                                  : Format::bf16;

// The entry points of kernels.h take a Format and untyped pointers: this calls
// launch.template operator()<T>() for the one of Types whose format is f. Any other format is
// the calling backend's failure (`entry`, and `supported` saying what it runs).
template <class... Types, class Launch>
void in_format(Format f, const char* entry, const char* supported, Launch&& launch) {
  const bool launched = ((f == format_of_v<Types> ? (launch.template operator()<Types>(), true) : false) || ...);
  if (!launched) throw_cuda_failure(__FILE__, __LINE__, entry, "unsupported format", supported);
}

// Grid size for a grid-stride loop over `work` items with `threads` per block.
inline unsigned grid_for(std::uint64_t work, unsigned threads, unsigned cap = 65535u * 8u) {
  const std::uint64_t blocks = (work + threads - 1) / threads;
  return static_cast<unsigned>(blocks == 0 ? 1 : (blocks < cap ? blocks : cap));
}

}  // namespace accucheck::cuda::dev
