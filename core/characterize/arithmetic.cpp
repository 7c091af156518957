// Models of arithmetic (arithmetic.h).
#include "characterize/arithmetic.h"

#include <cmath>

#include "numerics/exact.h"
#include "numerics/fast_exact.h"

namespace accucheck::characterization {

double round_to_bits(double x, int p) {
  if (x == 0 || !std::isfinite(x)) return x;
  const int e = std::ilogb(x);
  const double q = std::ldexp(x, p - 1 - e);
  return std::ldexp(std::nearbyint(q), e - p + 1);
}

double add_to_bits(double a, double b, int p) {
  const double s = a + b;
  if (!std::isfinite(s)) return s;
  const double bv = s - a;
  const double err = (a - (s - bv)) + (b - bv);
  if (s == 0 || err == 0) return round_to_bits(s, p);
  const int e = std::ilogb(s);
  const double q = std::ldexp(s, p - 1 - e);
  if (q - std::floor(q) != 0.5) return round_to_bits(s, p);
  return std::ldexp(err > 0 ? std::ceil(q) : std::floor(q), e - p + 1);
}

double flushed(double x, Format f) { return x != 0 && std::fabs(x) < smallest_normal(f) ? std::copysign(0.0, x) : x; }

double round_exact(const std::vector<double>& values, const Arithmetic& a) {
  const ExactSum e = fast_exact_sum(values);
  if (e.special != Special::none) return e.rounded(a.format.value_or(Format::f64));
  if (a.format) return e.rounded(*a.format);
  if (e.sum == 0) return e.rounded(Format::f64);
  // p bits of the fixed-point integer, half to even.
  FixedInt magnitude = e.sum < 0 ? FixedInt(-e.sum) : e.sum;
  const long msb = static_cast<long>(mp::msb(magnitude));
  const long shift = msb + 1 - a.bits;
  if (shift > 0) {
    const FixedInt unit = FixedInt(1) << shift;
    FixedInt kept = magnitude >> shift;
    const FixedInt rest = magnitude - (kept << shift);
    const FixedInt half = unit >> 1;
    if (rest > half || (rest == half && (kept & 1) != 0)) ++kept;
    magnitude = kept << shift;
  }
  return round_fixed(e.sum < 0 ? FixedInt(-magnitude) : magnitude, Format::f64);
}

double add_in(double a, double b, const Arithmetic& ar) {
  if (!ar.format) return add_to_bits(a, b, ar.bits);
  if (*ar.format == Format::f64) return a + b;
  // a + b rounded to double, then to a format of p <= 24 bits: innocuous double rounding
  // (53 >= 2p + 2; Figueroa, SIGNUM 1995).
  return round_to_format(a + b, *ar.format);
}

double simulate(const SummationTree& tree, const std::vector<std::vector<std::uint32_t>>& children,
                std::span<const double> leaves, const Arithmetic& ar) {
  std::vector<double> value(tree.parents().size());
  for (std::size_t i = 0; i < tree.leaves(); ++i)
    value[i] = ar.flush_inputs ? flushed(leaves[i], ar.flush_format) : leaves[i];
  for (std::size_t k = 0; k < children.size(); ++k) {
    const auto& kids = children[k];
    double r = 0;
    if (kids.size() == 2) {
      r = add_in(value[kids[0]], value[kids[1]], ar);
    } else {
      // A fused node: its children cut to the window (when one was measured), added exactly,
      // rounded once.
      std::vector<double> v;
      for (auto c : kids) v.push_back(value[c]);
      if (ar.window) {
        double largest = 0;
        for (double x : v) largest = std::max(largest, std::fabs(x));
        if (largest > 0 && std::isfinite(largest)) {
          const int unit = std::ilogb(largest) - *ar.window + 1;
          for (double& x : v) x = std::ldexp(std::trunc(std::ldexp(x, -unit)), unit);
        }
      }
      r = round_exact(v, ar);
    }
    value[tree.leaves() + k] = ar.flush_results ? flushed(r, ar.flush_format) : r;
  }
  return round_to_format(value[tree.root()], ar.storage);
}

double op_in(double x, Format f) { return f == Format::f64 ? x : round_to_format(x, f); }

double kahan_in(std::span<const double> x, Format f) {
  double s = x[0], c = 0;
  for (std::size_t i = 1; i < x.size(); ++i) {
    const double y = op_in(x[i] - c, f);
    const double t = op_in(s + y, f);
    c = std::isfinite(t) ? op_in(op_in(t - s, f) - y, f) : 0.0;
    s = t;
  }
  return s;
}

double neumaier_in(std::span<const double> x, Format f) {
  double s = x[0], c = 0;
  for (std::size_t i = 1; i < x.size(); ++i) {
    const double t = op_in(s + x[i], f);
    if (std::isfinite(t)) {
      if (std::fabs(s) >= std::fabs(x[i]))
        c = op_in(c + op_in(op_in(s - t, f) + x[i], f), f);
      else
        c = op_in(c + op_in(op_in(x[i] - t, f) + s, f), f);
    }
    s = t;
  }
  return std::isfinite(s) ? op_in(s + c, f) : s;
}

std::optional<Format> format_within(int bits) {
  std::optional<Format> best;
  for (Format f : all_formats)
    if (traits(f).precision <= bits && (!best || traits(f).precision > traits(*best).precision)) best = f;
  return best;
}

std::optional<Format> format_of_bits(int bits) {
  for (Format f : all_formats)
    if (traits(f).precision == bits) return f;
  return std::nullopt;
}

}  // namespace accucheck::characterization
