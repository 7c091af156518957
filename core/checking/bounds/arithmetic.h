// The number types every bound formula is evaluated in (bound.h: evaluation is rigorous):
// Interval, doubles rounded outward (fast, decides almost every comparison), and Rational,
// exact (where a formula needs sqrt or exp, a rational upper bound, so the bound is rounded
// upward). Ops<Num> is what a formula may do with either; Quantities<Num> is what it is
// evaluated on (one element's n, A, |S|, max |x| and terms). Each kind's formula, in its family's
// file, is one template over Num, instantiated for both (docs/bounds.md "Rigorous evaluation").
#pragma once

#include <algorithm>
#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "checking/bound.h"
#include "numerics/fast_exact.h"

namespace accucheck::bounds {

using Rational = mp::cpp_rational;
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// One step down (clamped at 0) and up; positive finite doubles by their bit patterns.
inline double round_down(double x) {
  if (!(x > 0) || std::isinf(x)) return std::max(0.0, std::nextafter(x, -kInfinity));
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) - 1);
}
inline double round_up(double x) {
  if (std::signbit(x) || !std::isfinite(x)) return std::nextafter(x, kInfinity);
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) + 1);
}

// Directed roundings of one operation on non-negative doubles that stay exact when the
// operation is: the exact residual (TwoSum; FMA for products and quotients) tells on which side
// of the rounded result the exact value lies. Below 2^-960 a residual may underflow, and
// beyond the double range there is none: there they step outward unconditionally.
inline constexpr double kResidualFloor = 0x1p-960;

// (x + y) - s exactly, for s = fl(x + y) finite (Knuth's TwoSum, round to nearest).
inline double sum_residual(double x, double y, double s) {
  const double y_part = s - x;
  return (x - (s - y_part)) + (y - y_part);
}
inline double add_down(double x, double y) {
  const double s = x + y;
  if (!std::isfinite(s)) return round_down(s);
  return sum_residual(x, y, s) < 0 ? round_down(s) : s;
}
inline double add_up(double x, double y) {
  const double s = x + y;
  if (!std::isfinite(s)) return s;
  return sum_residual(x, y, s) > 0 ? round_up(s) : s;
}
inline double sub_down(double x, double y) { return add_down(x, -y); }  // the residual has the same sign rule
inline double sub_up(double x, double y) { return add_up(x, -y); }
inline double mul_down(double x, double y) {
  if (x == 0 || y == 0) return 0.0;
  const double p = x * y;
  if (!std::isfinite(p) || p < kResidualFloor) return round_down(p);
  return std::fma(x, y, -p) < 0 ? round_down(p) : p;
}
inline double mul_up(double x, double y) {
  if (x == 0 || y == 0) return 0.0;
  const double p = x * y;
  if (!std::isfinite(p) || p < kResidualFloor) return round_up(p);
  return std::fma(x, y, -p) > 0 ? round_up(p) : p;
}
// x - q y: its sign is that of x/y - q for y > 0.
inline double div_down(double x, double y) {
  if (x == 0 && y > 0) return 0.0;
  const double q = x / y;
  if (!std::isfinite(q) || q < kResidualFloor || x < kResidualFloor) return round_down(q);
  return std::fma(-q, y, x) < 0 ? round_down(q) : q;
}
inline double div_up(double x, double y) {
  if (x == 0 && y > 0) return 0.0;
  const double q = x / y;
  if (!std::isfinite(q) || q < kResidualFloor || x < kResidualFloor) return round_up(q);
  return std::fma(-q, y, x) > 0 ? round_up(q) : q;
}

// A closed interval of non-negative doubles containing the exact value.
struct Interval {
  double lo = 0, hi = 0;
  static Interval exact(double x) { return {x, x}; }
  // Around RNE(x) of a non-negative x: exact when the rounding was, else one step either side.
  static Interval around_nearest(double nearest, bool inexact) {
    if (std::isinf(nearest)) return {std::numeric_limits<double>::max(), kInfinity};
    if (!inexact) return exact(nearest);
    return {round_down(nearest), round_up(nearest)};
  }
  friend Interval operator+(Interval a, Interval b) { return {add_down(a.lo, b.lo), add_up(a.hi, b.hi)}; }
  friend Interval operator*(Interval a, Interval b) { return {mul_down(a.lo, b.lo), mul_up(a.hi, b.hi)}; }
  friend Interval operator/(Interval a, Interval b) { return {div_down(a.lo, b.hi), div_up(a.hi, b.lo)}; }
  // a - b where the exact difference is known to be non-negative.
  friend Interval operator-(Interval a, Interval b) {
    return {std::max(0.0, sub_down(a.lo, b.hi)), std::max(0.0, sub_up(a.hi, b.lo))};
  }
};

inline Interval minimum(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; }
inline Interval maximum(Interval a, Interval b) { return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; }
inline Rational minimum(const Rational& a, const Rational& b) { return a < b ? a : b; }
inline Rational maximum(const Rational& a, const Rational& b) { return a < b ? b : a; }

// Number-type operations the formulas need.
template <class Num>
struct Ops;

template <>
struct Ops<Interval> {
  static Interval integer(std::uint64_t k) {
    const double d = static_cast<double>(k);
    if (static_cast<std::uint64_t>(d) == k && k < (std::uint64_t{1} << 53)) return Interval::exact(d);
    return {round_down(d), round_up(d)};
  }
  static Interval power_of_two(int e) { return Interval::exact(std::ldexp(1.0, e)); }
  static Interval exact_double(double x) { return Interval::exact(x); }
  static Interval fixed(const FixedInt& x) {
    bool inexact = true;
    const double nearest = std::fabs(round_fixed_fast(x, Format::f64, &inexact));
    return Interval::around_nearest(nearest, inexact);
  }
  // sqrt is correctly rounded (IEEE 754), so one step outward suffices.
  static Interval sqrt_up(Interval x) { return {round_down(std::sqrt(x.lo)), round_up(std::sqrt(x.hi))}; }
  // glibc's exp errs by less than one ulp: two steps outward.
  static Interval exp_up(Interval x) {
    return {round_down(round_down(std::exp(x.lo))), round_up(round_up(std::exp(x.hi)))};
  }
};

// Rounds a non-negative rational up to a dyadic with `bits` fraction bits, to keep sizes small.
Rational round_up_dyadic(const Rational& x, unsigned bits);

template <>
struct Ops<Rational> {
  static Rational integer(std::uint64_t k) { return Rational(BigInt(k)); }
  static Rational power_of_two(int e) {
    return e >= 0 ? Rational(BigInt(1) << e) : Rational(BigInt(1), BigInt(1) << -e);
  }
  static Rational exact_double(double x);
  static Rational fixed(const FixedInt& x);
  // sqrt(a/b) = sqrt(a*b)/b <= (isqrt(a*b*4^m) + 1) / (b*2^m).
  static Rational sqrt_up(const Rational& x);
  // e^x for x >= 0: halve until x <= 1/2, Taylor series with its remainder bounded by a
  // geometric series, then square back; every step rounds upward.
  static Rational exp_up(const Rational& x);
};

// floor(sqrt(2^p)): the largest h+1 with (h+1)^2 <= 2^p, i.e. h <= u^(-1/2) - 1.
std::uint64_t floor_sqrt_power_of_two(int p);

template <class Num>
struct Quantities {
  std::uint64_t n;                // addends, the initial buffer value included
  Num abs_sum;                    // A
  Num abs_exact;                  // |S|
  Num max_abs;                    // max |x|
  std::span<const double> terms;  // the terms in order, for a bound that needs them (else empty)
  // The most significant bits any operand of the backend's arithmetic has, where known (0: not
  // known): truncated_inputs states it for its inner bound, whose operands are not the terms.
  int operand_bits = 0;
};

// Bits from the leading one to the lowest one of x (0 for 0): x is a multiple of
// 2^(floor(log2 |x|) - bits + 1).
int significant_bits(double x);

// The operands' most significant bits: stated, else counted over the terms (0: unknown).
template <class Num>
int operand_bits(const Quantities<Num>& q) {
  if (q.operand_bits != 0 || q.terms.size() != q.n) return q.operand_bits;
  int most = 0;
  for (double x : q.terms) most = std::max(most, significant_bits(x));
  return most;
}

template <class Num>
Quantities<Num> quantities(const ExactSum& exact, std::span<const double> terms) {
  return {exact.count,
          Ops<Num>::fixed(exact.abs_sum),
          Ops<Num>::fixed(exact.sum),
          Ops<Num>::exact_double(exact.max_abs),
          terms,
          0};
}

// What most formulas start from: the unit roundoff u = 2^-p of the bound's format, n, k = n-1,
// and the two factors several kinds share, anyorder's and gamma_h.
template <class Num>
struct Units {
  using O = Ops<Num>;
  Units(const BoundExpr& b, const Quantities<Num>& quantities)
      : q(quantities),
        p(traits(b.format).precision),
        u(O::power_of_two(-p)),
        one(O::integer(1)),
        n(q.n),
        k(n > 0 ? n - 1 : 0),
        two_to_p(std::uint64_t{1} << p) {}

  const Quantities<Num>& q;
  const int p;
  const Num u;
  const Num one;
  const std::uint64_t n;
  const std::uint64_t k;
  const std::uint64_t two_to_p;

  Num anyorder() const {
    const Num ku = O::integer(k) * u;
    // (n-1)u/(1+(n-1)u) when n-1 <= 1/(2u) (Lange & Rump 2019), else (n-1)u (AN23 4.11).
    if (k <= two_to_p / 2) return ku / (one + ku) * q.abs_sum;
    return ku * q.abs_sum;
  }
  std::optional<Num> gamma(std::uint64_t h) const {
    if (h >= two_to_p) return std::nullopt;  // h u >= 1: no bound
    const Num hu = O::integer(h) * u;
    return hu / (one - hu);
  }
};

}  // namespace accucheck::bounds
