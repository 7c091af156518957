// Boundary shapes: the sizes at which accumulation kernels change code path, and the widening of a
// generated workload to such a size.
//
// Kernels vectorize, tile and partition over the element dimension: a SIMD loop has a tail
// (D mod 8, 16), a CUDA kernel has warp and block edges (32, 256, 1024 threads) and a grid
// limit (65535 blocks in y and z), a thread pool has chunk boundaries. Bugs live there (a tail
// loop that drops or repeats an element, an inclusive bound that counts a block edge twice), so
// generate() widens a case, now and then, to such a size: the family's few adversarial columns
// are placed at the boundaries (the last element, the first, the last of a block and the first
// of the next) and every other element is trivial and cheap to judge (zeros, sums of +-2^e
// that are exact in any order, or copies of one adversarial column). The same applies to a
// sparse table's rows and embedding dim and to a product's batch (K) and columns (N).
#pragma once

#include <cstddef>

#include "checking/choice.h"
#include "checking/workload.h"

namespace accucheck {

// How often and how far generate() widens a case to a boundary size.
struct ShapeLimits {
  // One generated case in wide_one_in is widened to a size kernels
  // split at, the family's columns at the boundaries: a dense D up to max_wide_elements, a
  // sparse table up to max_wide_rows rows of max_wide_dim, a product's K and N up to
  // max_wide_batch and max_wide_cols, at most max_wide_values values in all (the scale itself
  // drawn, small ones likelier). max_wide_values = 0: never. A wide case costs some 40 ordinary
  // ones on average, hence 1 in 32 in campaigns (docs/detection.md: what it costs check).
  std::size_t wide_one_in = 32;
  std::size_t wide_scale_draws = 2;  // 1: every scale 2^k up to the limits equally likely (the property suite)
  std::size_t max_wide_elements = std::size_t{1} << 17;
  std::size_t max_wide_rows = std::size_t{1} << 20;
  std::size_t max_wide_dim = 1024;
  std::size_t max_wide_batch = 4096;
  std::size_t max_wide_cols = 1024;
  std::size_t max_wide_values = std::size_t{1} << 20;
};

// How often generate() gives a case a non-contiguous memory layout.
struct LayoutLimits {
  // One dense or sparse case in layout_one_in gets a non-contiguous memory layout (workload.h:
  // transposed, sliced, padded), drawn last; only backends that accept strides see it. 0: never.
  std::size_t layout_one_in = 4;
};

// The units kernels split at: 8 and 16 lanes (f32 in AVX2 and AVX-512), a warp (32), common
// block sizes (256, 1024 threads), the CUDA grid's y and z limit (65535 blocks).
inline constexpr std::size_t kBoundaryUnits[] = {8, 16, 32, 256, 1024, 65535};

// A size in [1, max]: uniform, a power of two, or a multiple of a unit, each exact, +1 or -1.
// The zero choice is 1; small multiples are likelier than large ones.
std::size_t draw_boundary_size(ChoiceStream& s, std::size_t max);
// A position in [0, size): the last, the first, the last of a unit's block or the first of the
// next, or uniform. The zero choice is the last.
std::size_t draw_boundary_position(ChoiceStream& s, std::size_t size);

// Widens w in place to a boundary size within the limits' max_wide_* (a dense D; a sparse
// table's rows and dim; a product's batch and columns), every original element kept whole at a
// boundary position, the added ones trivial. Leaves w as it is when the limits leave no room.
// Returns whether w changed.
bool widen_at_boundaries(ChoiceStream& s, const ShapeLimits& limits, Workload& w);

// A dense or sparse workload's memory layout (workload.h) as choices: element_major, gap,
// padding, buffer_gap (dense); table_padding, value_padding (sparse); nothing for a product.
// All zero choices are the contiguous layout. generate() draws a strided case's layout with
// decode_layout; the choice encoding (workload_encoding.h) ends with it. Padding is drawn within
// dense_padding_limit / layout_padding_limit (workload.h); encode_layout throws
// std::invalid_argument for a layout beyond them.
void encode_layout(ChoiceWriter& out, const Workload& w);
void decode_layout(ChoiceStream& s, Workload& w);

}  // namespace accucheck
