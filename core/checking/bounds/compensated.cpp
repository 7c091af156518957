// The compensated sums: kahan (Kahan's loop; not the textbook 2u bound, docs/bounds.md "Kahan")
// and neumaier (Sum2), each with its parse, print and formula.
#include "checking/bounds/kind.h"

namespace accucheck::bounds {
namespace {

// kahan(F): (3u + 14(n+1)u^2) A (Hallman & Ipsen 2022).
constexpr auto kahan = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  using O = Ops<Num>;
  const Units<Num> units(b, q);
  const std::uint64_t n = units.n;
  const Num& u = units.u;
  // Valid for u <= 1/128 (every format here) and n u <= 1/2.
  if (n > units.two_to_p / 2) return std::nullopt;
  return (O::integer(3) * u + O::integer(14) * O::integer(n + 1) * u * u) * q.abs_sum;
};

// neumaier(F): u|S| + gamma_{n-1}^2 A (Ogita, Rump & Oishi 2005, Prop. 4.5).
constexpr auto neumaier = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  const Units<Num> units(b, q);
  auto g = units.gamma(units.k);
  if (!g) return std::nullopt;
  return units.u * q.abs_exact + *g * *g * q.abs_sum;
};

// Neumaier's running sum s is a plain recursive sum (the compensation c restores accuracy only
// in the final s + c), so its partial sums reach A(1 + (n-1)u), beyond A + neumaier(F):
// recursive(F) bounds them.
std::optional<BoundExpr> neumaier_running_sum(const BoundExpr& bound) {
  BoundExpr running;
  running.kind = BoundKind::recursive;
  running.format = bound.format;
  return running;
}

}  // namespace

extern constexpr BoundKindSpec kahan_spec = bound_kind(
    BoundKind::kahan, "kahan", "kahan(f64)", "Hallman & Ipsen, arXiv 2203.15928 (2022), as cited in AN23 sec. 5.3",
    parse_format_argument, print_format_argument, kahan);

extern constexpr BoundKindSpec neumaier_spec = bound_kind(
    BoundKind::neumaier, "neumaier", "neumaier(f32)", "Ogita, Rump & Oishi, SIAM J. Sci. Comput. 26 (2005), Prop. 4.5",
    parse_format_argument, print_format_argument, neumaier, {.intermediate = neumaier_running_sum});

}  // namespace accucheck::bounds
