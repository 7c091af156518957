// The rounding claims: correctly_rounded (computed == RNE(S)), faithful (RD(S) or RU(S)) and
// ulps(K) (within K ulps of RNE(S), an empirical claim). They have no formula here: verdict.cpp
// (judge_rounding_claim) checks them against the rounded exact sum, bit for bit.
#include "checking/bounds/kind.h"

namespace accucheck::bounds {
namespace {

bool parse_no_arguments(const Node& node, BoundExpr&, std::string& error) { return expect_arguments(node, 0, error); }
std::string print_name(const BoundExpr& bound) { return to_string(bound.kind); }

bool parse_ulps(const Node& node, BoundExpr& bound, std::string& error) {
  std::uint64_t k = 0;
  if (!expect_arguments(node, 1, error)) return false;
  if (!parse_unsigned(node.arguments[0].head, k) || k > (1u << 30)) {
    error = "ulps(K) needs a non-negative integer K, got '" + node.arguments[0].head + "'";
    return false;
  }
  bound.count = static_cast<std::int64_t>(k);
  return true;
}
std::string print_ulps(const BoundExpr& bound) { return call_text(bound, {std::to_string(bound.count)}); }

}  // namespace

extern constexpr BoundKindSpec correctly_rounded_spec =
    bound_kind(BoundKind::correctly_rounded, "correctly_rounded", "correctly_rounded", "IEEE 754-2019",
               parse_no_arguments, print_name, nullptr);

extern constexpr BoundKindSpec faithful_spec =
    bound_kind(BoundKind::faithful, "faithful", "faithful", "Rump, Ogita & Oishi, SIAM J. Sci. Comput. 31 (2008)",
               parse_no_arguments, print_name, nullptr);

extern constexpr BoundKindSpec ulps_spec =
    bound_kind(BoundKind::ulps, "ulps", "ulps(2)", "stated by the backend (empirical)", parse_ulps, print_ulps, nullptr,
               {.metamorphic_exclusion = "an empirical ulps claim says nothing about how the result is computed"});

}  // namespace accucheck::bounds
