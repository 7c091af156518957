#include "checking/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>

#include "numerics/enum_names.h"
#include "numerics/fast_exact.h"

namespace accucheck {

namespace {

constexpr std::pair<Verdict, std::string_view> verdict_spellings[] = {
    {Verdict::ok, "ok"},
    {Verdict::bound_vacuous, "bound-vacuous"},
    {Verdict::precondition_not_met, "precondition-not-met"},
    {Verdict::bound_exceeded, "bound-exceeded"},
    {Verdict::not_correctly_rounded, "not-correctly-rounded"},
    {Verdict::overflow, "overflow"},
    {Verdict::special_value_mismatch, "special-value-mismatch"},
    {Verdict::not_representable, "not-representable"},
    {Verdict::nondeterministic, "nondeterministic"},
    {Verdict::metamorphic_mismatch, "metamorphic-mismatch"},
    {Verdict::backend_failed, "backend-failed"}};
constexpr EnumNames<Verdict, static_cast<std::size_t>(Verdict::backend_failed) + 1> verdict_names(verdict_spellings);

}  // namespace

std::string_view name(Verdict v) { return verdict_names.name(v); }

std::optional<Verdict> parse_verdict(std::string_view text) { return verdict_names.parse(text); }

bool is_finding_label(std::string_view text) {
  return parse_verdict(text) || text == "scaling-mismatch" || text == "negation-mismatch" ||
         text == "oracle-disagreement" || text == "invalid-workload";
}

bool is_violation(Verdict v) {
  return v != Verdict::ok && v != Verdict::bound_vacuous && v != Verdict::precondition_not_met;
}

namespace {

bool same_bits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// The verdict of a rounding claim (correctly_rounded, faithful, ulps) for a finite S.
Verdict judge_rounding_claim(const BoundExpr& bound, Format output, const ExactSum& exact, double computed,
                             double nearest, ElementVerdict& v) {
  v.bound = std::numeric_limits<double>::quiet_NaN();
  const bool overflowed = !std::isfinite(computed) && std::isfinite(nearest);
  switch (bound.kind) {
    case BoundKind::correctly_rounded:
      if (overflowed) return Verdict::overflow;
      return same_bits(computed, nearest) ? Verdict::ok : Verdict::not_correctly_rounded;
    case BoundKind::faithful: {
      // RD(S) and RU(S): RNE(S) and its neighbour on the other side of S.
      const int side = exact.sum.compare(std::isfinite(nearest) ? to_fixed(nearest) : exact.sum);
      double other = nearest;
      if (std::isinf(nearest))
        other = nearest > 0 ? largest_finite(output) : -largest_finite(output);
      else if (side > 0)
        other = next_up(nearest, output);
      else if (side < 0)
        other = next_down(nearest, output);
      // Beyond the largest finite value (below the overflow threshold) RU(S) is infinity: a
      // faithful result may be infinite there, so overflow is judged only after the two.
      if (computed == nearest || computed == other) return Verdict::ok;
      return overflowed ? Verdict::overflow : Verdict::bound_exceeded;
    }
    case BoundKind::ulps:
      if (overflowed) return Verdict::overflow;
      if (!std::isfinite(nearest)) {
        v.precondition_met = false;
        return Verdict::precondition_not_met;
      }
      v.bound = static_cast<double>(bound.count);
      return std::llabs(v.ulps) <= bound.count ? Verdict::ok : Verdict::bound_exceeded;
    default: break;
  }
  return Verdict::ok;
}

// A / |S| from the nearest doubles of A and S (within about 2 ulps of the exact quotient:
// it is reported, never compared). ExactSum::condition_number() gives it correctly rounded
// but costs a big-integer division per element, which dominated judge().
double approximate_condition_number(const ExactSum& exact, double nearest_abs_sum, double nearest_sum) {
  if (exact.special != Special::none) return std::numeric_limits<double>::quiet_NaN();
  if (exact.abs_sum == 0) return 1.0;
  if (exact.sum == 0) return std::numeric_limits<double>::infinity();
  return nearest_abs_sum / std::fabs(nearest_sum);
}

}  // namespace

ElementVerdict judge(const BoundExpr& bound, Format output, const ExactSum& exact, double computed,
                     std::span<const double> terms) {
  ElementVerdict v;
  v.computed = computed;
  // S and A to the nearest double, once: reported, and the bound's interval quantities.
  NearestValues near;
  const double sum_f64 = round_fixed_fast(exact.sum, Format::f64, &near.abs_exact_inexact);
  near.abs_exact = std::fabs(sum_f64);
  near.abs_sum = round_fixed_fast(exact.abs_sum, Format::f64, &near.abs_sum_inexact);
  v.kappa = approximate_condition_number(exact, near.abs_sum, sum_f64);
  // RNE(S) through the fast limb rounding (checked equal to ExactSum::rounded in fast_exact_test).
  const double nearest = exact.special != Special::none || exact.sum == 0 ? exact.rounded(output)
                         : output == Format::f64                          ? sum_f64
                                                                          : round_fixed_fast(exact.sum, output);
  v.correctly_rounded = nearest;

  if (exact.special != Special::none) {
    v.exact = nearest;
    v.precondition_met = false;
    v.error = same_bits(computed, nearest) ? 0.0 : std::numeric_limits<double>::quiet_NaN();
    v.bound = std::numeric_limits<double>::quiet_NaN();
    const bool matches = exact.special == Special::nan ? std::isnan(computed) : computed == nearest;
    v.verdict = matches ? Verdict::ok : Verdict::special_value_mismatch;
    if (!matches && exact.special != Special::nan && std::isnan(computed) && is_error_bound(bound.kind)) {
      // One infinity among finite addends: IEEE gives NaN if the finite addends themselves
      // overflow to the opposite infinity first. That is possible only when the finite part
      // fails the precondition (A + bound reaches the overflow threshold); then NaN is no
      // mismatch (docs/bounds.md, "Special values").
      ExactSum finite_part = exact;
      finite_part.special = Special::none;
      if (!check_error_bound(bound, output, finite_part, FixedInt(0)).precondition_met)
        v.verdict = Verdict::precondition_not_met;
    }
    return v;
  }

  v.exact = sum_f64;
  v.exact_is_rounded = near.abs_exact_inexact;
  if (!representable(computed, output)) {
    v.verdict = Verdict::not_representable;
    return v;
  }
  if (std::isfinite(computed)) {
    v.error = nearest_abs_difference(computed, exact.sum, &near.abs_error_inexact);  // RNE(|computed - S|)
    near.abs_error = v.error;
  } else {
    v.error = std::numeric_limits<double>::infinity();
    // Judged overflow, never by the comparison, which sees an error of 0 (as before).
    near.abs_error = 0.0;
    near.abs_error_inexact = false;
  }
  if (std::isfinite(computed) && std::isfinite(nearest)) {
    // Saturated: f64 ordinals of opposite signs can differ by more than INT64_MAX (signed
    // overflow, found by fuzz_dense); -INT64_MAX keeps |ulps| representable too.
    const __int128 steps = static_cast<__int128>(ordinal(computed, output)) - ordinal(nearest, output);
    v.ulps = static_cast<std::int64_t>(std::clamp<__int128>(steps, -INT64_MAX, INT64_MAX));
  }

  if (!is_error_bound(bound.kind)) {
    v.verdict = judge_rounding_claim(bound, output, exact, computed, nearest, v);
    if (std::isfinite(v.bound) && v.bound > 0) v.ratio = static_cast<double>(std::llabs(v.ulps)) / v.bound;
    return v;
  }

  // The exact |computed - S|, built only when the nearest doubles leave the comparison open.
  const std::function<FixedInt()> abs_error = [&] {
    FixedInt e = to_fixed(computed) - exact.sum;
    return e < 0 ? FixedInt(-e) : e;
  };
  const BoundCheck check = check_error_bound(bound, output, exact, near, abs_error, terms);
  v.bound = check.bound;
  v.vacuous = check.vacuous;
  v.precondition_met = check.precondition_met;
  v.ratio = v.bound > 0 ? v.error / v.bound : (v.error == 0 ? 0.0 : std::numeric_limits<double>::infinity());
  if (std::isinf(check.bound))
    v.verdict = Verdict::bound_vacuous;
  else if (!check.precondition_met)
    v.verdict = Verdict::precondition_not_met;
  else if (!std::isfinite(computed))
    v.verdict = Verdict::overflow;
  else if (!check.within)
    v.verdict = Verdict::bound_exceeded;
  else if (check.vacuous)
    v.verdict = Verdict::bound_vacuous;
  else
    v.verdict = Verdict::ok;
  return v;
}

}  // namespace accucheck
