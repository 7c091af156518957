// The tree kernels (tree.cu, ftz.cu): the trees of common/tree_config.h over columns.
// Host entry points in plain C++ types, shared by the registration and the .cu file (docs/architecture.md,
// "Adding a built-in backend"; raw values and columns: common/raw_values.h).
#pragma once

#include <cstddef>

#include "numerics/format.h"

namespace accucheck::cuda {

// The trees of common/tree_config.h.
void warp_tree(Format f, const void* columns, std::size_t n, std::size_t elements, void* out);
void block_reduce(Format f, const void* columns, std::size_t n, std::size_t elements, void* out);
// ftz.cu, compiled with --use_fast_math.
void warp_tree_ftz_f32(const float* columns, std::size_t n, std::size_t elements, float* out);
}  // namespace accucheck::cuda
