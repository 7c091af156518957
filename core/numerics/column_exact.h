// Exact sums of many short columns at once, SIMD across the columns (element-parallel).
//
// A step-major workload holds step t's D addends contiguously, so D columns are summed side by
// side: one vector holds W columns' addends of a step (W = 2, 4 or 8 doubles) and the exact sums
// of those W columns are accumulated in vector registers, with no gather and no
// superaccumulator to clear and fold per column.
//
// The windowed integer method (the error-free splitting of Rump, Ogita and Oishi, "Accurate
// floating-point summation part I", SIAM J. Sci. Comput. 31(1), 2008, ExtractVector; applied as
// fixed grids as in Demmel and Nguyen's binned summation, ReproBLAS): for a column whose largest
// magnitude lies in [2^e, 2^(e+1)), grid i has unit 2^q_i, q_1 = e - 50, q_(i+1) = q_i - 51
// (never below 2^-1074, the unit of every double). With C_i = 1.5 * 2^(q_i + 52):
//   t = r + C_i;  k_i = bits(t) - bits(C_i);  r = r - (t - C_i)
// takes from the remainder r (at first the addend) its part on grid i, k_i * 2^q_i with
// |k_i| <= 2^51, exactly: t - C_i is exact (Sterbenz: t and C_i lie in one binade) and so is the
// new remainder (the bits of r below the grid; |r| < 2^(q_(i+1) + 51) stays in the window of the
// next grid). Integer sums of k_i over at most kMaxColumnLength addends stay below 2^62, and
// S = sum_i (sum k_i) * 2^q_i exactly, A likewise from the k_i of the positive addends
// (A_i = 2 P_i - S_i). The grids a column needs follow from its smallest non-zero magnitude and
// the format's precision, at most kMaxGrids of them; where a remainder is left after the last
// (a spread of exponents wider than the grids cover, such as a subnormal among normal values,
// or a value with more bits than its format has), that vector of columns is split again with
// the remainders kept, and the non-zero ones are summed exactly (S, and with their addends'
// signs, A): as fixed-point integers when a column has at most four, else by FastExactAccumulator. A column with a NaN or an infinity, a largest magnitude of 2^1021
// or more, or more than kMaxColumnLength addends is not summed here: the caller sums it with
// FastExactAccumulator. The result is the same ExactSum, field for field
// (core/numerics/column_exact_test.cpp checks every path against the Boost reference).
//
// Runtime dispatch: the same kernel compiled for SSE2 (every x86-64, and the portable path
// elsewhere), AVX2 and AVX-512F, chosen by what the CPU supports.
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
