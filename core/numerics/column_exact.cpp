// Element-parallel exact column sums (see column_exact.h for the method and its invariants).
#include "numerics/column_exact.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "numerics/enum_names.h"
#include "numerics/fast_exact.h"

// The kernels pass vectors wider than the baseline ABI's registers between always-inlined
// helpers, which never exist as calls: the ABI warnings about such calls do not apply
// (core/CMakeLists.txt adds -Wno-psabi for this file, which also silences GCC's notes).

#define ACCUCHECK_INLINE [[gnu::always_inline]] inline

namespace accucheck {
namespace {

constexpr int kGridStep = 51;       // q_(i+1) = q_i - 51: the remainder stays within the next window
constexpr int kLowestGrid = -1074;  // every double is a multiple of 2^-1074

// GCC/clang vector extensions: one type per width, so each target compiles the same code.
template <int W>
struct Vectors;
// U: the integer sums, unsigned so that lanes whose sums are discarded (a NaN, a column handed
// back) wrap instead of overflowing; a kept lane's sums are below 2^62 in magnitude.
template <>
struct Vectors<2> {
  typedef double D __attribute__((vector_size(16)));
  typedef std::int64_t I __attribute__((vector_size(16)));
  typedef std::uint64_t U __attribute__((vector_size(16)));
};
template <>
struct Vectors<4> {
  typedef double D __attribute__((vector_size(32)));
  typedef std::int64_t I __attribute__((vector_size(32)));
  typedef std::uint64_t U __attribute__((vector_size(32)));
};
template <>
struct Vectors<8> {
  typedef double D __attribute__((vector_size(64)));
  typedef std::int64_t I __attribute__((vector_size(64)));
  typedef std::uint64_t U __attribute__((vector_size(64)));
};

template <class V, class T>
ACCUCHECK_INLINE V splat(T value) {
  V v;
  for (std::size_t l = 0; l < sizeof(V) / sizeof(value); ++l) v[l] = value;
  return v;
}

template <class V>
ACCUCHECK_INLINE V load(const double* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// mask ? a : b, lane by lane (mask lanes all ones or all zeros).
template <class D, class I>
ACCUCHECK_INLINE D blend(I mask, D a, D b) {
  return std::bit_cast<D>((mask & std::bit_cast<I>(a)) | (~mask & std::bit_cast<I>(b)));
}

// Columns go through the kernels kBlock at a time: each step's row of a block is 512
// contiguous bytes (a whole column per vector would touch one page per step), and the state of
// the block's vectors stays in L1.
constexpr int kBlock = 64;

// What the first pass finds about a block's columns.
struct ColumnScan {
  double max_abs[kBlock], min_nonzero[kBlock];  // min_nonzero is +inf for a column of zeros
  std::uint64_t and_bits[kBlock];               // AND of the bit patterns: the sign survives only if all are negative
  std::int64_t special[kBlock];                 // non-zero: a NaN or an infinity
};

// Columns [0, vectors * W) of the block.
template <int W>
ACCUCHECK_INLINE void scan_columns(const double* initial, const double* rows, std::size_t row_stride, std::size_t steps,
                                   int vectors, ColumnScan& out) {
  using D = typename Vectors<W>::D;
  using I = typename Vectors<W>::I;
  constexpr int kVectors = kBlock / W;
  const I abs_mask = splat<I>(std::int64_t{0x7fff'ffff'ffff'ffff});
  const D largest = splat<D>(std::numeric_limits<double>::max());
  const D infinity = splat<D>(std::numeric_limits<double>::infinity());
  const D zero = splat<D>(0.0);
  D max_abs[kVectors], min_nonzero[kVectors];
  I and_bits[kVectors], special[kVectors];
  for (int v = 0; v < vectors; ++v) {
    max_abs[v] = zero;
    min_nonzero[v] = infinity;
    and_bits[v] = splat<I>(std::int64_t{-1});
    special[v] = splat<I>(std::int64_t{0});
  }
  for (std::size_t t = 0; t <= steps; ++t) {
    const double* row = t == 0 ? initial : rows + (t - 1) * row_stride;
    for (int v = 0; v < vectors; ++v) {
      const D x = load<D>(row + v * W);
      const I bits = std::bit_cast<I>(x);
      const D a = std::bit_cast<D>(bits & abs_mask);
      special[v] |= ~(a <= largest);  // NaN compares false
      max_abs[v] = blend(a > max_abs[v], a, max_abs[v]);
      const D candidate = blend(a != zero, a, infinity);
      min_nonzero[v] = blend(candidate < min_nonzero[v], candidate, min_nonzero[v]);
      and_bits[v] &= bits;
    }
  }
  for (int v = 0; v < vectors; ++v) {
    std::memcpy(out.max_abs + v * W, &max_abs[v], sizeof(D));
    std::memcpy(out.min_nonzero + v * W, &min_nonzero[v], sizeof(D));
    std::memcpy(out.and_bits + v * W, &and_bits[v], sizeof(I));
    std::memcpy(out.special + v * W, &special[v], sizeof(I));
  }
}

// The integer sums over grid g of a block's columns: S = sum k_g, P = sum k_g over the addends
// with the sign bit clear; `left` is non-zero where a remainder was left after the last grid.
struct GridSums {
  std::int64_t sum[kMaxGrids][kBlock], positive[kMaxGrids][kBlock];
  std::int64_t left[kBlock];
};

// One vector of columns at a time, down all the steps: its state stays in registers, and the
// block's rows, just read by scan_columns, are in cache.
template <int W, int G>
ACCUCHECK_INLINE void split_columns(const double* initial, const double* rows, std::size_t row_stride,
                                    std::size_t steps, int vectors, const double (&constant)[kMaxGrids][kBlock],
                                    GridSums& out) {
  using D = typename Vectors<W>::D;
  using I = typename Vectors<W>::I;
  using U = typename Vectors<W>::U;
  const U abs_mask = splat<U>(std::uint64_t{0x7fff'ffff'ffff'ffff});
  const D zero = splat<D>(0.0);
  for (int v = 0; v < vectors; ++v) {
    D c[G];
    U sum[G], positive[G];
    for (int g = 0; g < G; ++g) {
      c[g] = load<D>(constant[g] + v * W);
      sum[g] = positive[g] = splat<U>(std::uint64_t{0});
    }
    U left = splat<U>(std::uint64_t{0});
    const double* column = rows + v * W;
    for (std::size_t t = 0; t <= steps; ++t) {
      const D x = load<D>(t == 0 ? initial + v * W : column + (t - 1) * row_stride);
      const U is_positive = std::bit_cast<U>(I(x >= zero));  // -0 too, whose parts are all 0
      D r = x;
      for (int g = 0; g < G; ++g) {
        const D shifted = r + c[g];
        const U k = std::bit_cast<U>(shifted) - std::bit_cast<U>(c[g]);
        sum[g] += k;
        positive[g] += k & is_positive;
        r = r - (shifted - c[g]);
      }
      left |= std::bit_cast<U>(r) & abs_mask;
    }
    for (int g = 0; g < G; ++g) {  // two's complement: the kept lanes' signed sums
      std::memcpy(out.sum[g] + v * W, &sum[g], sizeof(U));
      std::memcpy(out.positive[g] + v * W, &positive[g], sizeof(U));
    }
    std::memcpy(out.left + v * W, &left, sizeof(U));
  }
}

// The remainders below the last of G grids of vector v, of the steps where a lane has one:
// remainder[i * W + l] = r and signed_remainder[i * W + l] = r with the sign of the addend it
// came from (its share of A), for i < the count returned.
template <int W, int G>
ACCUCHECK_INLINE std::size_t collect_remainders(const double* initial, const double* rows, std::size_t row_stride,
                                                std::size_t steps, int v, const double (&constant)[kMaxGrids][kBlock],
                                                double* remainder, double* signed_remainder) {
  using D = typename Vectors<W>::D;
  using I = typename Vectors<W>::I;
  using U = typename Vectors<W>::U;
  const U abs_mask = splat<U>(std::uint64_t{0x7fff'ffff'ffff'ffff});
  const D zero = splat<D>(0.0);
  D c[G];
  for (int g = 0; g < G; ++g) c[g] = load<D>(constant[g] + v * W);
  std::size_t count = 0;
  for (std::size_t t = 0; t <= steps; ++t) {
    const D x = load<D>(t == 0 ? initial + v * W : rows + v * W + (t - 1) * row_stride);
    D r = x;
    for (int g = 0; g < G; ++g) {
      const D shifted = r + c[g];
      r = r - (shifted - c[g]);
    }
    const I is_positive = x >= zero;
    const D signed_r = blend(is_positive, r, zero - r);  // exact negation
    const U nonzero = std::bit_cast<U>(r) & abs_mask;
    std::uint64_t any = 0;
    for (int l = 0; l < W; ++l) any |= nonzero[l];
    // Written at `count` every time, kept (count advances) only where a lane has a remainder.
    std::memcpy(remainder + count * W, &r, sizeof(D));
    std::memcpy(signed_remainder + count * W, &signed_r, sizeof(D));
    count += any != 0;
  }
  return count;
}

// A two's complement integer of kWords 64-bit words: sum_g v_g * 2^(shift_g), shifts <= 153.
constexpr int kWords = 5;
using u128 = unsigned __int128;

void add_shifted(std::uint64_t (&acc)[kWords], __int128 value, int shift) {
  std::uint64_t word[kWords];
  const std::uint64_t fill = value < 0 ? ~std::uint64_t{0} : 0;
  word[0] = static_cast<std::uint64_t>(value);
  word[1] = static_cast<std::uint64_t>(static_cast<u128>(value) >> 64);
  for (int i = 2; i < kWords; ++i) word[i] = fill;
  const int whole = shift / 64, bits = shift % 64;
  std::uint64_t shifted[kWords];
  for (int i = kWords - 1; i >= 0; --i) {
    const int from = i - whole;
    const std::uint64_t hi = from >= 0 ? word[from] : 0;
    const std::uint64_t lo = from - 1 >= 0 ? word[from - 1] : 0;
    shifted[i] = bits == 0 ? hi : (hi << bits) | (lo >> (64 - bits));
  }
  u128 carry = 0;
  for (int i = 0; i < kWords; ++i) {
    carry += static_cast<u128>(acc[i]) + shifted[i];
    acc[i] = static_cast<std::uint64_t>(carry);
    carry >>= 64;
  }
}

// acc * 2^(base + 1074) into target (sign and magnitude); base >= -1074.
void store_fixed(FixedInt& target, std::uint64_t (&acc)[kWords], int base) {
  const bool negative = acc[kWords - 1] >> 63;
  if (negative) {  // two's complement negation
    u128 carry = 1;
    for (auto& w : acc) {
      carry += static_cast<u128>(~w);
      w = static_cast<std::uint64_t>(carry);
      carry >>= 64;
    }
  }
  int count = kWords;
  while (count > 1 && acc[count - 1] == 0) --count;
  set_fixed_shifted(target, acc, count, base + fixed_scale, negative);
}

// The grids one column takes: q[0..grids), at most kMaxGrids (the remainders below the last are
// summed apart); 0 grids when its largest magnitude is 2^1021 or more.
struct ColumnGrids {
  int grids = 0;
  int q[kMaxGrids] = {};
};

// floor(log2 x) of a finite x > 0, subnormals included (ilogb without the call).
int exponent_of(double x) {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const int biased = static_cast<int>(bits >> 52);
  if (biased != 0) return biased - 1023;
  return -1074 + 63 - std::countl_zero(bits);  // subnormal: the top set bit of the mantissa
}

// 1.5 * 2^(q + 52), q in [-1074, 970]: always a normal double.
double grid_constant(int q) {
  return std::bit_cast<double>((static_cast<std::uint64_t>(q + 52 + 1023) << 52) | (std::uint64_t{1} << 51));
}

// Remainders of a column up to this many are added as fixed-point integers (to_fixed), more
// through FastExactAccumulator.
constexpr std::size_t kFewRemainders = 4;

ColumnGrids grids_for(double max_abs, double min_nonzero, Format f) {
  ColumnGrids c;
  const int top = exponent_of(max_abs);
  if (top > 1020) return c;  // C_1 = 1.5 * 2^(top + 2) must be finite
  const int q1 = std::max(top - 50, kLowestGrid);
  // Every value of f at least min_nonzero is a multiple of the ulp of min_nonzero.
  const auto& t = traits(f);
  const int lowest_bit = std::max(std::max(exponent_of(min_nonzero), t.emin) - t.precision + 1, kLowestGrid);
  const int needed = 1 + (std::max(q1 - lowest_bit, 0) + kGridStep - 1) / kGridStep;
  c.grids = std::min(needed, kMaxGrids);  // what lies below the last grid is summed as remainders
  for (int g = 0; g < kMaxGrids; ++g) c.q[g] = std::max(q1 - kGridStep * g, kLowestGrid);
  return c;
}

void zero_sum(ExactSum& e, std::uint64_t count, bool all_negative_zero) {
  e.special = Special::none;
  e.sum = 0;
  e.abs_sum = 0;
  e.max_abs = 0.0;
  e.count = count;
  e.all_negative_zero = all_negative_zero;
}

// The block's columns l < lanes (of vectors * W read) at initial[l] and rows[t * row_stride + l].
template <int W>
ACCUCHECK_INLINE void sum_block(const double* initial, const double* rows, std::size_t row_stride, std::size_t steps,
                                Format f, int vectors, int lanes, ExactSum* out, std::uint8_t* summed) {
  ColumnScan scan;
  scan_columns<W>(initial, rows, row_stride, steps, vectors, scan);
  ColumnGrids grids[kBlock];
  double constant[kMaxGrids][kBlock];
  int block_grids = 0;
  for (int l = 0; l < vectors * W; ++l) {
    if (l < lanes) summed[l] = 0;
    if (l >= lanes || scan.special[l] != 0) {
    } else if (scan.max_abs[l] == 0) {
      zero_sum(out[l], steps + 1, scan.and_bits[l] >> 63);
      summed[l] = 1;
    } else {
      grids[l] = grids_for(scan.max_abs[l], scan.min_nonzero[l], f);
      block_grids = std::max(block_grids, grids[l].grids);
    }
    for (int g = 0; g < kMaxGrids; ++g)  // lanes not split here get a harmless grid
      constant[g][l] = grid_constant(grids[l].grids > 0 ? grids[l].q[g] : 0);
  }
  if (block_grids == 0) return;
  GridSums sums;
  thread_local FixedInt rest_sums[kBlock], signed_rest_sums[kBlock];  // the remainders' S and A shares
  switch (block_grids) {
    case 1: split_columns<W, 1>(initial, rows, row_stride, steps, vectors, constant, sums); break;
    case 2: split_columns<W, 2>(initial, rows, row_stride, steps, vectors, constant, sums); break;
    case 3: split_columns<W, 3>(initial, rows, row_stride, steps, vectors, constant, sums); break;
    default: split_columns<W, 4>(initial, rows, row_stride, steps, vectors, constant, sums); break;
  }
  // Remainders below the last grid (a spread wider than the grids, a value off the format's
  // grid): taken again, vector by vector, and summed exactly: a column's few non-zero ones (a
  // subnormal among normal values, say) as fixed-point integers, more by FastExactAccumulator.
  thread_local std::vector<double> remainder, signed_remainder;
  for (int v = 0; v < vectors; ++v) {
    bool any = false;
    for (int l = v * W; l < std::min(lanes, (v + 1) * W); ++l) any = any || (grids[l].grids > 0 && sums.left[l] != 0);
    if (!any) continue;
    remainder.resize((steps + 1) * W);
    signed_remainder.resize((steps + 1) * W);
    std::size_t count = 0;
    switch (block_grids) {
      case 1:
        count = collect_remainders<W, 1>(initial, rows, row_stride, steps, v, constant, remainder.data(),
                                         signed_remainder.data());
        break;
      case 2:
        count = collect_remainders<W, 2>(initial, rows, row_stride, steps, v, constant, remainder.data(),
                                         signed_remainder.data());
        break;
      case 3:
        count = collect_remainders<W, 3>(initial, rows, row_stride, steps, v, constant, remainder.data(),
                                         signed_remainder.data());
        break;
      default:
        count = collect_remainders<W, 4>(initial, rows, row_stride, steps, v, constant, remainder.data(),
                                         signed_remainder.data());
        break;
    }
    for (int l = v * W; l < std::min(lanes, (v + 1) * W); ++l) {
      if (grids[l].grids == 0 || sums.left[l] == 0) continue;
      const auto lane = static_cast<std::size_t>(l - v * W);
      std::size_t nonzero = 0;
      for (std::size_t i = 0; i < count; ++i) nonzero += remainder[i * W + lane] != 0;
      if (nonzero <= kFewRemainders) {
        // A few (a subnormal among normal values): added as fixed-point integers, cheaper than
        // clearing and folding two accumulators.
        rest_sums[l] = 0;
        signed_rest_sums[l] = 0;
        for (std::size_t i = 0; i < count; ++i) {
          const std::size_t at = i * W + lane;
          if (remainder[at] == 0) continue;
          rest_sums[l] += to_fixed(remainder[at]);
          signed_rest_sums[l] += to_fixed(signed_remainder[at]);
        }
        continue;
      }
      FastExactAccumulator rest, signed_rest;
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t at = i * W + lane;
        if (remainder[at] == 0) continue;
        rest.add(remainder[at]);
        signed_rest.add(signed_remainder[at]);
      }
      rest_sums[l] = rest.result().sum;
      signed_rest_sums[l] = signed_rest.result().sum;
    }
  }
  for (int l = 0; l < lanes; ++l) {
    if (grids[l].grids == 0) continue;
    ExactSum& e = out[l];  // every field written: sum and abs_sum by store_fixed
    e.special = Special::none;
    e.count = steps + 1;
    e.all_negative_zero = false;  // a non-zero addend
    e.max_abs = scan.max_abs[l];
    std::uint64_t s[kWords] = {}, a[kWords] = {};
    const int base = grids[l].q[block_grids - 1];
    for (int g = 0; g < block_grids; ++g) {
      const __int128 sum = sums.sum[g][l], positive = sums.positive[g][l];
      add_shifted(s, sum, grids[l].q[g] - base);
      add_shifted(a, 2 * positive - sum, grids[l].q[g] - base);  // sum over |x| of the parts
    }
    store_fixed(e.sum, s, base);
    store_fixed(e.abs_sum, a, base);
    if (sums.left[l] != 0) {
      e.sum += rest_sums[l];
      e.abs_sum += signed_rest_sums[l];
    }
    summed[l] = 1;
  }
}

template <int W>
ACCUCHECK_INLINE void sum_columns(const double* initial, const double* rows, std::size_t row_stride, std::size_t steps,
                                  std::size_t columns, Format f, ExactSum* out, std::uint8_t* summed) {
  for (std::size_t j = 0; j < columns; j += kBlock) {
    const int lanes = static_cast<int>(std::min<std::size_t>(kBlock, columns - j));
    const int vectors = (lanes + W - 1) / W;
    if (lanes % W == 0) {
      sum_block<W>(initial + j, rows + j, row_stride, steps, f, vectors, lanes, out + j, summed + j);
      continue;
    }
    // The last columns, padded with zero columns to whole vectors.
    const std::size_t width = static_cast<std::size_t>(vectors * W);
    thread_local std::vector<double> padded;
    padded.assign((steps + 1) * width, 0.0);
    for (int l = 0; l < lanes; ++l) {
      padded[static_cast<std::size_t>(l)] = initial[j + l];
      for (std::size_t t = 0; t < steps; ++t) padded[(t + 1) * width + l] = rows[t * row_stride + j + l];
    }
    sum_block<W>(padded.data(), padded.data() + width, width, steps, f, vectors, lanes, out + j, summed + j);
  }
}

using ColumnKernel = void (*)(const double*, const double*, std::size_t, std::size_t, std::size_t, Format, ExactSum*,
                              std::uint8_t*);

void sum_columns_portable(const double* initial, const double* rows, std::size_t row_stride, std::size_t steps,
                          std::size_t columns, Format f, ExactSum* out, std::uint8_t* summed) {
  sum_columns<2>(initial, rows, row_stride, steps, columns, f, out, summed);
}

// One list on the f16 grid: every f16 value (and every FP8 value) is k * 2^-24 with an integer
// |k| < 2^40, so a 64-bit integer sums 2^23 of them exactly (fixed point, SIMD across the list).
// k comes from t = |x| * 2^24 (exact: a power of two) with the round-to-integer constant
// 1.5 * 2^52: bits(t + C) - bits(C) = t for an integer t < 2^51, and (t + C) - C == t says that t
// was one. A NaN, an infinity, |x| >= 2^16 or a value off the grid marks the list `off_grid`.
struct GridListSums {
  std::int64_t sum = 0, abs_sum = 0;
  double max_abs = 0;
  std::uint64_t and_bits = ~std::uint64_t{0};
  bool off_grid = false;
};
constexpr double kF16GridScale = 0x1p24;                     // 1 / the f16 grid's unit
constexpr double kF16GridLimit = 0x1p40;                     // 2^16 on the grid
constexpr std::size_t kF16GridBlock = std::size_t{1} << 23;  // 2^23 * 2^40 = 2^63

template <int W>
ACCUCHECK_INLINE GridListSums f16_grid_block(const double* x, std::size_t n) {
  using D = typename Vectors<W>::D;
  using I = typename Vectors<W>::I;
  using U = typename Vectors<W>::U;
  // No lane comparisons but the maximum (they compile to scalar code on some paths): the grid
  // check is the bits of (t + C - C) - t, zero exactly for an integer t (NaN and infinity give
  // NaN), and |x| < 2^16 is checked on the block's maximum. Off the grid the lane sums are
  // garbage, and unsigned so that they wrap harmlessly; the block is refused then.
  const U abs_mask = splat<U>(std::uint64_t{0x7fff'ffff'ffff'ffff});
  const D scale = splat<D>(kF16GridScale), round = splat<D>(0x1.8p52);
  const U round_bits = std::bit_cast<U>(round);
  U sum = splat<U>(std::uint64_t{0}), abs_sum = sum, off_grid = sum, and_bits = ~sum;
  D max_abs = splat<D>(0.0);
  std::size_t i = 0;
  for (; i + W <= n; i += W) {
    const D v = load<D>(x + i);
    const U bits = std::bit_cast<U>(v);
    const D a = std::bit_cast<D>(bits & abs_mask);
    const D t = a * scale;
    const D rounded = t + round;
    off_grid |= std::bit_cast<U>((rounded - round) - t);
    const U k = std::bit_cast<U>(rounded) - round_bits;
    const U negative = std::bit_cast<U>(std::bit_cast<I>(bits) >> 63);  // all ones for a set sign bit
    sum += (k ^ negative) - negative;
    abs_sum += k;
    max_abs = a > max_abs ? a : max_abs;
    and_bits &= bits;
  }
  GridListSums out;
  std::uint64_t sum_bits = 0, abs_sum_bits = 0;
  for (int l = 0; l < W; ++l) {
    sum_bits += sum[l];
    abs_sum_bits += abs_sum[l];
    out.max_abs = std::max(out.max_abs, max_abs[l]);
    out.and_bits &= and_bits[l];
    out.off_grid = out.off_grid || off_grid[l] != 0;
  }
  if (out.off_grid) return out;  // the lane sums may be anything: not added to
  for (; i < n; ++i) {
    const double a = std::fabs(x[i]), t = a * kF16GridScale;
    if (!(t < kF16GridLimit) || (t + 0x1.8p52) - 0x1.8p52 != t) {
      out.off_grid = true;
      return out;
    }
    const auto k = static_cast<std::uint64_t>(t);
    sum_bits += std::signbit(x[i]) ? -k : k;  // unsigned: wraps as the lanes do
    abs_sum_bits += k;
    out.max_abs = std::max(out.max_abs, a);
    out.and_bits &= std::bit_cast<std::uint64_t>(x[i]);
  }
  out.off_grid = !(out.max_abs < kF16GridLimit / kF16GridScale);
  out.sum = static_cast<std::int64_t>(sum_bits);  // |sum| < 2^63 on the grid
  out.abs_sum = static_cast<std::int64_t>(abs_sum_bits);
  return out;
}

template <int W>
ACCUCHECK_INLINE bool f16_grid_sum(std::span<const double> addends, ExactSum& e) {
  __int128 sum = 0, abs_sum = 0;
  double max_abs = 0;
  std::uint64_t and_bits = ~std::uint64_t{0};
  for (std::size_t begin = 0; begin < addends.size(); begin += kF16GridBlock) {
    const GridListSums block =
        f16_grid_block<W>(addends.data() + begin, std::min(kF16GridBlock, addends.size() - begin));
    if (block.off_grid) return false;
    sum += block.sum;
    abs_sum += block.abs_sum;
    max_abs = std::max(max_abs, block.max_abs);
    and_bits &= block.and_bits;
  }
  // Two's complement words for store_fixed, at the grid's unit 2^-24.
  const auto words = [](__int128 value, std::uint64_t(&acc)[kWords]) {
    const std::uint64_t fill = value < 0 ? ~std::uint64_t{0} : 0;
    acc[0] = static_cast<std::uint64_t>(value);
    acc[1] = static_cast<std::uint64_t>(static_cast<u128>(value) >> 64);
    for (int w = 2; w < kWords; ++w) acc[w] = fill;
  };
  std::uint64_t s[kWords], a[kWords];
  words(sum, s);
  words(abs_sum, a);
  e.special = Special::none;
  store_fixed(e.sum, s, -24);
  store_fixed(e.abs_sum, a, -24);
  e.count = addends.size();
  e.max_abs = max_abs;
  e.all_negative_zero = max_abs == 0 && (and_bits >> 63) != 0;
  return true;
}

bool f16_grid_sum_portable(std::span<const double> addends, ExactSum& e) { return f16_grid_sum<2>(addends, e); }

#if defined(__x86_64__)
#define ACCUCHECK_X86_DISPATCH 1
__attribute__((target("avx2"))) void sum_columns_avx2(const double* initial, const double* rows, std::size_t row_stride,
                                                      std::size_t steps, std::size_t columns, Format f, ExactSum* out,
                                                      std::uint8_t* summed) {
  sum_columns<4>(initial, rows, row_stride, steps, columns, f, out, summed);
}

__attribute__((target("avx512f"))) void sum_columns_avx512(const double* initial, const double* rows,
                                                           std::size_t row_stride, std::size_t steps,
                                                           std::size_t columns, Format f, ExactSum* out,
                                                           std::uint8_t* summed) {
  sum_columns<8>(initial, rows, row_stride, steps, columns, f, out, summed);
}
__attribute__((target("avx2"))) bool f16_grid_sum_avx2(std::span<const double> addends, ExactSum& e) {
  return f16_grid_sum<4>(addends, e);
}
__attribute__((target("avx512f"))) bool f16_grid_sum_avx512(std::span<const double> addends, ExactSum& e) {
  return f16_grid_sum<8>(addends, e);
}
#endif

// The variant of kernel NAME (NAME_portable, NAME_avx2, NAME_avx512) for a SIMD path; the
// portable one where the build has no x86 dispatch.
#ifdef ACCUCHECK_X86_DISPATCH
#define ACCUCHECK_KERNEL_FOR_PATH(path, NAME) \
  ((path) == SimdPath::avx512 ? NAME##_avx512 : (path) == SimdPath::avx2 ? NAME##_avx2 : NAME##_portable)
#else
#define ACCUCHECK_KERNEL_FOR_PATH(path, NAME) ((void)(path), NAME##_portable)
#endif

ColumnKernel kernel(SimdPath path) { return ACCUCHECK_KERNEL_FOR_PATH(path, sum_columns); }

using GridListKernel = bool (*)(std::span<const double>, ExactSum&);

GridListKernel f16_grid_kernel(SimdPath path) { return ACCUCHECK_KERNEL_FOR_PATH(path, f16_grid_sum); }

}  // namespace

std::string_view name(SimdPath path) {
  static constexpr EnumNames<SimdPath, 3> names(
      {{SimdPath::portable, "portable"}, {SimdPath::avx2, "avx2"}, {SimdPath::avx512, "avx512"}});
  return names.name(path);
}

std::vector<SimdPath> supported_simd_paths() {
  std::vector<SimdPath> paths{SimdPath::portable};
#ifdef ACCUCHECK_X86_DISPATCH
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) paths.push_back(SimdPath::avx2);
  if (__builtin_cpu_supports("avx512f")) paths.push_back(SimdPath::avx512);
#endif
  return paths;
}

namespace {

// `path` where this CPU runs it, else the portable path; the CPU is asked once per process.
SimdPath runnable(SimdPath path) {
  static const std::vector<SimdPath> supported = supported_simd_paths();
  return std::find(supported.begin(), supported.end(), path) != supported.end() ? path : SimdPath::portable;
}

}  // namespace

SimdPath best_simd_path() {
  static const SimdPath best = supported_simd_paths().back();
  return best;
}

void column_exact_sums(const double* initial, const double* rows, std::size_t row_stride, std::size_t steps,
                       std::size_t columns, Format f, ExactSum* out, std::uint8_t* summed, SimdPath path) {
  if (steps + 1 > kMaxColumnLength) {
    std::fill(summed, summed + columns, std::uint8_t{0});
    return;
  }
  if (columns == 0) return;
  // With no steps, `rows` (an empty vector's data(), maybe null) is never read, but the kernels
  // still offset it (clang's UBSan: offset applied to a null pointer): point it at `initial`.
  if (steps == 0) rows = initial;
  kernel(runnable(path))(initial, rows, row_stride, steps, columns, f, out, summed);
}

bool f16_grid_exact_sum(std::span<const double> addends, ExactSum& out, SimdPath path) {
  if (addends.empty()) return false;
  return f16_grid_kernel(runnable(path))(addends, out);
}

ExactSum exact_sum_of_values(std::span<const double> addends, Format f) {
  if (f == Format::f16 || is_fp8(f)) {
    ExactSum e;
    if (f16_grid_exact_sum(addends, e)) return e;
  }
  return fast_exact_sum(addends);
}

}  // namespace accucheck
