// stochastic(LAMBDA,F): stochastic rounding, a bound that holds with probability at least
// 1 - 2 exp(-lambda^2/2), with its parse, print and formula (docs/bounds.md "Stochastic rounding").
#include <charconv>
#include <cstdlib>

#include "checking/bounds/kind.h"

namespace accucheck::bounds {
namespace {

constexpr auto stochastic = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  using O = Ops<Num>;
  const Units<Num> units(b, q);
  const Num& one = units.one;
  const std::uint64_t k = units.k;
  // gamma~_{n-1}(lambda) = exp(lambda sqrt(n-1) u_sr + (n-1) u_sr^2/(1-u_sr)) - 1.
  const Num usr = O::power_of_two(1 - units.p);
  const Num exponent =
      O::exact_double(b.lambda) * O::sqrt_up(O::integer(k)) * usr + O::integer(k) * usr * usr / (one - usr);
  return (O::exp_up(exponent) - one) * q.abs_sum;
};

bool parse_stochastic(const Node& node, BoundExpr& bound, std::string& error) {
  if (!expect_arguments(node, 2, error)) return false;
  const std::string& text = node.arguments[0].head;
  char* end = nullptr;
  const double lambda = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(lambda > 0) || lambda > 64) {
    error = "stochastic(LAMBDA,F) needs 0 < LAMBDA <= 64, got '" + text + "'";
    return false;
  }
  if (!to_format(node.arguments[1], bound.format, error)) return false;
  bound.lambda = lambda;
  return true;
}
std::string print_stochastic(const BoundExpr& bound) {
  // Shortest text that parses back to the same lambda (an ostream's default 6 digits
  // would change the bound on the way through a case file).
  char lambda[64];
  const auto printed = std::to_chars(lambda, lambda + sizeof lambda, bound.lambda);
  return call_text(bound, {std::string(lambda, printed.ptr), format_text(bound)});
}

}  // namespace

extern constexpr BoundKindSpec stochastic_spec = bound_kind(
    BoundKind::stochastic, "stochastic", "stochastic(2.5,bf16)",
    "Connolly, Higham & Mary, SIAM J. Sci. Comput. 43 (2021); AN23 sec. 4.6.4", parse_stochastic, print_stochastic,
    stochastic, {.metamorphic_exclusion = "stochastic rounding draws random bits: two runs are not comparable"});

}  // namespace accucheck::bounds
