// The atomicAdd scatter kernels (atomic.cu).
// Host entry points in plain C++ types, shared by the registration and the .cu file (docs/architecture.md,
// "Adding a built-in backend"; raw values and columns: common/raw_values.h).
#pragma once

#include <cstddef>

#include "numerics/format.h"

namespace accucheck::cuda {

// The buffer (`initial`, `elements` values) receives every step's addend (`addends`, step-major,
// steps*elements values) by atomicAdd: f32, f64, and f16 / bf16 as __half2 / __nv_bfloat162 pairs.
void atomic_scatter(Format f, const void* initial, const void* addends, std::size_t elements, std::size_t steps,
                    void* out);
}  // namespace accucheck::cuda
