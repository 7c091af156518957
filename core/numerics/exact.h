// The exact oracle: exact sums of addends of any format, in Boost.Multiprecision.
//
// Every finite value of every format is an integer multiple of 2^-1074 (the smallest f64
// subnormal) below 2^1024, so an exact sum is a fixed-point integer N with value N * 2^-1074.
// 2240 bits hold 1074 fraction bits, 1024 integer bits and 142 carry bits: the sum stays
// exact for far more than 2^40 addends (2^40 addends below 2^1024 need 2138 bits).
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <span>
#include <string>

#include "numerics/format.h"

namespace accucheck {

namespace mp = boost::multiprecision;

inline constexpr int fixed_scale = 1074;
inline constexpr unsigned fixed_bits = 2240;
using FixedInt = mp::number<mp::cpp_int_backend<fixed_bits, fixed_bits, mp::signed_magnitude, mp::unchecked, void>>;
using BigInt = mp::cpp_int;  // unbounded, for bound arithmetic and parsing

// The fixed-point integer of a finite double: x == to_fixed(x) * 2^-1074 exactly.
FixedInt to_fixed(double finite_value);

// Round-to-nearest-even of the exact value N * 2^-1074 into f, with overflow to
// overflow_value(f) (infinity; NaN for e4m3).
// Zero gives +0 (the caller decides the sign of an exact zero).
double round_fixed(const FixedInt& value, Format f);

// The exact value as a hex significand times a power of two: "-0x1a3p-1074" with the
// significand odd (normalized), or "0x0p+0" for zero. The text is a valid C99 hex float.
std::string fixed_hex(const FixedInt& value);

// Which special value the addends force (BOUNDS.md "Precondition"): any NaN -> NaN;
// +inf and -inf together -> NaN; one infinity with finite addends -> that infinity.
enum class Special : std::uint8_t { none, nan, pos_inf, neg_inf };
std::string_view name(Special s);

// One element's exact summary: what the verdict needs to know about its addends.
struct ExactSum {
  Special special = Special::none;
  FixedInt sum;                   // S, over the finite addends
  FixedInt abs_sum;               // A = sum |x|, over the finite addends
  std::uint64_t count = 0;        // n, every addend counted (the initial buffer value included)
  bool all_negative_zero = true;  // every addend is -0: an exact zero sum rounds to -0
  double max_abs = 0.0;           // max |x| over the finite addends

  // RNE(S) in f with IEEE's zero sign (-0 only when every addend is -0) and the special rules.
  double rounded(Format f) const;
  // kappa = A / |S| rounded to nearest; +inf when S == 0 < A; 1 when A == 0.
  double condition_number() const;
};

// The reference exact accumulator (Boost.Multiprecision): simple, obviously exact, slow.
class BoostExactAccumulator {
 public:
  void add(double x);
  void add(std::span<const double> xs) {
    for (double x : xs) add(x);
  }
  const ExactSum& result();

 private:
  ExactSum state_;
  bool has_nan_ = false, has_pos_inf_ = false, has_neg_inf_ = false;
};

ExactSum boost_exact_sum(std::span<const double> addends);

// Convenience: the RNE double nearest to an exact fixed value (overflow gives +-inf).
inline double nearest_double(const FixedInt& value) { return round_fixed(value, Format::f64); }

}  // namespace accucheck
