// An exact superaccumulator whose per-addend deposit and final rounding are __host__ __device__:
// the device reductions of exact/exact.cu and the CPU model cuda_model_exact_superacc_* run
// this code, and exact/superacc_test.cpp checks it on the CPU against core's oracle.
//
// Representation (carry-save, after Neal, arXiv 1505.05571): kChunks signed 64-bit cells, cell i
// weighing 2^(32 i) in units of 2^-1074 (the fixed-point grid of core/numerics/exact.h), so the value is
// sum_i c[i] * 2^(32 i - 1074). Normalized, cells 0..kChunks-2 are in [0, 2^32) and the last
// cell carries the sign. 2^-1074 .. 2^1024 spans 2098 bits; 68 cells (2176 bits) leave 78 bits
// of headroom, far more than any count of addends needs.
//
// Deposit of a finite double x = m 2^(pos - 1074) (m < 2^53 the integer significand, pos =
// max(E, 1) - 1 for the biased exponent E): the 84-bit m << (pos mod 32) goes to cells
// pos/32 (its low 32 bits) and pos/32 + 1 (the rest, < 2^52), added or subtracted: no carries.
// A cell then holds less than 2^32 + k 2^52 after k deposits, below 2^63 for k <= 1024: the
// caller normalizes (propagates carries) at least every kMaxDeposits deposits.
// Cells are reached through a stride so that a thread block can keep one accumulator per thread
// in shared memory with cell i of thread t at [i * stride + t] (no bank conflicts).
//
// NaN and infinities never enter the cells: flags record them (kNaN, kPosInf, kNegInf), and
// kNotAllNegZero records an addend other than -0 (the sum is -0 only when every addend is).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda/common/hd.h"

namespace accucheck::exact_hd {

inline constexpr int kChunks = 68;
inline constexpr int kMaxDeposits = 1024;

enum : unsigned { kNaN = 1u, kPosInf = 2u, kNegInf = 4u, kNotAllNegZero = 8u };

// Bit position of a float's significand on the 2^-1074 grid: f32's unit 2^-149 is 2^925 units.
inline constexpr int kFloatOffset = 1074 - 149;

ACCUCHECK_HD_INLINE std::uint64_t double_bits(double x) {
  std::uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}
ACCUCHECK_HD_INLINE double double_from_bits(std::uint64_t b) {
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}
ACCUCHECK_HD_INLINE std::uint32_t float_bits(float x) {
  std::uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

// m < 2^53 at bit position pos (0 <= pos <= 2045): two cells, no carries.
ACCUCHECK_HD_INLINE void deposit_significand(std::int64_t* c, int stride, bool negative, std::uint64_t m, int pos) {
  const int i = pos >> 5, sh = pos & 31;
  const auto low = static_cast<std::int64_t>(static_cast<std::uint32_t>(m << sh));
  const auto high = static_cast<std::int64_t>(m >> (32 - sh));  // sh = 0: m >> 32
  if (negative) {
    c[i * stride] -= low;
    c[(i + 1) * stride] -= high;
  } else {
    c[i * stride] += low;
    c[(i + 1) * stride] += high;
  }
}

// Any 64-bit integer v times 2^(pos - 1074) (0 <= pos <= 32 * (kChunks - 3)): three cells, each
// gaining less than 2^32, so it counts as one deposit for the normalization rule.
ACCUCHECK_HD_INLINE void deposit_integer(std::int64_t* c, int stride, std::int64_t v, int pos) {
  const bool negative = v < 0;
  const std::uint64_t u = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  const int i = pos >> 5, sh = pos & 31;
  const auto p0 = static_cast<std::int64_t>(static_cast<std::uint32_t>(u << sh));
  const auto p1 = static_cast<std::int64_t>(static_cast<std::uint32_t>(sh == 0 ? u >> 32 : u >> (32 - sh)));
  const auto p2 = static_cast<std::int64_t>(sh == 0 ? 0 : u >> (64 - sh));
  if (negative) {
    c[i * stride] -= p0;
    c[(i + 1) * stride] -= p1;
    c[(i + 2) * stride] -= p2;
  } else {
    c[i * stride] += p0;
    c[(i + 1) * stride] += p1;
    c[(i + 2) * stride] += p2;
  }
}

ACCUCHECK_HD_INLINE void deposit_double(std::int64_t* c, int stride, double x, unsigned& flags) {
  const std::uint64_t bits = double_bits(x);
  const bool negative = (bits >> 63) != 0;
  const int e = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t m = bits & ((std::uint64_t{1} << 52) - 1);
  if (bits != (std::uint64_t{1} << 63)) flags |= kNotAllNegZero;
  if (e == 0x7ff) {
    flags |= m != 0 ? kNaN : (negative ? kNegInf : kPosInf);
    return;
  }
  if (e == 0) {
    if (m == 0) return;
    deposit_significand(c, stride, negative, m, 0);
    return;
  }
  m |= std::uint64_t{1} << 52;
  deposit_significand(c, stride, negative, m, e - 1);
}

ACCUCHECK_HD_INLINE void deposit_float(std::int64_t* c, int stride, float x, unsigned& flags) {
  const std::uint32_t bits = float_bits(x);
  const bool negative = (bits >> 31) != 0;
  const int e = static_cast<int>((bits >> 23) & 0xff);
  std::uint64_t m = bits & ((1u << 23) - 1);
  if (bits != (1u << 31)) flags |= kNotAllNegZero;
  if (e == 0xff) {
    flags |= m != 0 ? kNaN : (negative ? kNegInf : kPosInf);
    return;
  }
  if (e == 0) {
    if (m == 0) return;
    deposit_significand(c, stride, negative, m, kFloatOffset);
    return;
  }
  m |= 1u << 23;
  deposit_significand(c, stride, negative, m, kFloatOffset + e - 1);
}

// Propagates carries: cells 0..kChunks-2 into [0, 2^32), the sign in the last cell.
ACCUCHECK_HD_INLINE void normalize(std::int64_t* c, int stride) {
  for (int i = 0; i + 1 < kChunks; ++i) {
    const std::int64_t carry = c[i * stride] >> 32;  // arithmetic: floor(c / 2^32)
    c[i * stride] -= static_cast<std::int64_t>(static_cast<std::uint64_t>(carry) << 32);
    c[(i + 1) * stride] += carry;
  }
}

// The format rounded into: precision p (with the implicit bit), exponent of the smallest normal,
// exponent of the largest finite binade.
struct Target {
  int precision, emin, emax;
};
inline constexpr Target kF64{53, -1022, 1023};
inline constexpr Target kF32{24, -126, 127};
inline constexpr Target kF16{11, -14, 15};
inline constexpr Target kBF16{8, -126, 127};

namespace detail {

ACCUCHECK_HD_INLINE int highest_bit32(std::uint32_t v) {
  int h = 31;
  while (((v >> h) & 1u) == 0) --h;
  return h;
}
ACCUCHECK_HD_INLINE std::uint64_t cell(const std::int64_t* c, int i) {
  return i < kChunks ? static_cast<std::uint64_t>(c[i]) : 0;
}
// 64 bits of the (normalized, non-negative) magnitude starting at bit r >= 0.
ACCUCHECK_HD_INLINE std::uint64_t bits_from(const std::int64_t* c, int r) {
  const int w = r >> 5, sh = r & 31;
  std::uint64_t v = cell(c, w) >> sh;
  v |= cell(c, w + 1) << (32 - sh);
  if (sh > 0) v |= cell(c, w + 2) << (64 - sh);
  return v;
}
// Whether any bit below bit r is set.
ACCUCHECK_HD_INLINE bool any_below(const std::int64_t* c, int r) {
  if (r <= 0) return false;
  const int w = r >> 5, sh = r & 31;
  for (int i = 0; i < w; ++i)
    if (c[i] != 0) return true;
  return sh != 0 && (static_cast<std::uint64_t>(c[w]) & ((std::uint64_t{1} << sh) - 1)) != 0;
}

}  // namespace detail

// RNE of the exact value in `target`, as a double (every value of every target is one):
// NaN if a NaN was deposited or both infinities, else the infinity deposited, else the rounded
// sum with overflow to infinity, -0 only when every addend was -0. `c` (stride 1) is modified
// (normalized, and negated when the sum is negative).
ACCUCHECK_HD inline double round_to(std::int64_t* c, unsigned flags, Target target) {
  const double infinity = double_from_bits(0x7ff0000000000000ull);
  if ((flags & kNaN) || ((flags & kPosInf) && (flags & kNegInf))) return double_from_bits(0x7ff8000000000000ull);
  if (flags & kPosInf) return infinity;
  if (flags & kNegInf) return -infinity;
  normalize(c, 1);
  const bool negative = c[kChunks - 1] < 0;
  if (negative) {
    for (int i = 0; i < kChunks; ++i) c[i] = -c[i];
    normalize(c, 1);
  }
  int top = kChunks - 1;
  while (top >= 0 && c[top] == 0) --top;
  if (top < 0) return (flags & kNotAllNegZero) ? 0.0 : -0.0;
  const int msb = 32 * top + detail::highest_bit32(static_cast<std::uint32_t>(c[top]));  // bit index
  const int exponent = msb - 1074;                                                       // |S| in [2^e, 2^(e+1))
  const int quantum = (exponent > target.emin ? exponent : target.emin) - (target.precision - 1);
  const int r = quantum + 1074;  // lowest kept bit
  double magnitude;
  if (r <= 0) {  // every bit is kept (f64 subnormal range)
    magnitude = ldexp(static_cast<double>(detail::bits_from(c, 0)), -1074);
  } else {
    const int kept = msb - r + 1;  // 1..precision (0 when the value is below half a quantum)
    std::uint64_t m = kept > 0 ? detail::bits_from(c, r) & ((std::uint64_t{1} << kept) - 1) : 0;
    const bool round_bit = ((detail::bits_from(c, r - 1)) & 1u) != 0;
    const bool sticky = detail::any_below(c, r - 1);
    if (round_bit && (sticky || (m & 1u))) ++m;
    magnitude = ldexp(static_cast<double>(m), quantum);
  }
  const double largest = ldexp(2.0 - ldexp(1.0, 1 - target.precision), target.emax);
  if (magnitude > largest) magnitude = infinity;
  return negative ? -magnitude : magnitude;
}

// A whole accumulator with stride 1 (the per-element device backend, the CPU model, the tests).
struct SuperAccumulator {
  std::int64_t cell[kChunks] = {};
  unsigned flags = 0;
  int pending = 0;  // deposits since the last normalization

  ACCUCHECK_HD_INLINE void add(double x) {
    deposit_double(cell, 1, x, flags);
    if (++pending == kMaxDeposits) {
      normalize(cell, 1);
      pending = 0;
    }
  }
  ACCUCHECK_HD_INLINE void add(float x) {
    deposit_float(cell, 1, x, flags);
    if (++pending == kMaxDeposits) {
      normalize(cell, 1);
      pending = 0;
    }
  }
  // Merges another (both are normalized first, so the cell sums stay far below 2^63).
  ACCUCHECK_HD_INLINE void merge(SuperAccumulator& other) {
    normalize(cell, 1);
    normalize(other.cell, 1);
    for (int i = 0; i < kChunks; ++i) cell[i] += other.cell[i];
    flags |= other.flags;
    normalize(cell, 1);
    pending = 0;
  }
  // RNE(S) in the target; the accumulator stays usable.
  ACCUCHECK_HD_INLINE double rounded(Target t) const {
    SuperAccumulator copy = *this;
    return round_to(copy.cell, copy.flags, t);
  }
};

}  // namespace accucheck::exact_hd
