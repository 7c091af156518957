// Stochastic rounding (SR) of the exact sum of two values of a narrow format (bf16, f16): the
// result is one of the two neighbours of the exact sum x, the one away from zero with
// probability |x - RZ(x)| / (distance between the neighbours), so that E[result] = x exactly
// ("ideal" SR, Connolly, Higham & Mary, SIAM J. Sci. Comput. 43, 2021).
//
// The probability is used exactly: x is kept exact as a double pair (TwoSum), the probability
// is a dyadic rational, and it is compared with a uniform U in [0, 1) whose bits are drawn 64
// at a time only as far as the comparison needs them (U < p is decided at the first 64-bit
// word where they differ). SR that draws a fixed small number of random bits instead is biased
// (El Arar, Fasi, Filip & Mikaitis, 2025); impls/mutants/ plants such a variant.
#pragma once

#include <cmath>
#include <cstdint>

#include "numerics/format.h"

namespace accucheck::impls {

// The two candidates of an inexact x and the exact probability of one of them: the result is
// `toward_zero` or `away` (the neighbour of larger magnitude; +-inf beyond the largest finite
// value). `p` is the exact probability of `away` when p_is_away, else of `toward_zero` (an
// away-probability of 1 - tiny is not a double; its complement is).
struct SrCandidates {
  double toward_zero = 0, away = 0;
  double p = 0;
  bool p_is_away = true;
};

// nullopt-like: `exact` is set when x itself is a value of f (or a special value), and then
// `value` is the result.
struct SrSetup {
  bool exact = false;
  double value = 0;
  SrCandidates c;
};

inline SrSetup sr_setup(double a, double b, Format f) {
  SrSetup out;
  const double s = a + b;
  if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(s)) {
    out.exact = true;
    out.value = round_to_format(s, f);  // IEEE: inf + finite = inf, inf - inf = NaN
    return out;
  }
  // TwoSum (Knuth): s + e == a + b exactly.
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  const double largest = largest_finite(f);
  auto away_neighbour = [&](double v,
                            double sign) {  // the neighbour of v (a value of f) away from zero in direction sign
    if (std::fabs(v) == largest) return sign * INFINITY;
    return sign > 0 ? next_up(v, f) : next_down(v, f);
  };
  auto spacing_away = [&](double v,
                          double sign) {  // distance from v to its neighbour away from zero (the max's ulp beyond it)
    if (std::fabs(v) == largest) return ulp(largest, f);
    return std::fabs(away_neighbour(v, sign) - v);
  };
  if (e == 0) {
    if (representable(s, f)) {
      out.exact = true;
      out.value = s;
      return out;
    }
    const double sign = s > 0 ? 1.0 : -1.0;
    double rz;
    if (std::fabs(s) > largest) {
      rz = sign * largest;
    } else {
      const double r = round_to_format(s, f);
      rz = std::fabs(r) > std::fabs(s) ? (sign > 0 ? next_down(r, f) : next_up(r, f)) : r;
    }
    out.c.toward_zero = rz;
    out.c.away = away_neighbour(rz, sign);
    out.c.p = std::fabs(s - rz) / spacing_away(rz, sign);  // exact: a difference within one binade over a power of two
    out.c.p_is_away = true;
    if (out.c.p >= 1) {  // beyond the largest finite value by a whole spacing: overflow
      out.exact = true;
      out.value = out.c.away;
    }
    return out;
  }
  // Not exact in double: the operands are far apart (more than 44 bits for f16/bf16), so x lies
  // strictly between the larger operand L and L's neighbour in the direction of the smaller m.
  const double L = std::fabs(a) >= std::fabs(b) ? a : b;
  const double m = std::fabs(a) >= std::fabs(b) ? b : a;
  const double sign = L > 0 ? 1.0 : -1.0;
  if ((m > 0) == (L > 0)) {
    out.c.toward_zero = L;
    out.c.away = away_neighbour(L, sign);
    out.c.p = std::fabs(m) / spacing_away(L, sign);
    out.c.p_is_away = true;
  } else {
    // x = L - |m| (toward zero from L): candidates L (away) and its neighbour toward zero.
    const double below = sign > 0 ? next_down(L, f) : next_up(L, f);
    out.c.toward_zero = below;
    out.c.away = L;
    out.c.p = std::fabs(m) / std::fabs(L - below);  // the probability of `below`
    out.c.p_is_away = false;
  }
  return out;
}

// U < p for U uniform in [0, 1) whose 64-bit words come from `next` (most significant first),
// drawing words only until the comparison is decided: P(true) = p exactly for a dyadic p.
template <class Next>
bool uniform_below(double p, Next& next) {
  if (!(p > 0)) return false;
  if (p >= 1) return true;
  for (;;) {
    const double scaled = std::ldexp(p, 64);  // < 2^64, at most 53 significant bits
    const double whole = std::floor(scaled);
    const auto digits = static_cast<std::uint64_t>(whole);
    const std::uint64_t w = next();
    if (w != digits) return w < digits;
    p = scaled - whole;  // exact
    if (p == 0) return false;
  }
}

// SR(a + b) into f with ideal probabilities.
template <class Next>
double stochastic_add(double a, double b, Format f, Next& next) {
  const SrSetup s = sr_setup(a, b, f);
  if (s.exact) return s.value;
  const bool hit = uniform_below(s.c.p, next);
  return s.c.p_is_away == hit ? s.c.away : s.c.toward_zero;
}

}  // namespace accucheck::impls
