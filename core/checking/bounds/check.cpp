// Checking one element against an error bound (bound.h check_error_bound): the bound evaluated
// in intervals, recomputed exactly only where they leave a comparison undecided; whether it is
// vacuous, whether its precondition (no intermediate overflow) holds, and whether the error is
// within it (docs/bounds.md "Precondition, vacuous bounds, special values", "Rigorous evaluation").
// Which formula applies is the kind's (kind.h); nothing here names a kind.
#include <functional>
#include <limits>
#include <memory>

#include "checking/bounds/kind.h"

namespace accucheck {
namespace bounds {
namespace {

bool fixed_at_most(const FixedInt& x, double y) {  // x <= y for finite y >= 0
  return x <= to_fixed(y);
}

// A bound on how far the backend's intermediate partial sums can stray from the exact partial
// sums, where that is larger than the bound on its result: the kind's own (Neumaier's running
// sum, compensated.cpp), else a wrapper's inner bound's, inside the same wrapper. Every other
// kind's partial sums obey its own bound on fewer terms. nullopt: the bound itself covers them.
std::optional<BoundExpr> intermediate_bound(const BoundExpr& bound) {
  if (const auto own = spec(bound.kind).facts.intermediate) return own(bound);
  if (!bound.inner) return std::nullopt;
  auto inner = intermediate_bound(*bound.inner);
  if (!inner) return std::nullopt;
  BoundExpr outer = bound;
  outer.inner = std::make_shared<const BoundExpr>(std::move(*inner));
  return outer;
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

}  // namespace bounds

BoundCheck check_error_bound(const BoundExpr& bound, Format output, const ExactSum& exact, const FixedInt& abs_error,
                             std::span<const double> terms) {
  const double unknown = std::numeric_limits<double>::quiet_NaN();  // every comparison false
  return bounds::check_with(bound, output, exact, bounds::quantities<bounds::Interval>(exact, terms), unknown, true,
                            [&] { return abs_error; });
}

BoundCheck check_error_bound(const BoundExpr& bound, Format output, const ExactSum& exact, const NearestValues& nearest,
                             const std::function<FixedInt()>& abs_error, std::span<const double> terms) {
  const bounds::Quantities<bounds::Interval> qi{
      exact.count,
      bounds::Interval::around_nearest(nearest.abs_sum, nearest.abs_sum_inexact),
      bounds::Interval::around_nearest(nearest.abs_exact, nearest.abs_exact_inexact),
      bounds::Interval::exact(exact.max_abs),
      terms,
      0};
  return bounds::check_with(bound, output, exact, qi, nearest.abs_error, nearest.abs_error_inexact, abs_error);
}

}  // namespace accucheck
