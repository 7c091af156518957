// The host entry points of the CUDA kernels (kernels/*.cu), in plain C++ types so that the
// registration code (register.cpp, the host compiler with core's headers) and the .cu files
// (nvcc, without Boost) share nothing but this header. Every function copies its inputs to the
// device, runs, copies the result back and synchronizes; a CUDA error throws BackendFailure
// (common/cuda_check.h).
//
// Value encodings ("raw"): f64 as double, f32 as float, f16 and bf16 as their 16-bit patterns
// (std::uint16_t). "Columns": `elements` sums of n terms each, sum j's terms contiguous at
// [j*n, (j+1)*n) in summation order (the buffer's value first).
#pragma once

#include <cstddef>
#include <cstdint>

#include "numerics/format.h"

namespace accucheck::cuda {

// The trees of common/tree_config.h.
void warp_tree(Format f, const void* columns, std::size_t n, std::size_t elements, void* out);
void block_reduce(Format f, const void* columns, std::size_t n, std::size_t elements, void* out);
// kernels/ftz.cu, compiled with --use_fast_math.
void warp_tree_ftz_f32(const float* columns, std::size_t n, std::size_t elements, float* out);
// One thread per sum (f32, f64).
void kahan(Format f, const void* columns, std::size_t n, std::size_t elements, void* out);
// The buffer (`initial`, `elements` values) receives every step's addend (`addends`, step-major,
// steps*elements values) by atomicAdd: f32, f64, and f16 / bf16 as __half2 / __nv_bfloat162 pairs.
void atomic_scatter(Format f, const void* initial, const void* addends, std::size_t elements, std::size_t steps,
                    void* out);
// cub::DeviceReduce::Sum over each column (f32, f64).
void cub_reduce(Format f, const void* columns, std::size_t n, std::size_t elements, void* out);
#if ACCUCHECK_HAVE_CUB_DETERMINISM
// The same through Sum(d_in, d_out, n, cuda::execution::require(determinism)) (CCCL >= 3.1): the
// binned accumulator for gpu_to_gpu, CUB's fixed tree for run_to_run.
enum class CubDeterminism { gpu_to_gpu, run_to_run };
void cub_reduce_with_determinism(Format f, CubDeterminism d, const void* columns, std::size_t n, std::size_t elements,
                                 void* out);
#endif
// The exact superaccumulator, one thread per sum; columns of double (f64) or float (every other
// format: each f16 / bf16 value is a float); out: RNE into f, as doubles.
void exact_columns(Format f, const void* columns, std::size_t n, std::size_t elements, double* out);

// Embedding backward over a sparse workload (core's SparseWorkload, flattened).
struct SparseArgs {
  std::size_t rows = 0, dim = 0, steps = 0;
  const std::size_t* step_offsets = nullptr;  // steps + 1
  const std::uint32_t* row_index = nullptr;   // one per pair
  std::size_t pairs = 0;
  const void* values = nullptr;   // pairs*dim raw values
  const void* initial = nullptr;  // rows*dim raw values
  void* out = nullptr;            // rows*dim raw values
};
// MXNet's EmbeddingGrad under grad_req 'add' (f32, f16): per step a stable radix sort of the
// pairs by row, then one block per distinct row adding its vectors onto G in sorted order.
void embedding_grad(Format f, const SparseArgs& args);
// Per step: stable radix sort by row, cub::DeviceSegmentedReduce::Sum over each row's vectors,
// then G + (segment sum) (f32).
void embedding_sort_segreduce_f32(const SparseArgs& args);

// ---- exact reduction of device-resident data (10^8 - 10^9 addends, never copied to the host)

inline constexpr int kExactCells = 68;  // exact/superacc.h kChunks
struct DeviceExactResult {
  std::int64_t cells[kExactCells];          // normalized carry-save cells: the exact value (exact/superacc.h)
  unsigned flags = 0;                       // exact/superacc.h kNaN, kPosInf, kNegInf, kNotAllNegZero
  double rounded_f64 = 0, rounded_f32 = 0;  // RNE of the sum, computed on the device
};
// The exact sum of x[0..n) (device pointers), or of |x| with `absolute` (A = sum |x|, for the
// bounds). The f32 path keeps per-thread binned double accumulators in shared memory (exact for
// up to 2^22 addends per thread and bin), the f64 path per-thread carry-save cells.
DeviceExactResult exact_sum_device(const float* x, std::size_t n, bool absolute = false);
DeviceExactResult exact_sum_device(const double* x, std::size_t n, bool absolute = false);

// For the benchmark and the device tests: device memory and timing without CUDA headers.
void* device_alloc(std::size_t bytes);
void device_free(void* p);
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
// Fills x[0..n) on the device with values of many exponents and both signs (a counter hash).
void fill_device(float* x, std::size_t n, std::uint64_t seed);
void fill_device(double* x, std::size_t n, std::uint64_t seed);
// cub::DeviceReduce::Sum of device data (the benchmark's reference point); result on the host.
double cub_sum_device(const float* x, std::size_t n);
double cub_sum_device(const double* x, std::size_t n);
}  // namespace accucheck::cuda
