// The product kinds: products (sums of products, with or without FMA, in any order) and
// truncated_inputs (products of inputs truncated to B bits before an exact multiplication, TF32),
// each with its parse, print and formula (docs/bounds.md "Products: the underflow term",
// "Truncated inputs", "Products in any tree").
#include <memory>

#include "checking/bounds/kind.h"

namespace accucheck::bounds {
namespace {

constexpr auto products = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  using O = Ops<Num>;
  const Units<Num> units(b, q);
  const std::uint64_t n = units.n;
  // N u A (Jeannerod & Rump 2013) plus, per operation, twice the underflow error of a
  // product or FMA landing in the subnormal range (half the smallest subnormal; the factor
  // 2 covers its growth through later roundings when N u <= 1/2). See docs/bounds.md.
  if (n > units.two_to_p / 2) return std::nullopt;
  const Num eta = O::power_of_two(traits(b.format).emin - units.p);
  return O::integer(n) * units.u * q.abs_sum + O::integer(2 * n) * eta;
};

// truncated_inputs(INNER,B): inner + 2^(2-B) A, inner evaluated on the truncated products.
constexpr auto truncated_inputs = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  using O = Ops<Num>;
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
};

bool parse_truncated_inputs(const Node& node, BoundExpr& bound, std::string& error) {
  // truncated_inputs(INNER,B): the format is the inner bound's (whose thresholds apply).
  std::uint64_t bits = 0;
  auto inner = build_inner(node, error);
  if (!inner) return false;
  if (!parse_unsigned(node.arguments[1].head, bits) || node.arguments[1].has_parentheses || bits < 2 || bits > 53) {
    error = "truncated_inputs(INNER,B) needs an integer 2 <= B <= 53, got '" + node.arguments[1].head + "'";
    return false;
  }
  bound.count = static_cast<std::int64_t>(bits);
  bound.format = inner->format;
  bound.inner = std::make_shared<const BoundExpr>(std::move(*inner));
  return true;
}
std::string print_truncated_inputs(const BoundExpr& bound) {
  return call_text(bound, {to_string(*bound.inner), std::to_string(bound.count)});
}

}  // namespace

extern constexpr BoundKindSpec products_spec =
    bound_kind(BoundKind::products, "products", "products(f32)",
               "Jeannerod & Rump, SIAM J. Matrix Anal. Appl. 34 (2013); Higham (2002) sec. 3.1", parse_format_argument,
               print_format_argument, products);

extern constexpr BoundKindSpec truncated_inputs_spec =
    bound_kind(BoundKind::truncated_inputs, "truncated_inputs", "truncated_inputs(recursive(f32),11)",
               "derived (docs/bounds.md 'Truncated inputs'); TF32's truncated inputs: MMA-Sim (arXiv 2511.10909) and "
               "Khattak & Mikaitis (arXiv 2512.07004), as their public models implement it",
               parse_truncated_inputs, print_truncated_inputs, truncated_inputs);

}  // namespace accucheck::bounds
