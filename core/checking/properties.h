// The properties every backend must satisfy, defined once: the RapidCheck suite
// (properties/), the mutant test, the fuzzers and the CLI all ask these functions whether a
// backend passes on a workload. Each check is a pure function of (backend, workload): the
// auxiliary choices it makes (a permutation, the scaling exponents) are derived from fixed
// seeds, so a failure replays from the workload alone and shrink_workload can minimize it.
//
//   stated_bound       run_and_judge: no element has a violation verdict (bound exceeded,
//                      overflow, special-value mismatch, not correctly rounded, ...); verdicts
//                      bound-vacuous and precondition-not-met are not failures.
//   correctly_rounded  (correctly_rounded backends) every element equals RNE(S) bit for bit,
//                      zero sign and NaN included, checked against the oracle directly.
//   determinism        (bitwise-deterministic, order-independent) check_determinism: identical
//                      bits across reruns and thread counts, and for order-independent backends
//                      under permutations and splits.
//   special_values     the stated_bound check on workloads of the special-value families: the
//                      NaN / infinity rules of BOUNDS.md (as refined in docs/bounds.md).
//   scaling            (see scaling_applies) result(2^k w) == 2^k result(w) bit for bit, for
//                      every k in a set drawn from exact_scaling_range.
//   negation           (see negation_applies) result(-w) == -result(w) as values (+0 == -0:
//                      x + (-x) is +0 in both directions), NaN for NaN.
//
// docs/properties.md states which backends the metamorphic properties hold for and why.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checking/backend.h"
#include "checking/determinism.h"
#include "checking/families.h"
#include "checking/judge.h"
#include "checking/property.h"
#include "checking/shrink.h"

namespace accucheck {

// Whether the property promises anything for this backend ("" when it applies, else why not):
// from its bound's kind and determinism class, and the exemptions of its registration
// (Backend::exemptions: loss scaling by 1000 is not scale-invariant).
std::string property_exclusion(Property p, const Backend& backend);
inline bool property_applies(Property p, const Backend& backend) { return property_exclusion(p, backend).empty(); }

struct PropertyFailure {
  Property property = Property::stated_bound;
  // stated_bound, special_values: the worst verdict; correctly_rounded: not-correctly-rounded
  // (or backend-failed); determinism: nondeterministic; scaling, negation:
  // metamorphic-mismatch (the label says which).
  Verdict verdict = Verdict::ok;
  std::string label;   // the verdict's name, or "scaling-mismatch" / "negation-mismatch"
  std::string detail;  // a readable report: backend, workload shape, element, values
};

// Checks one property of one backend on one workload (the property must apply; a workload
// of a kind the backend does not run is a failure of the caller: it throws
// std::invalid_argument). nullopt when the property holds. `result`, when the caller has it:
// the backend's result on w under default RunOptions (run_and_judge's computed values);
// correctly_rounded, determinism (as its first run), scaling and negation then use it instead
// of running w again.
std::optional<PropertyFailure> check_property(Property p, const Backend& backend, const Workload& w,
                                              const std::vector<ExactSum>& exact,
                                              const std::vector<double>* result = nullptr);
// The same without the exact sums: stated_bound and special_values compute them (every
// element's); determinism and negation need none, and correctly_rounded and scaling take them
// a block at a time, so these four stay within memory proportional to the workload (replay of
// wide cases).
std::optional<PropertyFailure> check_property(Property p, const Backend& backend, const Workload& w,
                                              const std::vector<double>* result = nullptr);

// ---- metamorphic helpers ---------------------------------------------------------------------

// Scaling by 2^k commutes with a computation made only of correctly rounded +, - (and, for
// product workloads, x and fma) in the formats F of the backend (storage and accumulation)
// when k lies in [low, high] (docs/properties.md has the proof):
//   low  = max over F of (emin_F - p_F + 1) - G, G = the exponent of the lowest set bit over
//          every value that is scaled and every term (products exactly), so no scaled value
//          or intermediate result falls below the subnormal grid of F where the unscaled one
//          did not (and no value that was rounded in the normal range becomes exact below it);
//   high = min over F of emax_F - ceil(log2(A * M)), M = 4 * (1 + u_F)^(n-1) bounding every
//          partial sum of any RNE summation tree (monotonicity of RNE) and compensation terms,
//          so no scaled intermediate overflows; the unscaled workload must satisfy it too.
// nullopt when some value is NaN or infinite, or when k = 0 itself is outside (the workload
// already underflows or overflows: the property says nothing about it).
struct ScalingRange {
  int low = 0, high = 0;  // low <= 0 <= high
};
// (Without the sums, they are computed a block at a time: memory O(block).)
std::optional<ScalingRange> exact_scaling_range(const Backend& backend, const Workload& w);
// The same with w's exact sums given (exact_sums(w)), as check_property has them.
std::optional<ScalingRange> exact_scaling_range(const Backend& backend, const Workload& w,
                                                const std::vector<ExactSum>& exact);
// The exponents the scaling property tries: the ends of the range, +-1 and one drawn from a
// fixed seed; nonzero, distinct. Empty when the range is {0}.
std::vector<int> scaling_exponents(const ScalingRange& range);

// Every addend (dense, sparse; C and A of product workloads) multiplied by 2^k, which must be
// exact (a value of the workload's format); negated: every addend (C and A) negated.
Workload scaled(const Workload& w, int k);
Workload negated(const Workload& w);

// ---- generation --------------------------------------------------------------------------------

// The workload a property generates for a backend from a choice stream: the backend's storage
// format, the requested kind; the special-value family of the kind for special_values, else
// any adversarial family of the kind (generate()). With `family` set, that family is used
// for every property (the `uniform` baseline of docs/detection.md). A backend's input
// requirements hold: FP8-only ones get gemm_fp8_inputs, normal-only ones subnormal inputs
// flushed to zero.
Workload generate_for_property(Property p, const Backend& backend, WorkloadKind kind, ChoiceStream& s,
                               const GenerationLimits& limits, const Family* family = nullptr);

}  // namespace accucheck
