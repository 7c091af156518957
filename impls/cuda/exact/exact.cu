// Exact reduction on the device (exact/superacc.h's deposit and rounding, __host__ __device__).
//
// exact_columns: one thread per sum, a whole superaccumulator per thread (the dense backend
//   cuda_exact_superacc_*, checked against its CPU model and the oracle).
// exact_sum_device(float*): the fast path for 10^8 - 10^9 addends. Each thread keeps 32 double
//   bins in shared memory, bin k for biased exponents 8k+1 .. 8k+8 (0 counts as 1): a float there
//   is a multiple of u_k = 2^(8k-149) below 2^31 u_k, so a double bin holds the exact sum of up
//   to 2^22 of them (2^22 * 2^31 = 2^53 units). At the end each bin is an integer number of u_k
//   below 2^53; the block sums them as int64 (256 * 2^53 < 2^63), and one thread folds the
//   32 x blocks integers into a superaccumulator and rounds.
// exact_sum_device(double*): per-thread carry-save cells in shared memory ([cell][thread], no bank
//   conflicts), normalized every 1024 deposits; the block sums normalized cells (< 2^32 each),
//   the final block sums the block cells (< 2^39 each, at most 2^20 blocks) and rounds.
// Neither result depends on the grid: the sum is exact, so the grid may follow the device.
#include <mutex>

#include "cuda/common/device_common.cuh"
#include "cuda/exact/kernels.h"
#include "cuda/exact/superacc.h"
#include "numerics/hash.h"

namespace accucheck::cuda {
namespace dev {

namespace hd = exact_hd;

// ---- one thread per sum -------------------------------------------------------------------

template <class In>
__global__ void exact_columns_kernel(const In* columns, std::uint64_t n, std::uint64_t sums, hd::Target target,
                                     double* out) {
  const std::uint64_t e = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e >= sums) return;
  hd::SuperAccumulator acc;
  const In* x = columns + e * n;
  for (std::uint64_t i = 0; i < n; ++i) acc.add(x[i]);
  out[e] = acc.rounded(target);
}

// ---- f32: binned doubles ------------------------------------------------------------------

constexpr unsigned kF32Threads = 256;
constexpr int kF32Bins = 32;
constexpr std::uint64_t kF32BinCapacity = std::uint64_t{1} << 22;  // deposits per thread and bin
constexpr std::size_t kF32Shared = sizeof(double) * kF32Bins * kF32Threads;

template <bool ABS>
__device__ __forceinline__ void bin_float(double* bins, float v, unsigned& flags) {
  if (ABS) v = fabsf(v);
  const unsigned bits = __float_as_uint(v);
  const unsigned e = (bits >> 23) & 0xffu;
  if (bits != 0x80000000u) flags |= hd::kNotAllNegZero;
  if (e == 0xffu) {
    flags |= (bits & 0x7fffffu) ? hd::kNaN : ((bits >> 31) ? hd::kNegInf : hd::kPosInf);
    return;
  }
  const unsigned k = ((e > 1u ? e : 1u) - 1u) >> 3;
  bins[k * kF32Threads] += static_cast<double>(v);  // exact (see above)
}

// Thread 0 of a block of THREADS: the block's flags, the OR of its warps'.
template <unsigned THREADS>
__device__ __forceinline__ void store_block_flags(const unsigned* warp_flags, unsigned* block_flags) {
  if (threadIdx.x != 0) return;
  unsigned f = 0;
  for (unsigned w = 0; w < THREADS / 32; ++w) f |= warp_flags[w];
  block_flags[blockIdx.x] = f;
}

template <bool ABS>
__global__ void __launch_bounds__(kF32Threads)
    exact_f32_pass1(const float* x, std::uint64_t n, long long* block_bins, unsigned* block_flags) {
  extern __shared__ double smem_bins[];
  double* bins = smem_bins + threadIdx.x;  // bin k at bins[k * kF32Threads]
#pragma unroll
  for (int k = 0; k < kF32Bins; ++k) bins[k * kF32Threads] = 0.0;
  unsigned flags = 0;
  const std::uint64_t thread = std::uint64_t{blockIdx.x} * kF32Threads + threadIdx.x;
  const std::uint64_t threads = std::uint64_t{gridDim.x} * kF32Threads;
  const bool aligned = (reinterpret_cast<std::uintptr_t>(x) & 15u) == 0;
  const std::uint64_t vectors = aligned ? n / 4 : 0;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  std::uint64_t q = thread;
  // Four 16-byte loads in flight per thread, then their sixteen deposits.
  for (; q + 3 * threads < vectors; q += 4 * threads) {
    float4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = __ldcs(x4 + q + u * threads);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      bin_float<ABS>(bins, v[u].x, flags);
      bin_float<ABS>(bins, v[u].y, flags);
      bin_float<ABS>(bins, v[u].z, flags);
      bin_float<ABS>(bins, v[u].w, flags);
    }
  }
  for (; q < vectors; q += threads) {
    const float4 v = __ldcs(x4 + q);
    bin_float<ABS>(bins, v.x, flags);
    bin_float<ABS>(bins, v.y, flags);
    bin_float<ABS>(bins, v.z, flags);
    bin_float<ABS>(bins, v.w, flags);
  }
  for (std::uint64_t p = vectors * 4 + thread; p < n; p += threads) bin_float<ABS>(bins, x[p], flags);

  // Bins to integers of u_k, summed over the block per bin.
  __shared__ long long warp_bins[kF32Threads / 32][kF32Bins];
  __shared__ unsigned warp_flags[kF32Threads / 32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll 4
  for (int k = 0; k < kF32Bins; ++k) {
    long long v = static_cast<long long>(ldexp(bins[k * kF32Threads], 149 - 8 * k));
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) warp_bins[warp][k] = v;
  }
  flags = __reduce_or_sync(0xffffffffu, flags);
  if (lane == 0) warp_flags[warp] = flags;
  __syncthreads();
  if (threadIdx.x < kF32Bins) {
    long long s = 0;
    for (unsigned w = 0; w < kF32Threads / 32; ++w) s += warp_bins[w][threadIdx.x];
    block_bins[std::uint64_t{blockIdx.x} * kF32Bins + threadIdx.x] = s;
  }
  store_block_flags<kF32Threads>(warp_flags, block_flags);
}

// One block of 32 threads: thread k sums bin k over the blocks as low and high 32-bit halves
// (each sum below 2^52 for up to 2^20 blocks), thread 0 folds them into a superaccumulator.
__global__ void exact_f32_final(const long long* block_bins, const unsigned* block_flags, unsigned blocks,
                                DeviceExactResult* result) {
  __shared__ long long low[kF32Bins], high[kF32Bins];
  __shared__ unsigned flags_of[kF32Bins];
  const unsigned k = threadIdx.x;
  long long lo = 0, hi = 0;
  unsigned flags = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    const long long v = block_bins[std::uint64_t{b} * kF32Bins + k];
    lo += v & 0xffffffffLL;
    hi += v >> 32;
  }
  for (unsigned b = k; b < blocks; b += kF32Bins) flags |= block_flags[b];
  low[k] = lo;
  high[k] = hi;
  flags_of[k] = flags;
  __syncthreads();
  if (k == 0) {
    hd::SuperAccumulator acc;
    for (int i = 0; i < kF32Bins; ++i) {
      const int pos = hd::kFloatOffset + 8 * i;  // u_i = 2^(8i - 149)
      hd::deposit_integer(acc.cell, 1, low[i], pos);
      hd::deposit_integer(acc.cell, 1, high[i], pos + 32);
      acc.flags |= flags_of[i];
    }
    hd::normalize(acc.cell, 1);
    for (int i = 0; i < hd::kChunks; ++i) result->cells[i] = acc.cell[i];
    result->flags = acc.flags;
    result->rounded_f64 = acc.rounded(hd::kF64);
    result->rounded_f32 = acc.rounded(hd::kF32);
  }
}

// ---- f64: per-thread carry-save cells -------------------------------------------------------

constexpr unsigned kF64Threads = 128;
constexpr std::size_t kF64Shared = sizeof(long long) * hd::kChunks * kF64Threads;

template <bool ABS>
__global__ void __launch_bounds__(kF64Threads)
    exact_f64_pass1(const double* x, std::uint64_t n, long long* block_cells, unsigned* block_flags) {
  extern __shared__ long long smem_cells[];
  std::int64_t* cells = reinterpret_cast<std::int64_t*>(smem_cells) + threadIdx.x;  // cell i at [i * kF64Threads]
  for (int i = 0; i < hd::kChunks; ++i) cells[i * kF64Threads] = 0;
  unsigned flags = 0;
  int pending = 0;
  const std::uint64_t thread = std::uint64_t{blockIdx.x} * kF64Threads + threadIdx.x;
  const std::uint64_t threads = std::uint64_t{gridDim.x} * kF64Threads;
  const bool aligned = (reinterpret_cast<std::uintptr_t>(x) & 15u) == 0;
  const std::uint64_t vectors = aligned ? n / 2 : 0;
  const double2* x2 = reinterpret_cast<const double2*>(x);
  auto deposit = [&](double v) {
    if (ABS) v = fabs(v);
    hd::deposit_double(cells, kF64Threads, v, flags);
    if (++pending == hd::kMaxDeposits) {
      hd::normalize(cells, kF64Threads);
      pending = 0;
    }
  };
  std::uint64_t q = thread;
  for (; q + threads < vectors; q += 2 * threads) {
    const double2 a = __ldcs(x2 + q), b = __ldcs(x2 + q + threads);
    deposit(a.x);
    deposit(a.y);
    deposit(b.x);
    deposit(b.y);
  }
  for (; q < vectors; q += threads) {
    const double2 a = __ldcs(x2 + q);
    deposit(a.x);
    deposit(a.y);
  }
  for (std::uint64_t p = vectors * 2 + thread; p < n; p += threads) deposit(x[p]);
  hd::normalize(cells, kF64Threads);
  __shared__ unsigned warp_flags[kF64Threads / 32];
  flags = __reduce_or_sync(0xffffffffu, flags);
  if (threadIdx.x % 32 == 0) warp_flags[threadIdx.x / 32] = flags;
  __syncthreads();
  const auto* all = reinterpret_cast<const std::int64_t*>(smem_cells);
  for (int i = threadIdx.x; i < hd::kChunks; i += kF64Threads) {
    long long s = 0;  // each cell below 2^32 (the last one small and signed): the sum stays below 2^39
    for (unsigned t = 0; t < kF64Threads; ++t) s += all[i * kF64Threads + t];
    block_cells[std::uint64_t{blockIdx.x} * hd::kChunks + i] = s;
  }
  store_block_flags<kF64Threads>(warp_flags, block_flags);
}

__global__ void exact_f64_final(const long long* block_cells, const unsigned* block_flags, unsigned blocks,
                                DeviceExactResult* result) {
  __shared__ long long sums[hd::kChunks];
  __shared__ unsigned flags_of[128];
  for (int i = threadIdx.x; i < hd::kChunks; i += blockDim.x) {
    long long s = 0;
    for (unsigned b = 0; b < blocks; ++b) s += block_cells[std::uint64_t{b} * hd::kChunks + i];
    sums[i] = s;
  }
  unsigned flags = 0;
  for (unsigned b = threadIdx.x; b < blocks; b += blockDim.x) flags |= block_flags[b];
  flags_of[threadIdx.x] = flags;
  __syncthreads();
  if (threadIdx.x == 0) {
    hd::SuperAccumulator acc;
    for (int i = 0; i < hd::kChunks; ++i) acc.cell[i] = sums[i];
    for (unsigned t = 0; t < blockDim.x; ++t) acc.flags |= flags_of[t];
    hd::normalize(acc.cell, 1);
    for (int i = 0; i < hd::kChunks; ++i) result->cells[i] = acc.cell[i];
    result->flags = acc.flags;
    result->rounded_f64 = acc.rounded(hd::kF64);
    result->rounded_f32 = acc.rounded(hd::kF32);
  }
}

// Scratch reused across calls (the benchmark times the reduction, not cudaMalloc): grows only.
struct Scratch {
  std::mutex lock;
  DeviceBuffer partial, flags, result;
  void reserve(std::size_t partial_bytes, std::size_t flag_bytes) {
    if (partial.bytes() < partial_bytes) partial = DeviceBuffer(partial_bytes);
    if (flags.bytes() < flag_bytes) flags = DeviceBuffer(flag_bytes);
    if (result.bytes() < sizeof(DeviceExactResult)) result = DeviceBuffer(sizeof(DeviceExactResult));
  }
};
Scratch& scratch() {
  static Scratch* s = new Scratch;  // never destroyed: no CUDA calls after the runtime shuts down
  return *s;
}

template <class Kernel>
unsigned resident_blocks(Kernel kernel, unsigned threads, std::size_t shared_bytes) {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads), shared_bytes));
  return static_cast<unsigned>(sms * (per_sm > 0 ? per_sm : 1));
}

}  // namespace dev

void exact_columns(Format f, const void* columns, std::size_t n, std::size_t elements, double* out) {
  using namespace dev;
  if (elements == 0) return;
  const hd::Target target = f == Format::f64   ? hd::kF64
                            : f == Format::f32 ? hd::kF32
                            : f == Format::f16 ? hd::kF16
                                               : hd::kBF16;
  const std::size_t size = f == Format::f64 ? sizeof(double) : sizeof(float);
  DeviceBuffer x(n * elements * size), result(elements * sizeof(double));
  x.upload(columns, n * elements * size);
  if (f == Format::f64)
    exact_columns_kernel<double>
        <<<grid_for(elements, 64, 1u << 30), 64>>>(x.as<double>(), n, elements, target, result.as<double>());
  else
    exact_columns_kernel<float>
        <<<grid_for(elements, 64, 1u << 30), 64>>>(x.as<float>(), n, elements, target, result.as<double>());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  result.download(out, elements * sizeof(double));
}

DeviceExactResult exact_sum_device(const float* x, std::size_t n, bool absolute) {
  using namespace dev;
  auto* pass1 = absolute ? &exact_f32_pass1<true> : &exact_f32_pass1<false>;
  std::lock_guard guard(scratch().lock);
  static unsigned resident[2] = {0, 0};  // per kernel: the occupancy queries cost more than a small sum
  if (!resident[absolute]) resident[absolute] = resident_blocks(pass1, kF32Threads, kF32Shared);
  unsigned blocks = resident[absolute];
  // Exactness: at most 2^22 deposits per thread and bin.
  const std::uint64_t needed = (n + kF32Threads * kF32BinCapacity - 1) / (kF32Threads * kF32BinCapacity);
  if (needed > blocks) blocks = static_cast<unsigned>(needed);
  if (blocks > (1u << 20))
    throw_cuda_failure(__FILE__, __LINE__, "exact_sum_device", "too many addends", "n exceeds 2^50");
  scratch().reserve(std::size_t{blocks} * kF32Bins * sizeof(long long), blocks * sizeof(unsigned));
  pass1<<<blocks, kF32Threads, kF32Shared>>>(x, n, scratch().partial.as<long long>(), scratch().flags.as<unsigned>());
  CUDA_CHECK_LAUNCH();
  exact_f32_final<<<1, kF32Bins>>>(scratch().partial.as<long long>(), scratch().flags.as<unsigned>(), blocks,
                                   scratch().result.as<DeviceExactResult>());
  CUDA_CHECK_LAUNCH();
  DeviceExactResult r;
  CUDA_CHECK(cudaMemcpy(&r, scratch().result.as<DeviceExactResult>(), sizeof r, cudaMemcpyDeviceToHost));
  return r;
}

DeviceExactResult exact_sum_device(const double* x, std::size_t n, bool absolute) {
  using namespace dev;
  auto* pass1 = absolute ? &exact_f64_pass1<true> : &exact_f64_pass1<false>;
  std::lock_guard guard(scratch().lock);
  static unsigned resident[2] = {0, 0};
  if (!resident[absolute]) resident[absolute] = resident_blocks(pass1, kF64Threads, kF64Shared);
  const unsigned blocks = resident[absolute];
  scratch().reserve(std::size_t{blocks} * hd::kChunks * sizeof(long long), blocks * sizeof(unsigned));
  pass1<<<blocks, kF64Threads, kF64Shared>>>(x, n, scratch().partial.as<long long>(), scratch().flags.as<unsigned>());
  CUDA_CHECK_LAUNCH();
  exact_f64_final<<<1, 128>>>(scratch().partial.as<long long>(), scratch().flags.as<unsigned>(), blocks,
                              scratch().result.as<DeviceExactResult>());
  CUDA_CHECK_LAUNCH();
  DeviceExactResult r;
  CUDA_CHECK(cudaMemcpy(&r, scratch().result.as<DeviceExactResult>(), sizeof r, cudaMemcpyDeviceToHost));
  return r;
}

// ---- device memory and test data --------------------------------------------------------------

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}
void device_free(void* p) { CUDA_CHECK(cudaFree(p)); }
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

namespace dev {

// Random sign, random significand, exponent spread over 2^-40 .. 2^40 (f32) or 2^-200 .. 2^200
// (f64): many bins and cells in use, heavy cancellation, no overflow of a float sum.
__global__ void fill_f32(float* x, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = splitmix64(seed ^ splitmix64(i));
    const unsigned exponent = 127 - 40 + static_cast<unsigned>((r >> 32) % 81);
    x[i] = __uint_as_float((static_cast<unsigned>(r >> 63) << 31) | (exponent << 23) |
                           static_cast<unsigned>(r & 0x7fffffu));
  }
}
__global__ void fill_f64(double* x, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = splitmix64(seed ^ splitmix64(i)), s = splitmix64(r);
    const std::uint64_t exponent = 1023 - 200 + (s % 401);
    x[i] =
        __longlong_as_double(static_cast<long long>(((r >> 63) << 63) | (exponent << 52) | (r & ((1ULL << 52) - 1))));
  }
}

}  // namespace dev

void fill_device(float* x, std::size_t n, std::uint64_t seed) {
  dev::fill_f32<<<dev::grid_for(n, 256, 4096), 256>>>(x, n, seed);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
}
void fill_device(double* x, std::size_t n, std::uint64_t seed) {
  dev::fill_f64<<<dev::grid_for(n, 256, 4096), 256>>>(x, n, seed);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace accucheck::cuda
