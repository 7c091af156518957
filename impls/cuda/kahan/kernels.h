// The Kahan kernel (kahan.cu).
// Host entry points in plain C++ types, shared by the registration and the .cu file (docs/architecture.md,
// "Adding a built-in backend"; raw values and columns: common/raw_values.h).
#pragma once

#include <cstddef>

#include "numerics/format.h"

namespace accucheck::cuda {

// One thread per sum (f32, f64).
void kahan(Format f, const void* columns, std::size_t n, std::size_t elements, void* out);
}  // namespace accucheck::cuda
