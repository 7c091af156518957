// CUB's reductions (cub.cu).
// Host entry points in plain C++ types, shared by the registration and the .cu file (docs/architecture.md,
// "Adding a built-in backend"; raw values and columns: common/raw_values.h).
#pragma once

#include <cstddef>

#include "numerics/format.h"

namespace accucheck::cuda {

// cub::DeviceReduce::Sum over each column (f32, f64).
void cub_reduce(Format f, const void* columns, std::size_t n, std::size_t elements, void* out);
#if ACCUCHECK_HAVE_CUB_DETERMINISM
// The same through Sum(d_in, d_out, n, cuda::execution::require(determinism)) (CCCL >= 3.1): the
// binned accumulator for gpu_to_gpu, CUB's fixed tree for run_to_run.
enum class CubDeterminism { gpu_to_gpu, run_to_run };
void cub_reduce_with_determinism(Format f, CubDeterminism d, const void* columns, std::size_t n, std::size_t elements,
                                 void* out);
#endif
// cub::DeviceReduce::Sum of device data (the benchmark's reference point); result on the host.
double cub_sum_device(const float* x, std::size_t n);
double cub_sum_device(const double* x, std::size_t n);
}  // namespace accucheck::cuda
