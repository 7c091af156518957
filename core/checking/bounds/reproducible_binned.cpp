// reproducible_binned(K,W,F): the binned summation of Ahrens, Nguyen & Demmel (ReproBLAS), with
// its parse, print and formula (their Thm 5.8 eq. (5.26)).
#include "checking/bounds/kind.h"

namespace accucheck::bounds {
namespace {

// (1 + c) n max(2^(W(1-K)) max |x|, 2^(emin-1)) + c |S|, c = 7e/(1 - 6 sqrt(e)), e = u.
constexpr auto reproducible_binned = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  using O = Ops<Num>;
  const Units<Num> units(b, q);
  const Num& one = units.one;
  const Num e = units.u;
  const Num c = O::integer(7) * e / (one - O::integer(6) * O::sqrt_up(e));
  const Num floor_term = O::power_of_two(traits(b.format).emin - 1);
  const Num scaled_max = O::power_of_two(static_cast<int>(b.width * (1 - b.count))) * q.max_abs;
  return (one + c) * O::integer(units.n) * maximum(scaled_max, floor_term) + c * q.abs_exact;
};

bool parse_reproducible_binned(const Node& node, BoundExpr& bound, std::string& error) {
  return count_width_format(node, {2, 8}, {1, 60},
                            "reproducible_binned(K,W,F) needs integers 2 <= K <= 8 and 1 <= W <= 60", bound, error);
}

}  // namespace

extern constexpr BoundKindSpec reproducible_binned_spec = bound_kind(
    BoundKind::reproducible_binned, "reproducible_binned", "reproducible_binned(3,40,f64)",
    "Ahrens, Nguyen & Demmel, UCB/EECS-2015-229, Thm 5.8 eq. (5.26)", parse_reproducible_binned,
    print_count_width_format, reproducible_binned,
    {.metamorphic_exclusion =
         "binned summation anchors its bins at fixed exponents: neither scaling nor negation commutes with it"});

}  // namespace accucheck::bounds
