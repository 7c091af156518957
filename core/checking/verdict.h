// The one definition of "this result is wrong": per element, the computed value against the
// exact sum and the backend's stated bound. Properties, fuzzers and the CLI all call judge().
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "checking/bound.h"
#include "numerics/exact.h"

namespace accucheck {

enum class Verdict : std::uint8_t {
  ok,
  bound_vacuous,           // within whatever the bound says, but it promises no accuracy here
  precondition_not_met,    // A + bound overflows a format involved: only special rules apply
  bound_exceeded,          // |computed - S| > bound (or outside faithful / ulps claims)
  not_correctly_rounded,   // a correctly_rounded backend differs from RNE(S) (zero sign included)
  overflow,                // non-finite result for a finite S inside the precondition
  special_value_mismatch,  // NaN / infinity rules of BOUNDS.md broken
  not_representable,       // the result is not a value of the backend's output format
  nondeterministic,        // bits differ between runs that the determinism class says agree
  metamorphic_mismatch,    // scaling by 2^k or negating the addends did not scale / negate the result
  backend_failed,          // the backend reported an error or threw instead of returning a result
};

std::string_view name(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view text);  // the inverse of name()
bool is_violation(Verdict v);

// What a finding's label (a case file's `verdict`) may be: a verdict name, the metamorphic
// properties' "scaling-mismatch" / "negation-mismatch", "oracle-disagreement" (the exact oracle
// itself) or "invalid-workload" (a generator). findings.h makes them; case files carry them.
bool is_finding_label(std::string_view text);

struct ElementVerdict {
  Verdict verdict = Verdict::ok;
  double exact = 0;  // S rounded to the nearest double (NaN / inf for special sums)
  double computed = 0;
  double correctly_rounded = 0;  // RNE(S) in the output format
  double error = 0;              // |computed - S| rounded to nearest (inf if computed is not finite)
  double bound = 0;              // the bound rounded upward; +inf where undefined; NaN for rounding claims
  double ratio = 0;              // error / bound ("tightness")
  std::int64_t ulps = 0;         // signed steps of the output format from RNE(S) (0 if either is not finite)
  double kappa = 1;              // A / |S| from the nearest doubles of A and S (reported, never compared)
  bool vacuous = false;
  bool precondition_met = true;
  // `exact` is not S itself (S has more significant bits than a double holds): reports mark it
  // and print S exactly (fixed_hex), so that a sum just below an f32 midpoint does not read as the midpoint.
  bool exact_is_rounded = false;
};

// Judges one element: `computed` is the backend's result (a value of `output`). `terms`: the
// element's terms in summation order when the bound needs them (bound_needs_terms), else empty.
ElementVerdict judge(const BoundExpr& bound, Format output, const ExactSum& exact, double computed,
                     std::span<const double> terms = {});

}  // namespace accucheck
