// The kinds that wrap an inner error bound with a format of their own: widened (accumulated in a
// wider format, rounded once to the output) and ftz (flush-to-zero on top of the inner bound's
// arithmetic), each with its parse, print and formula. Their partial sums are bounded by their
// inner bound's (check.cpp), and what needs terms inside needs them here too (kinds.cpp).
#include <memory>

#include "checking/bounds/kind.h"

namespace accucheck::bounds {
namespace {

// widened(INNER,F): u_out |S| + (1+u_out) inner.
constexpr auto widened = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  const Units<Num> units(b, q);
  auto inner = evaluate(*b.inner, q);
  if (!inner) return std::nullopt;
  return units.u * q.abs_exact + (units.one + units.u) * *inner;
};

// ftz(INNER,F): inner + (2n-1) min_normal(F): flushing moves each input and each result by less
// than the smallest normal.
constexpr auto ftz = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  using O = Ops<Num>;
  const std::uint64_t n = q.n;
  auto inner = evaluate(*b.inner, q);
  if (!inner) return std::nullopt;
  const std::uint64_t flushes = n > 0 ? 2 * n - 1 : 0;
  return *inner + O::integer(flushes) * O::power_of_two(traits(b.format).emin);
};

// KIND(INNER,F), widened's and ftz's arguments.
bool parse_inner_and_format(const Node& node, BoundExpr& bound, std::string& error) {
  auto inner = build_inner(node, error);
  if (!inner) return false;
  if (!to_format(node.arguments[1], bound.format, error)) return false;
  bound.inner = std::make_shared<const BoundExpr>(std::move(*inner));
  return true;
}
std::string print_inner_and_format(const BoundExpr& bound) {
  return call_text(bound, {to_string(*bound.inner), format_text(bound)});
}

}  // namespace

extern constexpr BoundKindSpec widened_spec =
    bound_kind(BoundKind::widened, "widened", "widened(recursive(f64),f32)", "composition: u_out|S| + (1+u_out)*inner",
               parse_inner_and_format, print_inner_and_format, widened);

extern constexpr BoundKindSpec ftz_spec =
    bound_kind(BoundKind::ftz, "ftz", "ftz(recursive(f32),f32)",
               "derived: flush-to-zero moves each input and result by less than min_normal", parse_inner_and_format,
               print_inner_and_format, ftz, {.scaling_exclusion = "flush-to-zero's threshold is not scale invariant"});

}  // namespace accucheck::bounds
