// The fused multi-term additions of matrix units (tensor cores): fused (K addends and the
// accumulator added by one operation that aligns them to W bits, then rounds once),
// fused_truncated (its sums truncated to Q bits) and fused_promoted (restarted for each chunk of
// N addends, the chunks added in F). One formula for the three, each with its own parse and print
// (docs/bounds.md "Fused multi-term addition", "Truncated results", "Promotion").
#include <algorithm>

#include "checking/bounds/kind.h"

namespace accucheck::bounds {
namespace {

constexpr auto fused = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  using O = Ops<Num>;
  const Units<Num> units(b, q);
  const int p = units.p;
  const Num& u = units.u;
  const Num& one = units.one;
  const std::uint64_t k = units.k;
  // docs/bounds.md "Fused multi-term addition": a chain of m fused steps from c_0 errs by at
  // most ((1+v)^m - 1) A + ((1+v)^m - 1)/v * 2^(emin-p), bounded by gamma(m, v) A + 2m 2^(emin-p)
  // when m v <= 1/2. Promoted ("Promotion"): one chain per chunk of N addends, from zero.
  const auto per_step = static_cast<std::uint64_t>(b.count);
  const bool promoted = b.kind == BoundKind::fused_promoted;
  const std::uint64_t chain = promoted ? std::min(k, static_cast<std::uint64_t>(b.period)) : k;
  const std::uint64_t steps = (chain + per_step - 1) / per_step;
  // The unit of each fused sum's rounding: r = u to nearest in F; r = 2^(1-Q) toward zero to Q
  // bits ("Truncated results"), whose subnormal spacing 2^(emin-Q+1) bounds an underflowing one.
  const bool truncated = b.result_bits != 0;  // fused_truncated, or fused_promoted(K,W,N,Q,F)
  const int q_bits = truncated ? static_cast<int>(b.result_bits) - 1 : p;  // r = 2^-q_bits
  const Num r = O::power_of_two(-q_bits);
  const Num rho = O::integer(per_step + 1) * O::power_of_two(1 - static_cast<int>(b.width));
  const Num eta = rho / (one + rho);
  Num v = eta + r + eta * r;
  if (truncated) {
    // "Truncated results", the tighter step: where no operand has more than W significant
    // bits (and the sums, cut to Q bits, none either), the largest operand loses nothing,
    // so K' = K operands lose, not K + 1; and the sum, a multiple of q = 2^(E-W+1), loses to
    // its truncation at most its grid minus q, nothing where the grid is q or finer. Hence
    // v' = max(rho'/(1 + rho'), (K'-1) 2^(1-W) + max(2^(1-W), r)), rho' = K' 2^(1-W).
    const int bits = operand_bits(q);
    const bool largest_exact = bits != 0 && bits <= b.width && b.result_bits <= b.width;
    const std::uint64_t losing = largest_exact ? per_step : per_step + 1;
    const Num cut = O::power_of_two(1 - static_cast<int>(b.width));
    const Num rho_losing = O::integer(losing) * cut;
    const Num tight = maximum(rho_losing / (one + rho_losing), O::integer(losing - 1) * cut + maximum(cut, r));
    v = minimum(v, tight);
  }
  // Defined where m (rho + 2r) <= 1/2 (which gives m v <= 1/2), decided in integers so that
  // the interval and the rational evaluations agree: times 2^(W+q), r = 2^-q,
  // m ((K+1) 2^(1+q) + 2^(1+W)) <= 2^(W+q-1), below 2^126 for K <= 64, W, q <= 53, m < 2^64.
  using u128 = unsigned __int128;
  const u128 scaled_step = (static_cast<u128>(per_step) + 1) * (u128{1} << (1 + q_bits)) + (u128{1} << (1 + b.width));
  if (steps > 0 && scaled_step > (u128{1} << (b.width + q_bits - 1)) / steps) return std::nullopt;
  const Num mv = O::integer(steps) * v;
  const Num g = mv / (one - mv);
  const Num underflow = O::power_of_two(traits(b.format).emin - q_bits);
  if (!promoted) return g * q.abs_sum + O::integer(2 * steps) * underflow;  // fused, fused_truncated
  // The chunks' errors sum to at most g A + 2M 2^(emin-q) (M = ceil((n-1)/K) steps in all);
  // adding the L chunk sums to the accumulator is a recursive sum of L + 1 values.
  const std::uint64_t chunks = (k + static_cast<std::uint64_t>(b.period) - 1) / static_cast<std::uint64_t>(b.period);
  const std::uint64_t all_steps = (k + per_step - 1) / per_step;
  const Num lu = O::integer(chunks) * u;
  return (g + lu * (one + g)) * q.abs_sum + (one + lu) * O::integer(2 * all_steps) * underflow;
};

// Truncated fused sums: the terms' significant bits decide how many operands a step can lose
// ("Truncated results").
bool truncated_sums(const BoundExpr& bound) { return bound.result_bits != 0; }

// KIND(K,W,X,F): fused(K,W,F)'s arguments with an integer X third, valid by `valid(X, bound)`
// once K, W and F are read.
template <class Valid>
std::optional<std::uint64_t> fused_with_third(const Node& node, const char* usage, const Valid& valid, BoundExpr& bound,
                                              std::string& error) {
  if (!expect_arguments(node, 4, error)) return std::nullopt;
  std::uint64_t third = 0;
  Node three = node;
  three.arguments.erase(three.arguments.begin() + 2);
  if (!parse_unsigned(node.arguments[2].head, third)) {
    error = usage;
    return std::nullopt;
  }
  if (!count_width_format(three, {1, 64}, {2, 53}, usage, bound, error)) return std::nullopt;
  if (!valid(third, bound)) {
    error = usage;
    return std::nullopt;
  }
  return third;
}

bool parse_fused(const Node& node, BoundExpr& bound, std::string& error) {
  return count_width_format(node, {1, 64}, {2, 53}, "fused(K,W,F) needs integers 1 <= K <= 64 and 2 <= W <= 53", bound,
                            error);
}

bool parse_fused_truncated(const Node& node, BoundExpr& bound, std::string& error) {
  const auto result_bits = fused_with_third(
      node,
      "fused_truncated(K,W,Q,F) needs integers 1 <= K <= 64, 2 <= W <= 53 and "
      "2 <= Q <= the precision of F",
      [](std::uint64_t q, const BoundExpr& b) {
        return q >= 2 && q <= static_cast<std::uint64_t>(traits(b.format).precision);
      },
      bound, error);
  if (!result_bits) return false;
  bound.result_bits = static_cast<std::int64_t>(*result_bits);
  return true;
}
std::string print_fused_truncated(const BoundExpr& bound) {
  return call_text(bound, {std::to_string(bound.count), std::to_string(bound.width), std::to_string(bound.result_bits),
                           format_text(bound)});
}

bool parse_fused_promoted(const Node& node, BoundExpr& bound, std::string& error) {
  // fused_promoted(K,W,N,F), or fused_promoted(K,W,N,Q,F) with each chunk's fused sums truncated
  // to Q bits as in fused_truncated (Hopper's FP8 promoted to FP32).
  const char* usage =
      "fused_promoted(K,W,N,F) or fused_promoted(K,W,N,Q,F) needs integers 1 <= K <= 64, 2 <= W <= 53, "
      "N a multiple of K up to 2^20 and 2 <= Q <= the precision of F";
  Node four = node;
  std::uint64_t result_bits = 0;
  if (node.arguments.size() == 5) {
    if (!parse_unsigned(node.arguments[3].head, result_bits)) {
      error = usage;
      return false;
    }
    four.arguments.erase(four.arguments.begin() + 3);
  }
  const auto period = fused_with_third(
      four, usage,
      [](std::uint64_t n, const BoundExpr& b) {
        return n > 0 && n <= (std::uint64_t{1} << 20) && n % static_cast<std::uint64_t>(b.count) == 0;
      },
      bound, error);
  if (!period) return false;
  if (node.arguments.size() == 5 &&
      (result_bits < 2 || result_bits > static_cast<std::uint64_t>(traits(bound.format).precision))) {
    error = usage;
    return false;
  }
  bound.period = static_cast<std::int64_t>(*period);
  bound.result_bits = static_cast<std::int64_t>(result_bits);
  return true;
}
std::string print_fused_promoted(const BoundExpr& bound) {
  const std::string head = std::to_string(bound.count) + "," + std::to_string(bound.width) + "," +
                           std::to_string(bound.period) + "," +
                           (bound.result_bits ? std::to_string(bound.result_bits) + "," : "");
  return call_text(bound, {head + format_text(bound)});
}

}  // namespace

// The three kinds share the formula, and need the terms where the sums are truncated; they
// differ in their arguments.
extern constexpr BoundKindSpec fused_spec =
    bound_kind(BoundKind::fused, "fused", "fused(4,14,f32)",
               "derived (docs/bounds.md 'Fused multi-term addition'); the model: MMA-Sim, arXiv 2511.10909, and "
               "Khattak & Mikaitis, arXiv 2512.07004; Higham (2002) Lemma 3.1",
               parse_fused, print_count_width_format, fused, {.needs_terms = truncated_sums});

extern constexpr BoundKindSpec fused_promoted_spec =
    bound_kind(BoundKind::fused_promoted, "fused_promoted", "fused_promoted(32,14,128,f32)",
               "derived (docs/bounds.md 'Promotion'): fused per chunk composed with Rump, BIT 52 (2012) for the FP32 "
               "additions; the scheme: DeepSeek-V3 technical report (2024) sec. 3.3.2",
               parse_fused_promoted, print_fused_promoted, fused, {.needs_terms = truncated_sums});

extern constexpr BoundKindSpec fused_truncated_spec =
    bound_kind(BoundKind::fused_truncated, "fused_truncated", "fused_truncated(32,14,14,f32)",
               "derived (docs/bounds.md 'Truncated results'); the rounding toward zero: MMA-Sim (arXiv 2511.10909) "
               "and Khattak & Mikaitis (arXiv 2512.07004), as their public models implement it",
               parse_fused_truncated, print_fused_truncated, fused, {.needs_terms = truncated_sums});

}  // namespace accucheck::bounds
