// The exact superaccumulator kernels (exact.cu), and device memory for the benchmark and device tests.
// Host entry points in plain C++ types, shared by the registration and the .cu file (docs/architecture.md,
// "Adding a built-in backend"; raw values and columns: common/raw_values.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "numerics/format.h"

namespace accucheck::cuda {

// The exact superaccumulator, one thread per sum; columns of double (f64) or float (every other
// format: each f16 / bf16 value is a float); out: RNE into f, as doubles.
void exact_columns(Format f, const void* columns, std::size_t n, std::size_t elements, double* out);

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
}  // namespace accucheck::cuda
