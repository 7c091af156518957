// The table of bound kinds: every kind's spec (defined in its family's file), once, in the order
// of BoundKind; and bound.h's text and per-kind facts answered from it (the name, the source,
// parse and print, which formats and terms a bound needs). A new kind is one row here (and its
// spec in a family's file: docs/bounds.md "Adding a bound kind").
#include <array>
#include <iterator>

#include "checking/bounds/kind.h"

namespace accucheck {
namespace bounds {

extern const BoundKindSpec recursive_spec, anyorder_spec, tree_spec, kahan_spec, neumaier_spec, widened_spec,
    products_spec, correctly_rounded_spec, faithful_spec, reproducible_binned_spec, stochastic_spec, ftz_spec,
    ulps_spec, depths_spec, fused_spec, fused_promoted_spec, fused_truncated_spec, truncated_inputs_spec;

namespace {

// Index = BoundKind (bound_test checks each row's kind and that its name parses back to it).
constexpr std::array<const BoundKindSpec*, kBoundKindCount> kTable = {
    &recursive_spec,            // recursive.cpp
    &anyorder_spec,             // recursive.cpp
    &tree_spec,                 // recursive.cpp
    &kahan_spec,                // compensated.cpp
    &neumaier_spec,             // compensated.cpp
    &widened_spec,              // wrappers.cpp
    &products_spec,             // products.cpp
    &correctly_rounded_spec,    // rounding_claims.cpp
    &faithful_spec,             // rounding_claims.cpp
    &reproducible_binned_spec,  // reproducible_binned.cpp
    &stochastic_spec,           // stochastic.cpp
    &ftz_spec,                  // wrappers.cpp
    &ulps_spec,                 // rounding_claims.cpp
    &depths_spec,               // recursive.cpp
    &fused_spec,                // fused.cpp
    &fused_promoted_spec,       // fused.cpp
    &fused_truncated_spec,      // fused.cpp
    &truncated_inputs_spec,     // products.cpp
};
static_assert(std::size(kTable) == kBoundKindCount, "one row per BoundKind");

}  // namespace

std::span<const BoundKindSpec* const> all_kinds() { return kTable; }

const BoundKindSpec& spec(BoundKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  return index < kTable.size() ? *kTable[index] : *kTable[0];
}

const BoundKindSpec* spec_named(std::string_view name) {
  for (const BoundKindSpec* s : kTable)
    if (s->name == name) return s;
  return nullptr;
}

std::optional<Interval> evaluate(const BoundExpr& bound, const Quantities<Interval>& q) {
  const auto f = spec(bound.kind).interval;
  return f ? f(bound, q) : std::nullopt;
}

std::optional<Rational> evaluate(const BoundExpr& bound, const Quantities<Rational>& q) {
  const auto f = spec(bound.kind).rational;
  return f ? f(bound, q) : std::nullopt;
}

std::optional<BoundExpr> build(const Node& node, std::string& error) {
  const BoundKindSpec* kind = spec_named(node.head);
  if (!kind) {
    error = "unknown bound kind '" + node.head + "'";
    return std::nullopt;
  }
  BoundExpr bound;
  bound.kind = kind->kind;
  if (!kind->parse(node, bound, error)) return std::nullopt;
  return bound;
}

}  // namespace bounds

std::string to_string(BoundKind kind) { return std::string(bounds::spec(kind).name); }
std::string_view bound_source(BoundKind kind) { return bounds::spec(kind).source; }

bool is_error_bound(BoundKind kind) { return bounds::spec(kind).error_bound; }

bool bound_needs_terms(const BoundExpr& bound) {
  const auto needs_terms = bounds::spec(bound.kind).facts.needs_terms;
  if (needs_terms && needs_terms(bound)) return true;
  return bound.inner && bound_needs_terms(*bound.inner);
}

std::vector<Format> bound_formats(const BoundExpr& bound) {
  std::vector<Format> formats;
  if (bound.inner) formats = bound_formats(*bound.inner);
  if (is_error_bound(bound.kind)) formats.push_back(bound.format);
  return formats;
}

std::string to_string(const BoundExpr& bound) { return bounds::spec(bound.kind).print(bound); }

std::optional<BoundExpr> parse_bound(std::string_view text, std::string* error) {
  std::string message;
  bounds::Node root;
  std::optional<BoundExpr> result;
  if (bounds::parse_node(text, root, message)) result = bounds::build(root, message);
  if (!result && error) *error = "bad bound expression '" + std::string(text) + "': " + message;
  return result;
}

}  // namespace accucheck
