// One bound kind in one place: a BoundKindSpec holds everything the code knows about a kind (its
// name and source, how its arguments are read from a parsed Node and printed back, its formula
// for both number types of arithmetic.h, and the facts other code asks about it). Each family's
// file (recursive.cpp, compensated.cpp, fused.cpp, products.cpp, wrappers.cpp,
// rounding_claims.cpp, reproducible_binned.cpp, stochastic.cpp) defines its kinds' specs; kinds.cpp
// lists them all once, in the order of BoundKind. docs/bounds.md "Adding a bound kind".
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "checking/bound.h"
#include "checking/bounds/arithmetic.h"
#include "checking/bounds/syntax.h"

namespace accucheck::bounds {

// The bound for one element; nullopt where the theorem gives nothing (gamma_k with k u >= 1,
// Kahan beyond n u <= 1/2, ...). One generic lambda per kind, instantiated for Interval and
// Rational (bound_kind): the two must agree on where the bound is defined (check.cpp computes
// the rational one only where the interval one exists).
template <class Num>
using EvaluateFn = std::optional<Num> (*)(const BoundExpr& bound, const Quantities<Num>& q);

// What a kind may add to its spec beyond its text and formula (nothing, for most kinds).
struct KindFacts {
  // Whether evaluating this bound needs the element's terms in order (bound_needs_terms; an
  // inner bound is asked on its own). nullptr: never.
  bool (*needs_terms)(const BoundExpr& bound) = nullptr;
  // A bound on the backend's partial sums, where they may stray further than the result's bound
  // (the precondition, check.cpp). nullptr: the bound covers them, or for a kind with an inner
  // bound, the inner bound's intermediate bound inside the same wrapper.
  std::optional<BoundExpr> (*intermediate)(const BoundExpr& bound) = nullptr;
  // Why the kind rules out the metamorphic properties (properties.cpp): both scaling and negation,
  // or scaling only; empty where it does not (an inner bound is asked on its own).
  std::string_view metamorphic_exclusion = {};
  std::string_view scaling_exclusion = {};
};

// Reads node's arguments (node.head is the kind's name) into `bound`, whose kind is set; false
// with `error` saying what is wrong.
using ParseFn = bool (*)(const Node& node, BoundExpr& bound, std::string& error);
// The text that parses back to the same bound.
using PrintFn = std::string (*)(const BoundExpr& bound);

struct BoundKindSpec {
  BoundKind kind;
  std::string_view name;     // the text's head: "recursive"
  std::string_view example;  // a text of this kind, printed back unchanged (bound_test; docs)
  std::string_view source;   // bound_source: where the theorem comes from
  // A bound on |computed - S| (true), or a rounding claim checked against RNE/RD/RU of S
  // (verdict.cpp judge_rounding_claim), which has no formula and no format of its own.
  bool error_bound = true;
  ParseFn parse = nullptr;
  PrintFn print = nullptr;
  EvaluateFn<Interval> interval = nullptr;  // nullptr for a rounding claim
  EvaluateFn<Rational> rational = nullptr;
  KindFacts facts = {};
};

// A kind's spec, as each family's file defines it: `extern constexpr BoundKindSpec x_spec =
// bound_kind(...)`, a constant (the table is read while other libraries' statics are initialized,
// so a spec must not wait for its own file's). `formula` is a generic lambda
// []<class Num>(const BoundExpr&, const Quantities<Num>&) -> std::optional<Num>, made the
// EvaluateFn for Interval and for Rational here; nullptr for a rounding claim.
template <class Formula>
constexpr BoundKindSpec bound_kind(BoundKind kind, std::string_view name, std::string_view example,
                                   std::string_view source, ParseFn parse, PrintFn print, Formula formula,
                                   KindFacts facts = {}) {
  BoundKindSpec spec{kind, name, example, source, true, parse, print, nullptr, nullptr, facts};
  if constexpr (std::is_null_pointer_v<Formula>) {
    spec.error_bound = false;
  } else {
    spec.interval = formula;
    spec.rational = formula;
  }
  return spec;
}

// How many kinds BoundKind has: its last enumerator + 1 (a kind is added at the end of the enum).
inline constexpr std::size_t kBoundKindCount = static_cast<std::size_t>(BoundKind::truncated_inputs) + 1;

// Every kind, once (kinds.cpp): all_kinds()[k].kind == BoundKind(k).
std::span<const BoundKindSpec* const> all_kinds();
const BoundKindSpec& spec(BoundKind kind);
const BoundKindSpec* spec_named(std::string_view name);  // nullptr: no such kind

// A bound's value, by its kind's formula (inner bounds through these again).
std::optional<Interval> evaluate(const BoundExpr& bound, const Quantities<Interval>& q);
std::optional<Rational> evaluate(const BoundExpr& bound, const Quantities<Rational>& q);

}  // namespace accucheck::bounds
