// Rigorous evaluation of error bounds.
//
// One formula per kind, written once as a template over the number type: Interval (doubles
// rounded outward: fast, decides almost every comparison) and Rational (exact; where a
// formula needs sqrt or exp, a rational upper bound, so the bound is rounded upward).
#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

#include "checking/bound.h"
#include "numerics/fast_exact.h"

namespace accucheck {
namespace {

using Rational = mp::cpp_rational;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// One step down (clamped at 0) and up; positive finite doubles by their bit patterns.
double round_down(double x) {
  if (!(x > 0) || std::isinf(x)) return std::max(0.0, std::nextafter(x, -kInfinity));
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) - 1);
}
double round_up(double x) {
  if (std::signbit(x) || !std::isfinite(x)) return std::nextafter(x, kInfinity);
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) + 1);
}

// Directed roundings of one operation on non-negative doubles that stay exact when the
// operation is: the exact residual (TwoSum; FMA for products and quotients) tells on which side
// of the rounded result the exact value lies. Below 2^-960 a residual may underflow, and
// beyond the double range there is none: there they step outward unconditionally.
constexpr double kResidualFloor = 0x1p-960;

// (x + y) - s exactly, for s = fl(x + y) finite (Knuth's TwoSum, round to nearest).
double sum_residual(double x, double y, double s) {
  const double y_part = s - x;
  return (x - (s - y_part)) + (y - y_part);
}
double add_down(double x, double y) {
  const double s = x + y;
  if (!std::isfinite(s)) return round_down(s);
  return sum_residual(x, y, s) < 0 ? round_down(s) : s;
}
double add_up(double x, double y) {
  const double s = x + y;
  if (!std::isfinite(s)) return s;
  return sum_residual(x, y, s) > 0 ? round_up(s) : s;
}
double sub_down(double x, double y) { return add_down(x, -y); }  // the residual has the same sign rule
double sub_up(double x, double y) { return add_up(x, -y); }
double mul_down(double x, double y) {
  if (x == 0 || y == 0) return 0.0;
  const double p = x * y;
  if (!std::isfinite(p) || p < kResidualFloor) return round_down(p);
  return std::fma(x, y, -p) < 0 ? round_down(p) : p;
}
double mul_up(double x, double y) {
  if (x == 0 || y == 0) return 0.0;
  const double p = x * y;
  if (!std::isfinite(p) || p < kResidualFloor) return round_up(p);
  return std::fma(x, y, -p) > 0 ? round_up(p) : p;
}
// x - q y: its sign is that of x/y - q for y > 0.
double div_down(double x, double y) {
  if (x == 0 && y > 0) return 0.0;
  const double q = x / y;
  if (!std::isfinite(q) || q < kResidualFloor || x < kResidualFloor) return round_down(q);
  return std::fma(-q, y, x) < 0 ? round_down(q) : q;
}
double div_up(double x, double y) {
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

Interval minimum(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; }
Interval maximum(Interval a, Interval b) { return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; }
Rational minimum(const Rational& a, const Rational& b) { return a < b ? a : b; }
Rational maximum(const Rational& a, const Rational& b) { return a < b ? b : a; }

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
Rational round_up_dyadic(const Rational& x, unsigned bits) {
  const BigInt scale = BigInt(1) << bits;
  BigInt numerator = mp::numerator(x) * scale, quotient, remainder;
  mp::divide_qr(numerator, mp::denominator(x), quotient, remainder);
  if (remainder != 0) ++quotient;
  return Rational(quotient, scale);
}

template <>
struct Ops<Rational> {
  static Rational integer(std::uint64_t k) { return Rational(BigInt(k)); }
  static Rational power_of_two(int e) {
    return e >= 0 ? Rational(BigInt(1) << e) : Rational(BigInt(1), BigInt(1) << -e);
  }
  static Rational exact_double(double x) { return Rational(BigInt(to_fixed(x)), BigInt(1) << fixed_scale); }
  static Rational fixed(const FixedInt& x) { return Rational(mp::abs(BigInt(x)), BigInt(1) << fixed_scale); }
  // sqrt(a/b) = sqrt(a*b)/b <= (isqrt(a*b*4^m) + 1) / (b*2^m).
  static Rational sqrt_up(const Rational& x) {
    constexpr unsigned m = 128;
    const BigInt& a = mp::numerator(x);
    const BigInt& b = mp::denominator(x);
    const BigInt root = mp::sqrt(BigInt(a * b) << (2 * m)) + 1;
    return Rational(root, b << m);
  }
  // e^x for x >= 0: halve until x <= 1/2, Taylor series with its remainder bounded by a
  // geometric series, then square back; every step rounds upward.
  static Rational exp_up(const Rational& x) {
    unsigned halvings = 0;
    Rational y = x;
    while (y > Rational(1, 2)) {
      y /= 2;
      ++halvings;
    }
    y = round_up_dyadic(y, 256);
    Rational term = 1, sum = 1;
    constexpr int terms = 40;
    for (int k = 1; k < terms; ++k) {
      term = round_up_dyadic(term * y / k, 256);
      sum += term;
    }
    // Remainder: sum_{k>=terms} y^k/k! <= term * y/terms * 1/(1 - y/(terms+1)).
    sum += term * y / terms / (1 - y / (terms + 1));
    sum = round_up_dyadic(sum, 256);
    for (unsigned i = 0; i < halvings; ++i) sum = round_up_dyadic(sum * sum, 256);
    return sum;
  }
};

// floor(sqrt(2^p)): the largest h+1 with (h+1)^2 <= 2^p, i.e. h <= u^(-1/2) - 1.
std::uint64_t floor_sqrt_power_of_two(int p) {
  std::uint64_t r = static_cast<std::uint64_t>(std::sqrt(std::ldexp(1.0, p)));
  const unsigned __int128 limit = static_cast<unsigned __int128>(1) << p;
  while (static_cast<unsigned __int128>(r) * r > limit) --r;
  while (static_cast<unsigned __int128>(r + 1) * (r + 1) <= limit) ++r;
  return r;
}

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
int significant_bits(double x) {
  if (x == 0 || !std::isfinite(x)) return 0;
  const auto bits = std::bit_cast<std::uint64_t>(x);
  std::uint64_t significand = bits & ((std::uint64_t{1} << 52) - 1);
  if (((bits >> 52) & 0x7ff) != 0) significand |= std::uint64_t{1} << 52;
  return std::bit_width(significand) - std::countr_zero(significand);
}

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

// sum_i gamma(d_i) |x_i| (every d_i with gamma defined): per term in intervals; grouped by depth
// with exact sums of |x| in rationals, the same value computed exactly.
template <class Num, class Gamma>
Num leaf_weighted_sum(const std::vector<std::uint32_t>& depth, std::span<const double> terms, const Gamma& gamma) {
  const std::uint32_t h = *std::max_element(depth.begin(), depth.end());
  if constexpr (std::is_same_v<Num, Interval>) {
    std::vector<std::optional<Interval>> weight(h + 1);
    Interval total = Interval::exact(0);
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (terms[i] == 0) continue;
      auto& w = weight[depth[i]];
      if (!w) w = *gamma(depth[i]);
      total = total + *w * Interval::exact(std::fabs(terms[i]));
    }
    return total;
  } else {
    std::vector<FixedInt> abs_by_depth(h + 1);
    for (std::size_t i = 0; i < terms.size(); ++i) abs_by_depth[depth[i]] += to_fixed(std::fabs(terms[i]));
    Num total = 0;
    for (std::uint32_t d = 0; d <= h; ++d)
      if (abs_by_depth[d] != 0) total += *gamma(d) * Ops<Num>::fixed(abs_by_depth[d]);
    return total;
  }
}

// The bound for one element; nullopt where the theorem gives nothing (gamma_k with k u >= 1,
// Kahan beyond n u <= 1/2, ...).
template <class Num>
std::optional<Num> evaluate(const BoundExpr& b, const Quantities<Num>& q) {
  using O = Ops<Num>;
  const int p = traits(b.format).precision;
  const Num u = O::power_of_two(-p);
  const Num one = O::integer(1);
  const std::uint64_t n = q.n;
  const std::uint64_t k = n > 0 ? n - 1 : 0;
  const std::uint64_t two_to_p = std::uint64_t{1} << p;

  auto anyorder = [&]() -> Num {
    const Num ku = O::integer(k) * u;
    // (n-1)u/(1+(n-1)u) when n-1 <= 1/(2u) (Lange & Rump 2019), else (n-1)u (AN23 4.11).
    if (k <= two_to_p / 2) return ku / (one + ku) * q.abs_sum;
    return ku * q.abs_sum;
  };
  auto gamma = [&](std::uint64_t h) -> std::optional<Num> {
    if (h >= two_to_p) return std::nullopt;  // h u >= 1: no bound
    const Num hu = O::integer(h) * u;
    return hu / (one - hu);
  };

  switch (b.kind) {
    case BoundKind::recursive: return O::integer(k) * u * q.abs_sum;
    case BoundKind::anyorder: return anyorder();
    case BoundKind::tree: {
      const std::uint64_t h = tree_height(b.shape, n);
      std::optional<Num> tree;
      if (h + 1 <= floor_sqrt_power_of_two(p))
        tree = O::integer(h) * u * q.abs_sum;
      else if (auto g = gamma(h))
        tree = *g * q.abs_sum;
      const Num any = anyorder();
      return tree ? minimum(*tree, any) : any;
    }
    case BoundKind::kahan: {
      // Valid for u <= 1/128 (every format here) and n u <= 1/2.
      if (n > two_to_p / 2) return std::nullopt;
      return (O::integer(3) * u + O::integer(14) * O::integer(n + 1) * u * u) * q.abs_sum;
    }
    case BoundKind::neumaier: {
      auto g = gamma(k);
      if (!g) return std::nullopt;
      return u * q.abs_exact + *g * *g * q.abs_sum;
    }
    case BoundKind::widened: {
      auto inner = evaluate(*b.inner, q);
      if (!inner) return std::nullopt;
      return u * q.abs_exact + (one + u) * *inner;
    }
    case BoundKind::products: {
      // N u A (Jeannerod & Rump 2013) plus, per operation, twice the underflow error of a
      // product or FMA landing in the subnormal range (half the smallest subnormal; the factor
      // 2 covers its growth through later roundings when N u <= 1/2). See docs/bounds.md.
      if (n > two_to_p / 2) return std::nullopt;
      const Num eta = O::power_of_two(traits(b.format).emin - p);
      return O::integer(n) * u * q.abs_sum + O::integer(2 * n) * eta;
    }
    case BoundKind::reproducible_binned: {
      const Num e = u;
      const Num c = O::integer(7) * e / (one - O::integer(6) * O::sqrt_up(e));
      const Num floor_term = O::power_of_two(traits(b.format).emin - 1);
      const Num scaled_max = O::power_of_two(static_cast<int>(b.width * (1 - b.count))) * q.max_abs;
      return (one + c) * O::integer(n) * maximum(scaled_max, floor_term) + c * q.abs_exact;
    }
    case BoundKind::stochastic: {
      // gamma~_{n-1}(lambda) = exp(lambda sqrt(n-1) u_sr + (n-1) u_sr^2/(1-u_sr)) - 1.
      const Num usr = O::power_of_two(1 - p);
      const Num exponent =
          O::exact_double(b.lambda) * O::sqrt_up(O::integer(k)) * usr + O::integer(k) * usr * usr / (one - usr);
      return (O::exp_up(exponent) - one) * q.abs_sum;
    }
    case BoundKind::fused:
    case BoundKind::fused_promoted:
    case BoundKind::fused_truncated: {
      // docs/bounds.md "Fused multi-term addition": a chain of m fused steps from c_0 errs by at
      // most ((1+v)^m - 1) A + ((1+v)^m - 1)/v * 2^(emin-p), bounded by gamma(m, v) A + 2m 2^(emin-p)
      // when m v <= 1/2. Promoted ("Promotion"): one chain per chunk of N addends, from zero.
      const auto per_step = static_cast<std::uint64_t>(b.count);
      const bool promoted = b.kind == BoundKind::fused_promoted;
      const std::uint64_t chain = promoted ? std::min(k, static_cast<std::uint64_t>(b.period)) : k;
      const std::uint64_t steps = (chain + per_step - 1) / per_step;
      // The unit of each fused sum's rounding: r = u to nearest in F; r = 2^(1-Q) toward zero to Q
      // bits ("Truncated results"), whose subnormal spacing 2^(emin-Q+1) bounds an underflowing one.
      const bool truncated = b.result_bits != 0;  // fused_truncated, or fused_promoted(K,W,N,Q,F)
      const int q_bits = truncated ? static_cast<int>(b.result_bits) - 1 : p;  // r = 2^-q_bits
      const Num r = O::power_of_two(-q_bits);
      const Num rho = O::integer(per_step + 1) * O::power_of_two(1 - static_cast<int>(b.width));
      const Num eta = rho / (one + rho);
      Num v = eta + r + eta * r;
      if (truncated) {
        // "Truncated results", the tighter step: where no operand has more than W significant
        // bits (and the sums, cut to Q bits, none either), the largest operand loses nothing,
        // so K' = K operands lose, not K + 1; and the sum, a multiple of q = 2^(E-W+1), loses to
        // its truncation at most its grid minus q, nothing where the grid is q or finer. Hence
        // v' = max(rho'/(1 + rho'), (K'-1) 2^(1-W) + max(2^(1-W), r)), rho' = K' 2^(1-W).
        const int bits = operand_bits(q);
        const bool largest_exact = bits != 0 && bits <= b.width && b.result_bits <= b.width;
        const std::uint64_t losing = largest_exact ? per_step : per_step + 1;
        const Num cut = O::power_of_two(1 - static_cast<int>(b.width));
        const Num rho_losing = O::integer(losing) * cut;
        const Num tight = maximum(rho_losing / (one + rho_losing), O::integer(losing - 1) * cut + maximum(cut, r));
        v = minimum(v, tight);
      }
      // Defined where m (rho + 2r) <= 1/2 (which gives m v <= 1/2), decided in integers so that
      // the interval and the rational evaluations agree: times 2^(W+q), r = 2^-q,
      // m ((K+1) 2^(1+q) + 2^(1+W)) <= 2^(W+q-1), below 2^126 for K <= 64, W, q <= 53, m < 2^64.
      using u128 = unsigned __int128;
      const u128 scaled_step =
          (static_cast<u128>(per_step) + 1) * (u128{1} << (1 + q_bits)) + (u128{1} << (1 + b.width));
      if (steps > 0 && scaled_step > (u128{1} << (b.width + q_bits - 1)) / steps) return std::nullopt;
      const Num mv = O::integer(steps) * v;
      const Num g = mv / (one - mv);
      const Num underflow = O::power_of_two(traits(b.format).emin - q_bits);
      if (!promoted) return g * q.abs_sum + O::integer(2 * steps) * underflow;  // fused, fused_truncated
      // The chunks' errors sum to at most g A + 2M 2^(emin-q) (M = ceil((n-1)/K) steps in all);
      // adding the L chunk sums to the accumulator is a recursive sum of L + 1 values.
      const std::uint64_t chunks =
          (k + static_cast<std::uint64_t>(b.period) - 1) / static_cast<std::uint64_t>(b.period);
      const std::uint64_t all_steps = (k + per_step - 1) / per_step;
      const Num lu = O::integer(chunks) * u;
      return (g + lu * (one + g)) * q.abs_sum + (one + lu) * O::integer(2 * all_steps) * underflow;
    }
    case BoundKind::ftz: {
      auto inner = evaluate(*b.inner, q);
      if (!inner) return std::nullopt;
      const std::uint64_t flushes = n > 0 ? 2 * n - 1 : 0;
      return *inner + O::integer(flushes) * O::power_of_two(traits(b.format).emin);
    }
    case BoundKind::truncated_inputs: {
      // docs/bounds.md "Truncated inputs": each normal input a is a_t + d, |d| < 2^(1-B) |a|, and
      // |a_t| <= |a|, so |a b - a_t b_t| <= |d_a| |b| + |a_t| |d_b| < 2^(2-B) |a b|; the truncated
      // products' A, max |x| and |x_i| are at most the exact products' (every bound grows with
      // them), their sum's magnitude at most |S| + that difference.
      const Num input_error = O::power_of_two(2 - static_cast<int>(b.count)) * q.abs_sum;
      Quantities<Num> truncated = q;
      truncated.abs_exact = q.abs_exact + input_error;
      // The inner arithmetic's operands: C (the first term, not converted) and products of two
      // B-bit inputs, at most 2B significant bits each.
      if (q.operand_bits == 0 && !q.terms.empty() && q.terms.size() == q.n)
        truncated.operand_bits = std::max(std::max(significant_bits(q.terms[0]), 1), 2 * static_cast<int>(b.count));
      auto inner = evaluate(*b.inner, truncated);
      if (!inner) return std::nullopt;
      return *inner + input_error;
    }
    case BoundKind::depths: {
      // min(per-leaf gamma, the tree bound of height h = max d_i, anyorder): each holds for a
      // tree whose leaf i passes d_i roundings (docs/bounds.md "Per-leaf bounds"); an n the
      // profile does not cover is some tree, for which anyorder holds.
      Num best = anyorder();
      const std::vector<std::uint32_t>* depth = b.depths->at(n);
      if (!depth || depth->empty()) return best;
      const std::uint64_t h = *std::max_element(depth->begin(), depth->end());
      if (h + 1 <= floor_sqrt_power_of_two(p))
        best = minimum(best, O::integer(h) * u * q.abs_sum);
      else if (auto g = gamma(h))
        best = minimum(best, *g * q.abs_sum);
      // The per-leaf sum needs gamma_d (d u < 1) only for the leaves that hold a nonzero term.
      if (q.terms.size() == n) {
        std::uint64_t deepest_nonzero = 0;
        for (std::size_t i = 0; i < n; ++i)
          if (q.terms[i] != 0) deepest_nonzero = std::max<std::uint64_t>(deepest_nonzero, (*depth)[i]);
        if (deepest_nonzero < two_to_p) best = minimum(best, leaf_weighted_sum<Num>(*depth, q.terms, gamma));
      }
      return best;
    }
    case BoundKind::correctly_rounded:
    case BoundKind::faithful:
    case BoundKind::ulps: break;
  }
  return std::nullopt;
}

bool fixed_at_most(const FixedInt& x, double y) {  // x <= y for finite y >= 0
  return x <= to_fixed(y);
}

// A bound on how far the backend's intermediate partial sums can stray from the exact partial
// sums, where that is larger than the bound on its result. Neumaier's running sum s is a plain
// recursive sum (the compensation c restores accuracy only in the final s + c), so its partial
// sums reach A(1 + (n-1)u), beyond A + neumaier(F): recursive(F) joins it. Every other kind's
// partial sums obey its own bound on fewer terms. nullopt: the bound itself covers them.
std::optional<BoundExpr> intermediate_bound(const BoundExpr& bound) {
  switch (bound.kind) {
    case BoundKind::neumaier: {
      BoundExpr running;
      running.kind = BoundKind::recursive;
      running.format = bound.format;
      return running;
    }
    case BoundKind::widened:
    case BoundKind::ftz:
    case BoundKind::truncated_inputs: {
      auto inner = intermediate_bound(*bound.inner);
      if (!inner) return std::nullopt;
      BoundExpr outer = bound;
      outer.inner = std::make_shared<const BoundExpr>(std::move(*inner));
      return outer;
    }
    default: return std::nullopt;
  }
}

// The smallest overflow threshold among the output format and the bound's formats.
double overflow_limit(const BoundExpr& bound, Format output) {
  double limit = largest_finite(output);
  for (Format f : bound_formats(bound)) limit = std::min(limit, largest_finite(f));
  return limit;
}

// check_error_bound given the interval quantities; `error` is RNE(|error|) (exactly |error|
// unless error_inexact), NaN when the caller has not computed it; abs_error() gives the exact
// |error| for what the doubles leave undecided.
template <class AbsError>
BoundCheck check_with(const BoundExpr& bound, Format output, const ExactSum& exact, const Quantities<Interval>& qi,
                      double error, bool error_inexact, const AbsError& abs_error) {
  BoundCheck check;
  if (exact.special != Special::none) return check;  // only the special-value rules apply
  const auto approximate = evaluate(bound, qi);
  if (!approximate) {
    check.bound = kInfinity;
    check.vacuous = true;
    return check;
  }
  const Interval b = *approximate;
  check.bound = b.hi;

  std::optional<Rational> exact_bound;
  std::optional<Quantities<Rational>> qr;
  auto rational = [&]() -> const Rational& {
    if (!exact_bound) {
      qr = quantities<Rational>(exact, qi.terms);
      exact_bound = *evaluate(bound, *qr);  // same integer conditions: defined when the interval is
    }
    return *exact_bound;
  };

  // Vacuous: the bound allows an error as large as A itself (no accuracy promised).
  if (exact.abs_sum != 0) {
    if (b.lo >= qi.abs_sum.hi)
      check.vacuous = true;
    else if (b.hi < qi.abs_sum.lo)
      check.vacuous = false;
    else
      check.vacuous = rational() >= qr->abs_sum;
  }

  // Precondition: no intermediate overflows, i.e. A + bound (on the result, and on the partial
  // sums where those may stray further: intermediate_bound) below the overflow threshold of
  // every format involved.
  static const double smallest_threshold = largest_finite(Format::f16);  // no format's is lower
  check.precondition_met = true;
  const auto partial = intermediate_bound(bound);
  const Interval result_reach = qi.abs_sum + b;
  if (partial || result_reach.hi >= smallest_threshold) {  // else no threshold is near: skip the rest
    std::optional<Interval> partial_b;
    if (partial) {
      partial_b = evaluate(*partial, qi);
      if (!partial_b) partial_b = Interval::exact(kInfinity);  // no bound on the partial sums
    }
    const Interval reach = partial_b ? qi.abs_sum + maximum(b, *partial_b) : result_reach;
    const double limit = overflow_limit(bound, output);
    if (reach.lo >= limit)
      check.precondition_met = false;
    else if (reach.hi >= limit) {
      Rational reach_exact = Ops<Rational>::fixed(exact.abs_sum) + rational();
      if (partial) {
        if (!qr) qr = quantities<Rational>(exact, qi.terms);
        reach_exact = maximum(reach_exact, Ops<Rational>::fixed(exact.abs_sum) + *evaluate(*partial, *qr));
      }
      check.precondition_met = reach_exact < Ops<Rational>::exact_double(limit);
    }
  }

  // Within: |error| <= bound, decided exactly. RNE is monotone, so RNE(e) < b.lo gives e < b.lo
  // and RNE(e) > b.hi gives e > b.hi; an exact RNE(e) decides e <= b.lo and e > b.hi outright.
  const bool lo_finite = std::isfinite(b.lo), hi_finite = std::isfinite(b.hi);
  if (error == 0 || (lo_finite && (error < b.lo || (!error_inexact && error <= b.lo))))
    check.within = true;
  else if (hi_finite && error > b.hi)
    check.within = false;
  else {
    const FixedInt e = abs_error();
    if (e == 0 || (lo_finite && fixed_at_most(e, b.lo)))
      check.within = true;
    else if (hi_finite && !fixed_at_most(e, b.hi))
      check.within = false;
    else
      check.within = Ops<Rational>::fixed(e) <= rational();
  }
  return check;
}

}  // namespace

BoundCheck check_error_bound(const BoundExpr& bound, Format output, const ExactSum& exact, const FixedInt& abs_error,
                             std::span<const double> terms) {
  const double unknown = std::numeric_limits<double>::quiet_NaN();  // every comparison false
  return check_with(bound, output, exact, quantities<Interval>(exact, terms), unknown, true, [&] { return abs_error; });
}

BoundCheck check_error_bound(const BoundExpr& bound, Format output, const ExactSum& exact, const NearestValues& nearest,
                             const std::function<FixedInt()>& abs_error, std::span<const double> terms) {
  const Quantities<Interval> qi{exact.count,
                                Interval::around_nearest(nearest.abs_sum, nearest.abs_sum_inexact),
                                Interval::around_nearest(nearest.abs_exact, nearest.abs_exact_inexact),
                                Interval::exact(exact.max_abs),
                                terms,
                                0};
  return check_with(bound, output, exact, qi, nearest.abs_error, nearest.abs_error_inexact, abs_error);
}

}  // namespace accucheck
