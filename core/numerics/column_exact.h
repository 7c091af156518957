// Exact sums of many short columns at once, SIMD across the columns (element-parallel), by
// error-free splitting onto fixed integer grids, dispatched at run time to SSE2, AVX2 or AVX-512
// (the method and why it is exact: docs/architecture.md, "Columns side by side").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "numerics/exact.h"
#include "numerics/format.h"

namespace accucheck {

enum class SimdPath : std::uint8_t { portable, avx2, avx512 };
std::string_view name(SimdPath path);

// The paths this CPU can run, portable first; and the widest of them (what is used by default).
std::vector<SimdPath> supported_simd_paths();
SimdPath best_simd_path();

// Columns of at most this many addends (the initial value included) are summed here.
inline constexpr std::size_t kMaxColumnLength = 2047;
inline constexpr int kMaxGrids = 4;

// Columns j in [0, columns): initial[j], then rows[t * row_stride + j] for t in [0, steps), the
// values of format f (a value that is not still gives an exact sum or a column left to the
// caller, never a wrong sum). summed[j] says whether out[j] was written; the others are the
// caller's. steps + 1 > kMaxColumnLength leaves every column to the caller.
void column_exact_sums(const double* initial, const double* rows, std::size_t row_stride, std::size_t steps,
                       std::size_t columns, Format f, ExactSum* out, std::uint8_t* summed,
                       SimdPath path = best_simd_path());

// One list of f16 values through 64-bit fixed point: every f16 (and FP8) value is k * 2^-24 with
// |k| < 2^40, so int64 lanes sum 2^23 of them exactly, SIMD across the list. False (out
// untouched) for an empty list or one holding a NaN, an infinity, a magnitude of 2^16 or more or
// a value off that grid: the caller sums those otherwise. The ExactSum is the same, field for field.
bool f16_grid_exact_sum(std::span<const double> addends, ExactSum& out, SimdPath path = best_simd_path());

// The exact sum of a list of values of format f: f16 and FP8 through f16_grid_exact_sum, the rest
// (and a list it refuses) through fast_exact_sum. The format only chooses the path: the result is exact
// whatever the values are.
ExactSum exact_sum_of_values(std::span<const double> addends, Format f);

}  // namespace accucheck
