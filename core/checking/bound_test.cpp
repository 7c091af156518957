// Tests of bound.h: the text form, tree heights against instrumented models of the backends'
// summation orders, and the rigorous evaluator on cases computed by hand (exact rationals,
// or MPFR for sqrt/exp) rather than by the code under test.
#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "accucheck/testing/mpfr.h"
#include "accucheck/testing/order_models.h"
#include "accucheck/testing/seed.h"
#include "checking/bound.h"
#include "checking/bounds/kind.h"
#include "numerics/exact.h"
#include "numerics/fast_exact.h"

namespace accucheck {
namespace {

using test::mpfr_to_fixed;
using test::test_seed;

using Big = boost::multiprecision::cpp_int;

BoundExpr bound(const std::string& text) {
  std::string error;
  auto b = parse_bound(text, &error);
  EXPECT_TRUE(b.has_value()) << text << ": " << error;
  return b ? *b : BoundExpr{};
}

// ---------------------------------------------------------------------------------------
// Text form

TEST(BoundText, RoundTripOfEveryKind) {
  for (const char* text : {"recursive(f32)",
                           "anyorder(f16)",
                           "tree(pairwise,f32)",
                           "tree(numpy,bf16)",
                           "tree(blocked:64,f32)",
                           "tree(numpy_buffered:8192,f64)",
                           "tree(windows:32,f32)",
                           "tree(nccl_tree:8,bf16)",
                           "tree(lanes:8,f32)",
                           "kahan(f64)",
                           "neumaier(f32)",
                           "widened(recursive(f64),f32)",
                           "products(f32)",
                           "correctly_rounded",
                           "faithful",
                           "reproducible_binned(3,40,f64)",
                           "stochastic(6,bf16)",
                           "fused(4,14,f32)",
                           "fused(32,25,bf16)",
                           "fused_promoted(32,14,128,f32)",
                           "fused_promoted(1,2,1,f16)",
                           "fused_promoted(8,14,1048576,f32)",
                           "fused_promoted(32,14,128,14,f32)",
                           "fused_promoted(1,2,1,2,f16)",
                           "fused_truncated(32,14,14,f32)",
                           "fused_truncated(4,24,24,f32)",
                           "fused_truncated(1,2,2,bf16)",
                           "ftz(recursive(f32),f32)",
                           "ulps(2)",
                           "ulps(0)",
                           "stochastic(2.5,f32)",
                           "widened(tree(lanes:16,f32),bf16)",
                           "ftz(widened(kahan(f64),f32),f32)",
                           "truncated_inputs(fused_truncated(4,25,24,f32),11)",
                           "truncated_inputs(recursive(f32),2)",
                           "truncated_inputs(widened(recursive(f64),f32),53)"}) {
    std::string error;
    const auto parsed = parse_bound(text, &error);
    ASSERT_TRUE(parsed.has_value()) << text << ": " << error;
    EXPECT_EQ(to_string(*parsed), text);
    const auto again = parse_bound(to_string(*parsed));
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(to_string(*again), text);
  }
}

// The printed lambda parses back to the same double (case files store the bound as text).
TEST(BoundText, StochasticLambdaSurvivesRoundTrip) {
  std::mt19937_64 rng(test_seed(8));
  std::vector<double> lambdas = {2.123456789, 6.0, 0.1, 1e-300, 64.0, 3.0000000000000004, 0x1.fffffffffffffp-1};
  for (int i = 0; i < 1000; ++i) lambdas.push_back(std::ldexp(static_cast<double>(rng() >> 11), -53) * 64);
  for (double lambda : lambdas) {
    if (!(lambda > 0)) continue;
    BoundExpr b;
    b.kind = BoundKind::stochastic;
    b.format = Format::bf16;
    b.lambda = lambda;
    const std::string text = to_string(b);
    std::string error;
    const auto back = parse_bound(text, &error);
    ASSERT_TRUE(back.has_value()) << text << ": " << error;
    EXPECT_EQ(back->lambda, lambda) << text;
    EXPECT_EQ(to_string(*back), text);
  }
  EXPECT_EQ(to_string(bound("stochastic(2.123456789,bf16)")), "stochastic(2.123456789,bf16)");
}

TEST(BoundText, FieldsAndNormalization) {
  const BoundExpr t = bound(" tree ( blocked:64 , f32 ) ");
  EXPECT_EQ(t.kind, BoundKind::tree);
  EXPECT_EQ(t.shape.kind, TreeShape::Kind::blocked);
  EXPECT_EQ(t.shape.parameter, 64u);
  EXPECT_EQ(t.format, Format::f32);
  EXPECT_EQ(to_string(t), "tree(blocked:64,f32)");
  EXPECT_EQ(to_string(bound("recursive(float)")), "recursive(f32)");
  EXPECT_EQ(to_string(bound("correctly_rounded()")), "correctly_rounded");
  const BoundExpr w = bound("widened(recursive(f64),f16)");
  EXPECT_EQ(w.kind, BoundKind::widened);
  EXPECT_EQ(w.format, Format::f16);
  ASSERT_TRUE(w.inner);
  EXPECT_EQ(w.inner->kind, BoundKind::recursive);
  EXPECT_EQ(w.inner->format, Format::f64);
  const BoundExpr r = bound("reproducible_binned(3,40,f64)");
  EXPECT_EQ(r.count, 3);
  EXPECT_EQ(r.width, 40);
  EXPECT_EQ(bound("stochastic(6,bf16)").lambda, 6.0);
  EXPECT_EQ(bound("ulps(2)").count, 2);
  EXPECT_TRUE(is_error_bound(BoundKind::recursive));
  EXPECT_FALSE(is_error_bound(BoundKind::correctly_rounded));
  EXPECT_FALSE(is_error_bound(BoundKind::faithful));
  EXPECT_FALSE(is_error_bound(BoundKind::ulps));
  EXPECT_FALSE(bound_source(BoundKind::kahan).empty());
  const auto formats = bound_formats(bound("widened(recursive(f64),f32)"));
  EXPECT_NE(std::find(formats.begin(), formats.end(), Format::f64), formats.end());
  EXPECT_NE(std::find(formats.begin(), formats.end(), Format::f32), formats.end());
}

TEST(BoundText, ClearErrorsOnBadText) {
  for (const std::string text : {"",
                                 "   ",
                                 "recursive",
                                 "recursive()",
                                 "recursive(f8)",
                                 "recursive(f32,f32)",
                                 "recursive(f32(1))",
                                 "tree(f32)",
                                 "tree(blocked:0,f32)",
                                 "tree(blocked:x,f32)",
                                 "tree(blocked:,f32)",
                                 "tree(lanes,f32)",
                                 "tree(foo,f32)",
                                 "tree(windows:1,f32)",
                                 "tree(nccl_tree:0,f32)",
                                 "tree(numpy_buffered:0,f32)",
                                 "tree(pairwise(2),f32)",
                                 "tree(blocked:99999999999,f32)",
                                 "widened(correctly_rounded,f32)",
                                 "widened(recursive(f64))",
                                 "ftz(f32,f32)",
                                 "ulps(-1)",
                                 "ulps(x)",
                                 "ulps()",
                                 "ulps(1,2)",
                                 "reproducible_binned(1,40,f64)",
                                 "reproducible_binned(3,61,f64)",
                                 "reproducible_binned(3,40)",
                                 "fused(0,14,f32)",
                                 "fused(65,14,f32)",
                                 "fused(4,1,f32)",
                                 "fused(4,54,f32)",
                                 "fused(4,14)",
                                 "fused(4,14,e4m3)",
                                 "fused_promoted(32,14,f32)",
                                 "fused_promoted(32,14,100,f32)",
                                 "fused_promoted(32,14,0,f32)",
                                 "fused_promoted(32,14,2097152,f32)",
                                 "fused_promoted(0,14,128,f32)",
                                 "fused_promoted(32,1,128,f32)",
                                 "fused_promoted(32,14,128,e5m2)",
                                 "fused_truncated(32,14,f32)",
                                 "fused_truncated(32,14,25,f32)",
                                 "fused_truncated(32,14,1,f32)",
                                 "fused_truncated(32,14,9,bf16)",
                                 "fused_truncated(65,14,14,f32)",
                                 "fused_truncated(32,14,14,e4m3)",
                                 "fused_promoted(32,14,128,25,f32)",
                                 "fused_promoted(32,14,128,1,f32)",
                                 "fused_promoted(32,14,128,14,14,f32)",
                                 "fused_promoted(32,14,100,14,f32)",
                                 "stochastic(0,bf16)",
                                 "stochastic(nan,bf16)",
                                 "stochastic(inf,bf16)",
                                 "stochastic(65,bf16)",
                                 "stochastic(6x,bf16)",
                                 "recursive(f32))",
                                 "recursive(f32",
                                 "recursive(f32,",
                                 "unknown(f32)",
                                 "faithful(f32)",
                                 "recursive(f32) extra",
                                 "recursive[f32]",
                                 "(f32)",
                                 "kahan(,)",
                                 "products(bf16,)",
                                 "truncated_inputs(recursive(f32))",
                                 "truncated_inputs(recursive(f32),1)",
                                 "truncated_inputs(recursive(f32),54)",
                                 "truncated_inputs(recursive(f32),f32)",
                                 "truncated_inputs(correctly_rounded,11)",
                                 "truncated_inputs(recursive(f32),11(2))",
                                 "truncated_inputs(11,recursive(f32))"}) {
    std::string error;
    const auto parsed = parse_bound(text, &error);
    EXPECT_FALSE(parsed.has_value()) << "'" << text << "' parsed as " << to_string(*parsed);
    EXPECT_NE(error.find("bad bound expression"), std::string::npos) << error;
    EXPECT_GT(error.size(), std::string("bad bound expression '").size() + text.size() + 3) << error;
  }
  // Deep nesting is refused, not a stack overflow.
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += "widened(";
  std::string error;
  EXPECT_FALSE(parse_bound(deep, &error).has_value());
  EXPECT_NE(error.find("deep"), std::string::npos) << error.substr(0, 200);
  // The message names the part that is wrong.
  parse_bound("recursive(f8)", &error);
  EXPECT_NE(error.find("f8"), std::string::npos) << error;
  parse_bound("tree(foo,f32)", &error);
  EXPECT_NE(error.find("foo"), std::string::npos) << error;
  parse_bound("frobnicate(f32)", &error);
  EXPECT_NE(error.find("frobnicate"), std::string::npos) << error;
}

// ---------------------------------------------------------------------------------------
// The table of kinds (bounds/kinds.cpp): each BoundKind once, in enum order, its name and
// example parsing back to it, and a formula exactly for the error bounds.

TEST(BoundKinds, TableListsEveryKindOnceInEnumOrder) {
  const auto kinds = bounds::all_kinds();
  ASSERT_EQ(kinds.size(), bounds::kBoundKindCount);
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    const auto kind = static_cast<BoundKind>(k);
    const bounds::BoundKindSpec& s = *kinds[k];
    SCOPED_TRACE(std::string(s.name));
    EXPECT_EQ(s.kind, kind);
    EXPECT_EQ(&bounds::spec(kind), &s);
    EXPECT_EQ(bounds::spec_named(s.name), &s);
    EXPECT_EQ(to_string(kind), s.name);
    EXPECT_FALSE(bound_source(kind).empty());
    EXPECT_EQ(is_error_bound(kind), s.error_bound);
    EXPECT_TRUE(s.parse && s.print);
    // An error bound has a formula for both number types; a rounding claim has none.
    EXPECT_EQ(s.interval != nullptr, s.error_bound);
    EXPECT_EQ(s.rational != nullptr, s.error_bound);
  }
  EXPECT_EQ(bounds::spec_named("no_such_kind"), nullptr);
}

TEST(BoundKinds, EveryKindsExamplePrintsAndParsesBack) {
  for (const bounds::BoundKindSpec* s : bounds::all_kinds()) {
    const std::string example(s->example);
    SCOPED_TRACE(example);
    const BoundExpr b = bound(example);
    EXPECT_EQ(b.kind, s->kind);
    EXPECT_EQ(to_string(b), example);
    EXPECT_EQ(to_string(bound(to_string(b))), example);
  }
}

// ---------------------------------------------------------------------------------------
// Tree heights: models of the backends' summation orders (testing/order_models.h), on a type
// that counts roundings.

using test::Depth;
using test::model_blocked;
using test::model_halving;
using test::model_lanes8;
using test::model_numpy;
using test::model_numpy_buffered;
using test::model_torch_inner;
using test::model_torch_multi;
using test::model_torch_row;
using test::model_windows;

TEST(TreeHeight, MatchesInstrumentedModels) {
  for (std::size_t n = 1; n <= 3000; ++n) {
    const std::vector<Depth> leaves(n, Depth{0, false});
    EXPECT_EQ(tree_height({TreeShape::Kind::numpy, 0}, n),
              static_cast<std::uint64_t>(model_numpy(leaves.data(), n).depth))
        << "numpy n=" << n;
    for (std::size_t b : {1, 2, 7, 64}) {
      EXPECT_EQ(tree_height({TreeShape::Kind::blocked, b}, n),
                static_cast<std::uint64_t>(model_blocked(leaves.data(), n, b).depth))
          << "blocked:" << b << " n=" << n;
    }
    const auto lanes = static_cast<std::uint64_t>(model_lanes8(leaves.data(), n).depth);
    const auto lanes_height = tree_height({TreeShape::Kind::lanes, 8}, n);
    EXPECT_GE(lanes_height, lanes) << "lanes:8 n=" << n;
    if (n >= 8) {
      EXPECT_EQ(lanes_height, lanes) << "lanes:8 n=" << n;  // every lane holds an addend
    }
    EXPECT_EQ(tree_height({TreeShape::Kind::pairwise, 0}, n), static_cast<std::uint64_t>(model_halving(n).depth))
        << "pairwise n=" << n;
    for (std::size_t b : {8, 100, 1000}) {
      EXPECT_EQ(tree_height({TreeShape::Kind::numpy_buffered, b}, n),
                static_cast<std::uint64_t>(model_numpy_buffered(leaves.data(), n, b).depth))
          << "numpy_buffered:" << b << " n=" << n;
    }
    for (std::size_t w : {2, 3, 32}) {
      EXPECT_EQ(tree_height({TreeShape::Kind::windows, w}, n),
                static_cast<std::uint64_t>(model_windows(leaves.data(), n, w).depth))
          << "windows:" << w << " n=" << n;
    }
  }
  // torch.sum: the deepest of its layouts' trees, against the models of each (n < 8: no vector path).
  for (std::size_t n :
       {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 59, 64, 100, 255, 256, 257, 1000, 4096, 4097, 10001, 70000}) {
    const std::vector<Depth> leaves(n, Depth{0, false});
    int deepest = std::max(model_torch_multi(leaves.data(), n).depth, model_torch_row(leaves.data(), n).depth);
    if (n >= 8) deepest = std::max(deepest, model_torch_inner(leaves.data(), n, 8).depth);
    if (n >= 16) deepest = std::max(deepest, model_torch_inner(leaves.data(), n, 16).depth);
    EXPECT_EQ(tree_height({TreeShape::Kind::torch_sum, 0}, n), static_cast<std::uint64_t>(deepest))
        << "torch_sum n=" << n;
  }
  // torch.sum of one output on two threads (TensorIteratorReduce.cpp two_pass_reduction, n >=
  // GRAIN_SIZE = 32768): each thread reduces its chunk of ceil(n/2) (inner or row tree: one
  // output has no groups of 4 columns), then 0 + p0 + p1. The shape covers that tree too.
  for (std::size_t n = 32769; n <= (std::size_t{1} << 20); n += n == 32769 ? 613 : 20011) {
    const std::size_t half = (n + 1) / 2;
    const std::vector<Depth> leaves(half, Depth{0, false});
    const int two_pass =
        std::max({model_torch_inner(leaves.data(), half, 8).depth, model_torch_inner(leaves.data(), half, 16).depth,
                  model_torch_row(leaves.data(), half).depth}) +
        1;
    EXPECT_LE(static_cast<std::uint64_t>(two_pass), tree_height({TreeShape::Kind::torch_sum, 0}, n))
        << "two-pass n=" << n;
  }
  // Probes of torch 1.13 (docs/frameworks.md): multi 16 and row 7 at n = 17; 18/18
  // at 64; 21/19 at 100; 33/33 at 1000.
  {
    const std::vector<Depth> leaves(1000, Depth{0, false});
    EXPECT_EQ(model_torch_multi(leaves.data(), 17).depth, 16);
    EXPECT_EQ(model_torch_row(leaves.data(), 17).depth, 7);
    EXPECT_EQ(model_torch_multi(leaves.data(), 100).depth, 21);
    EXPECT_EQ(model_torch_row(leaves.data(), 100).depth, 19);
    EXPECT_EQ(model_torch_multi(leaves.data(), 1000).depth, 33);
  }
  // NumPy's default buffer of 8192 and XLA's windows of 32 at the lengths of docs/frameworks.md's
  // probes (the models' depths, which the probes of the real libraries matched).
  for (std::size_t n : {100, 1000, 8192, 8193, 10000, 100000}) {
    const std::vector<Depth> leaves(n, Depth{0, false});
    EXPECT_EQ(tree_height({TreeShape::Kind::numpy_buffered, 8192}, n),
              static_cast<std::uint64_t>(model_numpy_buffered(leaves.data(), n, 8192).depth))
        << n;
    EXPECT_EQ(tree_height({TreeShape::Kind::windows, 32}, n),
              static_cast<std::uint64_t>(model_windows(leaves.data(), n, 32).depth))
        << n;
  }
  EXPECT_EQ(tree_height({TreeShape::Kind::numpy_buffered, 8192}, 10000), 25u);
  EXPECT_EQ(tree_height({TreeShape::Kind::numpy_buffered, 8192}, 100000), 36u);
  EXPECT_EQ(tree_height({TreeShape::Kind::windows, 32}, 100), 34u);
  EXPECT_EQ(tree_height({TreeShape::Kind::windows, 32}, 100000), 96u);
  // Hand values.
  EXPECT_EQ(tree_height({TreeShape::Kind::pairwise, 0}, 1), 0u);
  EXPECT_EQ(tree_height({TreeShape::Kind::pairwise, 0}, 1024), 10u);
  EXPECT_EQ(tree_height({TreeShape::Kind::pairwise, 0}, 1025), 11u);
  EXPECT_EQ(tree_height({TreeShape::Kind::blocked, 64}, 64), 63u);
  EXPECT_EQ(tree_height({TreeShape::Kind::blocked, 64}, 65), 64u);
  EXPECT_EQ(tree_height({TreeShape::Kind::blocked, 64}, 4096), 63u + 63u);
  EXPECT_EQ(tree_height({TreeShape::Kind::lanes, 8}, 16), 1u + 3u);
  EXPECT_EQ(tree_height({TreeShape::Kind::numpy, 0}, 7), 6u);
  EXPECT_EQ(tree_height({TreeShape::Kind::numpy, 0}, 8), 3u);
  EXPECT_EQ(tree_height({TreeShape::Kind::numpy, 0}, 128), 15u + 3u);
}

// Heights for long sums come quickly (NumPy's recursion has few distinct lengths per level).
TEST(TreeHeight, LongSumsAreFast) {
  const auto start = std::chrono::steady_clock::now();
  // n = 2^40: 33 halvings down to 128, whose height is 15 + 3.
  EXPECT_EQ(tree_height({TreeShape::Kind::numpy, 0}, std::uint64_t{1} << 40), 33u + 18u);
  EXPECT_EQ(tree_height({TreeShape::Kind::numpy, 0}, std::uint64_t{1} << 62), 55u + 18u);
  EXPECT_GE(tree_height({TreeShape::Kind::numpy, 0}, 1000000000007ULL), 40u);
  EXPECT_EQ(tree_height({TreeShape::Kind::pairwise, 0}, std::uint64_t{1} << 62), 62u);
  EXPECT_EQ(tree_height({TreeShape::Kind::blocked, 64}, std::uint64_t{1} << 40), 63u + (std::uint64_t{1} << 34) - 1);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

// ---------------------------------------------------------------------------------------
// The evaluator, on hand-computed cases.

// 2^e as a fixed-point integer.
FixedInt pow2(int e) { return FixedInt(1) << (e + fixed_scale); }
// floor(numerator / denominator * 2^1074) for a positive rational given by hand.
FixedInt fixed_floor(const Big& numerator, const Big& denominator) {
  return FixedInt(Big((numerator << fixed_scale) / denominator));
}

// value (1 - 2^-100) for direction < 0, else value (1 + 2^-100), rounded in r, as a FixedInt: a
// reference value stepped just below or above a bound, past the rounding of the evaluator's
// rational upper bound (relative error far below 2^-100). t is scratch.
FixedInt stepped_by_2_to_minus_100(mpfr_t value, int direction, mpfr_t t, mpfr_rnd_t r) {
  mpfr_div_2ui(t, value, 100, r);
  if (direction < 0)
    mpfr_sub(value, value, t, r);
  else
    mpfr_add(value, value, t, r);
  return mpfr_to_fixed(value, r);
}

ExactSum summary(std::uint64_t n, const FixedInt& sum, const FixedInt& abs_sum, double max_abs = 1.0) {
  return {.sum = sum, .abs_sum = abs_sum, .count = n, .all_negative_zero = false, .max_abs = max_abs};
}

// The bound is exactly `threshold` (a fixed-point value): an error equal to it is within,
// one unit of 2^-1074 more is not.
void expect_exact_threshold(const std::string& text, Format output, const ExactSum& e, const FixedInt& threshold) {
  const BoundExpr b = bound(text);
  const BoundCheck at = check_error_bound(b, output, e, threshold);
  EXPECT_TRUE(at.within) << text << " at the bound";
  EXPECT_TRUE(at.precondition_met) << text;
  EXPECT_FALSE(at.vacuous) << text;
  EXPECT_FALSE(check_error_bound(b, output, e, threshold + 1).within) << text << " one unit above";
  // The reported double is the bound rounded upward, and tight.
  EXPECT_GE(to_fixed(at.bound), threshold) << text;
  EXPECT_LE(at.bound, nearest_double(threshold) * (1 + 0x1p-48)) << text;
}

// The bound is the irrational or non-dyadic value in (floor_fixed, floor_fixed + 1) units:
// floor is within, floor + 1 is not.
void expect_between(const std::string& text, Format output, const ExactSum& e, const FixedInt& floor_fixed) {
  const BoundExpr b = bound(text);
  EXPECT_TRUE(check_error_bound(b, output, e, floor_fixed).within) << text;
  EXPECT_FALSE(check_error_bound(b, output, e, floor_fixed + 1).within) << text;
}

TEST(BoundEval, RecursiveByHand) {
  // recursive(f32), n = 3, A = 1: (n-1) u A = 2 * 2^-24 exactly.
  const ExactSum e = summary(3, pow2(0), pow2(0));
  expect_exact_threshold("recursive(f32)", Format::f32, e, pow2(-23));
  // recursive(f16), n = 1000, A = 3: 999 * 3 * 2^-11.
  expect_exact_threshold("recursive(f16)", Format::f16, summary(1000, pow2(0), 3 * pow2(0)),
                         FixedInt(999 * 3) * pow2(-11));
  // n = 1: no rounding, bound 0: any error exceeds it.
  const ExactSum one = summary(1, pow2(0), pow2(0));
  EXPECT_TRUE(check_error_bound(bound("recursive(f32)"), Format::f32, one, FixedInt(0)).within);
  EXPECT_FALSE(check_error_bound(bound("recursive(f32)"), Format::f32, one, FixedInt(1)).within);
  // Tiny A: the bound is below 2^-1074 units but errors are multiples of it.
  const ExactSum tiny = summary(3, FixedInt(1), FixedInt(1));
  EXPECT_TRUE(check_error_bound(bound("recursive(f64)"), Format::f64, tiny, FixedInt(0)).within);
  EXPECT_FALSE(check_error_bound(bound("recursive(f64)"), Format::f64, tiny, FixedInt(1)).within);
}

TEST(BoundEval, VacuousBf16NaiveAt257) {
  // recursive(bf16): (n-1) 2^-8 A >= A from n = 257 on.
  for (std::uint64_t n : {255, 256, 257, 258, 100000}) {
    const ExactSum e = summary(n, FixedInt(n) * pow2(0), FixedInt(n) * pow2(0));
    const BoundCheck c = check_error_bound(bound("recursive(bf16)"), Format::bf16, e, FixedInt(0));
    EXPECT_EQ(c.vacuous, n >= 257) << n;
    const double exact_bound = static_cast<double>(n - 1) * static_cast<double>(n) / 256.0;  // exact here
    EXPECT_GE(c.bound, exact_bound) << n;
    EXPECT_LE(c.bound, exact_bound * (1 + 0x1p-50)) << n;
  }
  // f16 naive: vacuous from n = 2049.
  EXPECT_FALSE(check_error_bound(bound("recursive(f16)"), Format::f16, summary(2048, pow2(0), pow2(0)), 0).vacuous);
  EXPECT_TRUE(check_error_bound(bound("recursive(f16)"), Format::f16, summary(2049, pow2(0), pow2(0)), 0).vacuous);
  // A = 0: nothing to be vacuous about.
  EXPECT_FALSE(check_error_bound(bound("recursive(bf16)"), Format::bf16, summary(1000, 0, 0), 0).vacuous);
}

TEST(BoundEval, AnyorderByHand) {
  // n = 3 in f32: 2u/(1+2u) = 1/(2^23 + 1) (Lange & Rump), A = 1.
  expect_between("anyorder(f32)", Format::f32, summary(3, pow2(0), pow2(0)), fixed_floor(1, (Big(1) << 23) + 1));
  // bf16: n - 1 = 128 = 1/(2u) still uses the sharper form: 128/256 / (1 + 1/2) = 1/3.
  expect_between("anyorder(bf16)", Format::bf16, summary(129, pow2(0), pow2(0)), fixed_floor(1, 3));
  // n - 1 = 129 > 1/(2u): (n-1) u A = 129/256.
  expect_exact_threshold("anyorder(bf16)", Format::bf16, summary(130, pow2(0), pow2(0)), FixedInt(129) * pow2(-8));
}

TEST(BoundEval, TreeByHand) {
  // pairwise in f16: h = ceil(log2 n) = 44 <= 2^5.5 - 1: h u A = 44/2048 for A = 1.
  const std::uint64_t n44 = std::uint64_t{1} << 44;
  expect_exact_threshold("tree(pairwise,f16)", Format::f16, summary(n44, pow2(0), pow2(0)), FixedInt(44) * pow2(-11));
  // h = 45 > 44: gamma_45 = 45u/(1-45u) = 45/2003.
  expect_between("tree(pairwise,f16)", Format::f16, summary(n44 + 1, pow2(0), pow2(0)), fixed_floor(45, 2003));
  // bf16: h = 15 -> 15/256; h = 16 -> gamma_16 = 16/240 = 1/15. A = 2^16.
  expect_exact_threshold("tree(pairwise,bf16)", Format::bf16, summary(1 << 15, pow2(16), pow2(16)),
                         FixedInt(15) * pow2(16 - 8));
  expect_between("tree(pairwise,bf16)", Format::bf16, summary((1 << 15) + 1, pow2(16), pow2(16)),
                 fixed_floor(Big(1) << 16, 15));
  // Where anyorder is smaller it is used: blocked:64, n = 64 in f32: h = 63 = n - 1, and
  // (n-1)u/(1+(n-1)u) = 63/(2^24 + 63) < 63 u.
  expect_between("tree(blocked:64,f32)", Format::f32, summary(64, pow2(0), pow2(0)),
                 fixed_floor(63, (Big(1) << 24) + 63));
  // lanes:8, n = 80 in f32: h = 9 + 3 = 12: 12 u A with A = 3.
  expect_exact_threshold("tree(lanes:8,f32)", Format::f32, summary(80, pow2(0), 3 * pow2(0)), FixedInt(36) * pow2(-24));
  // numpy, n = 128 in bf16: h = 18 > 15: gamma_18 = 18/238 = 9/119.
  expect_between("tree(numpy,bf16)", Format::bf16, summary(128, pow2(0), pow2(0)), fixed_floor(9, 119));
  // tree with h u >= 1 falls back to anyorder: pairwise bf16 with n = 2^300 is impossible, but
  // blocked:1 (h = n - 1) with n = 300: gamma undefined (h >= 256), anyorder 299/256.
  const ExactSum n300 = summary(300, pow2(0), pow2(0));
  const BoundCheck c300 =
      check_error_bound(bound("tree(blocked:1,bf16)"), Format::bf16, n300, FixedInt(299) * pow2(-8));
  EXPECT_TRUE(c300.within);
  EXPECT_TRUE(c300.vacuous);  // 299/256 A >= A
  EXPECT_FALSE(
      check_error_bound(bound("tree(blocked:1,bf16)"), Format::bf16, n300, FixedInt(299) * pow2(-8) + 1).within);
}

TEST(BoundEval, KahanDomainAndValue) {
  // (3u + 14 (n+1) u^2) A, f32, n = 4, A = 1: 3 * 2^-24 + 70 * 2^-48.
  expect_exact_threshold("kahan(f32)", Format::f32, summary(4, pow2(0), pow2(0)), 3 * pow2(-24) + 70 * pow2(-48));
  // Domain n u <= 1/2: bf16 up to n = 128, f16 up to n = 1024.
  const BoundExpr kb = bound("kahan(bf16)");
  EXPECT_FALSE(check_error_bound(kb, Format::bf16, summary(128, pow2(0), pow2(0)), 0).vacuous);
  const BoundCheck beyond = check_error_bound(kb, Format::bf16, summary(129, pow2(0), pow2(0)), 0);
  EXPECT_TRUE(beyond.vacuous);
  EXPECT_EQ(beyond.bound, INFINITY);
  const BoundExpr kh = bound("kahan(f16)");
  EXPECT_TRUE(std::isfinite(check_error_bound(kh, Format::f16, summary(1024, pow2(0), pow2(0)), 0).bound));
  EXPECT_TRUE(std::isinf(check_error_bound(kh, Format::f16, summary(1025, pow2(0), pow2(0)), 0).bound));
  // bf16, n = 128: 3/256 + 14*129/65536 = (768 + 1806) / 65536.
  expect_exact_threshold("kahan(bf16)", Format::bf16, summary(128, pow2(0), pow2(0)), FixedInt(768 + 1806) * pow2(-16));
}

TEST(BoundEval, NeumaierWidenedFtzProductsByHand) {
  // neumaier(f32), n = 3, S = A = 1: u + gamma_2^2 = 2^-24 + 1/(2^23 - 1)^2.
  {
    const Big d = (Big(1) << 23) - 1;
    const Big numerator = d * d + (Big(1) << 24), denominator = (Big(1) << 24) * d * d;
    expect_between("neumaier(f32)", Format::f32, summary(3, pow2(0), pow2(0)), fixed_floor(numerator, denominator));
  }
  // neumaier with |S| < A: S = 1/2, A = 2, n = 2: u/2 + gamma_1^2 * 2, gamma_1 = 1/(2^24 - 1).
  {
    const Big d = (Big(1) << 24) - 1;
    const Big numerator = d * d + (Big(1) << 26), denominator = (Big(1) << 25) * d * d;
    expect_between("neumaier(f32)", Format::f32, summary(2, -pow2(-1), pow2(1)), fixed_floor(numerator, denominator));
  }
  // neumaier(bf16) beyond gamma's domain (n - 1 >= 256): vacuous.
  EXPECT_TRUE(
      std::isinf(check_error_bound(bound("neumaier(bf16)"), Format::bf16, summary(257, pow2(0), pow2(0)), 0).bound));
  EXPECT_TRUE(
      std::isfinite(check_error_bound(bound("neumaier(bf16)"), Format::bf16, summary(256, pow2(0), pow2(0)), 0).bound));
  // widened(recursive(f64), f32), n = 3, S = A = 1: 2^-24 + (1 + 2^-24) 2^-52.
  expect_exact_threshold("widened(recursive(f64),f32)", Format::f32, summary(3, pow2(0), pow2(0)),
                         pow2(-24) + pow2(-52) + pow2(-76));
  // ftz(recursive(f32), f32), n = 3, A = 1: 2 u + 5 * 2^-126.
  expect_exact_threshold("ftz(recursive(f32),f32)", Format::f32, summary(3, pow2(0), pow2(0)),
                         pow2(-23) + 5 * pow2(-126));
  // products(f32), N = 3, A = 1: 3 u A + 2 N * 2^(emin - p) = 3 * 2^-24 + 6 * 2^-150.
  expect_exact_threshold("products(f32)", Format::f32, summary(3, pow2(0), pow2(0)), 3 * pow2(-24) + 6 * pow2(-150));
}

TEST(BoundEval, TruncatedInputsByHand) {
  // truncated_inputs(recursive(f32),11), n = 3, S = A = 1: 2 u + 2^(2-11) = 2^-23 + 2^-9.
  expect_exact_threshold("truncated_inputs(recursive(f32),11)", Format::f32, summary(3, pow2(0), pow2(0)),
                         pow2(-23) + pow2(-9));
  // The inner bound sees |S| grown by the inputs' error: widened(recursive(f64),f32) inside, n = 2,
  // S = 1/2, A = 1: u (|S| + 2^-9 A) + (1 + u) 2^-53 + 2^-9 = 2^-25 + 2^-33 + 2^-53 + 2^-77 + 2^-9.
  expect_exact_threshold("truncated_inputs(widened(recursive(f64),f32),11)", Format::f32, summary(2, pow2(-1), pow2(0)),
                         pow2(-25) + pow2(-33) + pow2(-53) + pow2(-77) + pow2(-9));
  // Where the inner bound ends, so does this one.
  EXPECT_TRUE(std::isinf(
      check_error_bound(bound("truncated_inputs(neumaier(bf16),11)"), Format::bf16, summary(257, pow2(0), pow2(0)), 0)
          .bound));
}

TEST(BoundEval, ReproducibleBinnedAgainstMpfr) {
  // (1 + c) n max(2^(W(1-K)) max|x|, 2^(emin-1)) + c |S|, c = 7e / (1 - 6 sqrt(e)), e = 2^-53.
  // n = 10, max|x| = 2^100, S = 2^100, A = 5 * 2^100 (K = 3, W = 40: 2^-80 max|x| = 2^20).
  const ExactSum e = summary(10, pow2(100), 5 * pow2(100), 0x1p100);
  for (int direction : {-1, +1}) {
    mpfr_t c, t, value;
    mpfr_inits2(400, c, t, value, static_cast<mpfr_ptr>(nullptr));
    const mpfr_rnd_t r = direction < 0 ? MPFR_RNDD : MPFR_RNDU;
    const mpfr_rnd_t opposite = direction < 0 ? MPFR_RNDU : MPFR_RNDD;
    mpfr_set_ui_2exp(t, 1, -53, MPFR_RNDN);
    mpfr_sqrt(t, t, r);  // the denominator 1 - 6 sqrt(e) rounds the other way
    mpfr_mul_ui(t, t, 6, r);
    mpfr_ui_sub(t, 1, t, opposite);
    mpfr_set_ui_2exp(c, 7, -53, r);
    mpfr_div(c, c, t, r);
    mpfr_add_ui(value, c, 1, r);        // 1 + c
    mpfr_mul_ui(value, value, 10, r);   // n
    mpfr_mul_2si(value, value, 20, r);  // max(2^20, 2^-1023)
    mpfr_mul_2si(t, c, 100, r);         // c |S|
    mpfr_add(value, value, t, r);
    // Step past the evaluator's rational upper bound of sqrt (relative error below 2^-120).
    const FixedInt fixed = stepped_by_2_to_minus_100(value, direction, t, r);
    mpfr_clears(c, t, value, static_cast<mpfr_ptr>(nullptr));
    const BoundCheck check = check_error_bound(bound("reproducible_binned(3,40,f64)"), Format::f64, e, fixed);
    EXPECT_EQ(check.within, direction < 0) << direction;
    EXPECT_TRUE(check.precondition_met);
  }
  // The floor term 2^(emin-1) wins for tiny addends: n = 4, max|x| = 2^-1074, S = A = 0 ->
  // (1 + c) * 4 * 2^-1023 is just above 2^-1021.
  const ExactSum tiny = summary(4, 0, 0, 0x1p-1074);
  const BoundExpr b = bound("reproducible_binned(3,40,f64)");
  EXPECT_TRUE(check_error_bound(b, Format::f64, tiny, pow2(-1021)).within);
  EXPECT_TRUE(check_error_bound(b, Format::f64, tiny, pow2(-1021) + 1).within);  // c * 2^-1021 > 2^-1074
  EXPECT_TRUE(check_error_bound(b, Format::f64, tiny, pow2(-1021) + 7).within);  // c * 2^-1021 = 7.0000x units
  EXPECT_FALSE(check_error_bound(b, Format::f64, tiny, pow2(-1021) + pow2(-1021 - 50)).within);
}

// The fused kinds at a value computed here in exact rationals (not dyadic at the fixed scale):
// the fixed-point error just below it is within, one unit more is not, and the reported double
// is at least it.
void expect_bound_is(const char* text, const ExactSum& e, const boost::multiprecision::cpp_rational& exact,
                     std::span<const double> terms = {}) {
  const Big scaled_floor = Big(numerator(exact) << fixed_scale) / denominator(exact);
  const FixedInt below(scaled_floor);
  const BoundExpr b = bound(text);
  EXPECT_TRUE(check_error_bound(b, Format::f32, e, below, terms).within) << text;
  EXPECT_FALSE(check_error_bound(b, Format::f32, e, below + 1, terms).within) << text;
  EXPECT_GE(check_error_bound(b, Format::f32, e, below, terms).bound, static_cast<double>(exact)) << text;
}

// Defined at n = last (A = 1), undefined (infinite, hence vacuous) at n = last + 1.
void expect_defined_up_to(const char* text, std::uint64_t last) {
  const BoundExpr b = bound(text);
  EXPECT_TRUE(std::isfinite(check_error_bound(b, Format::f32, summary(last, pow2(0), pow2(0)), FixedInt(0)).bound))
      << text;
  const BoundCheck beyond = check_error_bound(b, Format::f32, summary(last + 1, pow2(0), pow2(0)), FixedInt(0));
  EXPECT_TRUE(std::isinf(beyond.bound)) << text;
  EXPECT_TRUE(beyond.vacuous) << text;
}

TEST(BoundEval, FusedAtItsExactValueAndWhereItEnds) {
  // m = 2 steps, A = 1: gamma(2, v) + 2 * 2 * t, v = (1 + eta)(1 + r) - 1, eta = rho / (1 + rho),
  // rho = (K + 1) 2^-13 (docs/bounds.md). fused(4,14,f32), n = 9: eta = 5/8197, r = 2^-24 and
  // t = 2^(-126-24). fused_truncated(32,14,14,f32) (Hopper FP8), n = 65: r = 2^(1-14), t =
  // 2^(-126-13) ("Truncated results"), and v the tighter step's (without terms K' = 33):
  // max(33/8225, 32 2^-13 + max(2^-13, 2^-13)) = 33/8192, below (1 + 33/8225)(1 + 2^-13) - 1.
  using Q = boost::multiprecision::cpp_rational;
  auto two_steps = [](const Q& v, int t_bits) { return 2 * v / (1 - 2 * v) + Q(4) / Q(Big(1) << t_bits); };
  const Q nearest_v = (1 + Q(5, 8197)) * (1 + Q(1) / Q(Big(1) << 24)) - 1;
  expect_bound_is("fused(4,14,f32)", summary(9, pow2(0), pow2(0)), two_steps(nearest_v, 150));
  expect_bound_is("fused_truncated(32,14,14,f32)", summary(65, pow2(0), pow2(0)), two_steps(Q(33, 8192), 139));
  // Defined while m (rho + 2r) <= 1/2: fused(4,14,f32) m * 5121 <= 2^22, m = 819 (n = 3277) is,
  // m = 820 is not; fused_truncated(32,14,14,f32) m (33 * 2^14 + 2^15) <= 2^26, up to m = 117.
  expect_defined_up_to("fused(4,14,f32)", 3277);
  expect_defined_up_to("fused_truncated(32,14,14,f32)", 3745);
  // At Q = 24 the truncation's unit is 2u: above fused(K,W,f32) at the same n, which rounds to nearest.
  const ExactSum short_sum = summary(9, pow2(0), pow2(0));
  EXPECT_GT(check_error_bound(bound("fused_truncated(8,25,24,f32)"), Format::f32, short_sum, FixedInt(0)).bound,
            check_error_bound(bound("fused(8,25,f32)"), Format::f32, short_sum, FixedInt(0)).bound);
}

// The tighter step of fused_truncated (docs/bounds.md "Truncated results"): K' = K operands lose
// where no term has more than W significant bits (Q <= W), else K + 1; v = min((1 + eta)(1 + r) - 1,
// max(rho'/(1 + rho'), (K' - 1) q + max(q, r))), q = 2^(1-W), rho' = K' q. One step (n = 5, K =
// 4), A = 1: gamma(1, v) + 2 t.
TEST(BoundEval, FusedTruncatedCountsTheOperandsThatCanLose) {
  using Q = boost::multiprecision::cpp_rational;
  auto one_step = [](const Q& v, int t_bits) { return v / (1 - v) + Q(2) / Q(Big(1) << t_bits); };
  const Q q23 = Q(1) / Q(Big(1) << 23), q24 = Q(1) / Q(Big(1) << 24);
  const ExactSum one = summary(5, pow2(0), pow2(0));
  // V100's fused_truncated(4,24,24,f32): q = r = 2^-23. Terms of at most 24 bits: K' = 4, v = 4q
  // (the old unit, (1 + 5q/(1 + 5q))(1 + q) - 1, is about 6q). A 25-bit term, or no terms: K' = 5,
  // v = 5q.
  const std::vector<double> short_terms{1.0, 0x1p-30, -0x1.fffffep-10, 0x1p-40, 3.0};
  const std::vector<double> long_terms{1.0, 0x1p-30, 1.0 + 0x1p-24, 0x1p-40, 3.0};
  expect_bound_is("fused_truncated(4,24,24,f32)", one, one_step(4 * q23, 149), short_terms);
  expect_bound_is("fused_truncated(4,24,24,f32)", one, one_step(5 * q23, 149), long_terms);
  expect_bound_is("fused_truncated(4,24,24,f32)", one, one_step(5 * q23, 149));
  // A100's TF32 GEMM, truncated_inputs(fused_truncated(4,25,24,f32),11): q = 2^-24, r = 2^-23. The
  // inner chain's operands are C and products of 11-bit inputs (22 bits), whatever bits the exact
  // products have: K' = 4, v = 3q + 2q = 5q; without terms K' = 5, v = 4q + 2q = 6q. Plus the
  // inputs' 2^-9 A.
  const std::vector<double> products{1.0, 0x1.fffffep-1 * 0x1.fffffep-1, 0x1p-30, 0x1p-40, 0x1.000002p0 * 3};
  const Q inputs = Q(1, 512);
  expect_bound_is("truncated_inputs(fused_truncated(4,25,24,f32),11)", one, one_step(5 * q24, 149) + inputs, products);
  expect_bound_is("truncated_inputs(fused_truncated(4,25,24,f32),11)", one, one_step(6 * q24, 149) + inputs);
}

TEST(BoundEval, FusedPromotedAtItsExactValueAndAtAnyLength) {
  // fused_promoted(32,14,128,f32), n = 257: two chunks of 128 (L = 2), m = 4 steps a chunk, M = 8
  // in all, A = 1: (g + 2u (1 + g)) + (1 + 2u) * 2 * 8 * 2^(-126-24), g = 4v / (1 - 4v), rho =
  // 33 * 2^-13, eta = 33/8225, v = (1 + eta)(1 + 2^-24) - 1 (docs/bounds.md "Promotion").
  using Q = boost::multiprecision::cpp_rational;
  const Q u = Q(1) / Q(Big(1) << 24);
  const Q eta(33, 8225);
  const Q v = (1 + eta) * (1 + u) - 1;
  const Q g = 4 * v / (1 - 4 * v);
  expect_bound_is("fused_promoted(32,14,128,f32)", summary(257, pow2(0), pow2(0)),
                  g + 2 * u * (1 + g) + (1 + 2 * u) * Q(16) / Q(Big(1) << 150));
  const BoundExpr b = bound("fused_promoted(32,14,128,f32)");
  // Past fused(32,14,f32)'s end (m <= 124: n - 1 <= 3968) the promoted bound still holds, since a
  // chunk's chain never exceeds 128 addends; at n - 1 = 4096 it is g + 32u (1 + g) per unit of A.
  const ExactSum long_sum = summary(4097, pow2(0), pow2(0));
  EXPECT_TRUE(check_error_bound(bound("fused(32,14,f32)"), Format::f32, long_sum, FixedInt(0)).vacuous);
  const BoundCheck promoted = check_error_bound(b, Format::f32, long_sum, FixedInt(0));
  EXPECT_FALSE(promoted.vacuous);
  EXPECT_NEAR(promoted.bound, static_cast<double>(g + 32 * u * (1 + g)), 1e-12);
  // m (33 * 2^25 + 2^15) <= 2^37 holds up to m = 124: N = 4000 (m = 125) is beyond it, so that
  // bound is undefined at this n, and N = 3968 is not.
  EXPECT_TRUE(check_error_bound(bound("fused_promoted(32,14,4000,f32)"), Format::f32, long_sum, FixedInt(0)).vacuous);
  EXPECT_FALSE(check_error_bound(bound("fused_promoted(32,14,3968,f32)"), Format::f32, long_sum, FixedInt(0)).vacuous);
}

TEST(BoundEval, FusedPromotedWithTruncatedChunksAtItsExactValue) {
  // fused_promoted(32,14,128,14,f32) (Hopper's FP8 promoted every 128), n = 257: the chunks are
  // fused_truncated(32,14,14,f32) chains, 2^(-126-13) for the underflow term and, without terms,
  // the tighter step's v = 33/8192 ("Promotion", "Truncated results"); the L = 2 promotions still
  // round to nearest in FP32: (g + 2u (1 + g)) + (1 + 2u) * 2 * 8 * 2^(-139), g = 4v / (1 - 4v).
  using Q = boost::multiprecision::cpp_rational;
  const Q u = Q(1) / Q(Big(1) << 24);
  const Q v(33, 8192);
  const Q g = 4 * v / (1 - 4 * v);
  expect_bound_is("fused_promoted(32,14,128,14,f32)", summary(257, pow2(0), pow2(0)),
                  g + 2 * u * (1 + g) + (1 + 2 * u) * Q(16) / Q(Big(1) << 139));
  // Q = 24 truncates too: above the nearest-rounding promoted bound at the same n.
  const ExactSum e = summary(257, pow2(0), pow2(0));
  EXPECT_GT(check_error_bound(bound("fused_promoted(32,14,128,24,f32)"), Format::f32, e, FixedInt(0)).bound,
            check_error_bound(bound("fused_promoted(32,14,128,f32)"), Format::f32, e, FixedInt(0)).bound);
  // The chunk's chain ends where fused_truncated's does: N = 3744 (m = 117) defined, 3776 (m = 118) not.
  const ExactSum long_sum = summary(4097, pow2(0), pow2(0));
  EXPECT_FALSE(
      check_error_bound(bound("fused_promoted(32,14,3744,14,f32)"), Format::f32, long_sum, FixedInt(0)).vacuous);
  EXPECT_TRUE(
      check_error_bound(bound("fused_promoted(32,14,3776,14,f32)"), Format::f32, long_sum, FixedInt(0)).vacuous);
}

TEST(BoundEval, StochasticAgainstMpfr) {
  // gamma~_{n-1}(lambda) A = (exp(lambda sqrt(n-1) u + (n-1) u^2 / (1-u)) - 1) A, u = 2^-7 for
  // bf16, lambda = 6, n = 101 (sqrt(100) = 10), A = 3.
  const ExactSum e = summary(101, pow2(0), 3 * pow2(0));
  for (int direction : {-1, +1}) {
    const mpfr_rnd_t r = direction < 0 ? MPFR_RNDD : MPFR_RNDU;
    mpfr_t x, t;
    mpfr_inits2(400, x, t, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_ui(x, 60, r);
    mpfr_div_2ui(x, x, 7, r);  // lambda * 10 * 2^-7
    mpfr_set_ui(t, 100, r);
    mpfr_div_ui(t, t, 127 * 128, r);  // (n-1) u^2 / (1 - u) = 100 / (2^14 * 127/128)
    mpfr_add(x, x, t, r);
    mpfr_exp(x, x, r);
    mpfr_sub_ui(x, x, 1, r);
    mpfr_mul_ui(x, x, 3, r);
    // Step past the rounding of the evaluator's rational upper bound (relative 2^-200).
    const FixedInt fixed = stepped_by_2_to_minus_100(x, direction, t, r);
    mpfr_clears(x, t, static_cast<mpfr_ptr>(nullptr));
    EXPECT_EQ(check_error_bound(bound("stochastic(6,bf16)"), Format::bf16, e, fixed).within, direction < 0);
  }
}

TEST(BoundEval, PreconditionNearLargestFinite) {
  // recursive(f16), n = 2: A (1 + 2^-11) < 65504 iff A < 65504 * 2048/2049 = 65472.0312...
  const BoundExpr b = bound("recursive(f16)");
  const FixedInt below = FixedInt(65472) * pow2(0) + pow2(-6);  // 65472.015625
  const FixedInt above = FixedInt(65472) * pow2(0) + pow2(-5);  // 65472.03125
  EXPECT_TRUE(check_error_bound(b, Format::f16, summary(2, below, below), 0).precondition_met);
  EXPECT_FALSE(check_error_bound(b, Format::f16, summary(2, above, above), 0).precondition_met);
  EXPECT_FALSE(check_error_bound(b, Format::f16, summary(2, FixedInt(65504) * pow2(0), FixedInt(65504) * pow2(0)), 0)
                   .precondition_met);
  // f64: A = DBL_MAX fails, A = 1.5 * 2^1023 holds.
  const BoundExpr d = bound("recursive(f64)");
  EXPECT_FALSE(check_error_bound(d, Format::f64, summary(2, to_fixed(DBL_MAX), to_fixed(DBL_MAX)), 0).precondition_met);
  EXPECT_TRUE(check_error_bound(d, Format::f64, summary(2, 3 * pow2(1022), 3 * pow2(1022)), 0).precondition_met);
  // The output format counts too: an f64 accumulation into an f32 buffer.
  const BoundExpr w = bound("widened(recursive(f64),f32)");
  EXPECT_FALSE(check_error_bound(w, Format::f32, summary(2, pow2(128), pow2(128)), 0).precondition_met);
  EXPECT_TRUE(check_error_bound(w, Format::f32, summary(2, pow2(126), pow2(126)), 0).precondition_met);
  // A beyond the f64 range (exact sums can be): precondition fails, no crash.
  EXPECT_FALSE(
      check_error_bound(d, Format::f64, summary(4, 4 * to_fixed(DBL_MAX), 4 * to_fixed(DBL_MAX)), 0).precondition_met);
  // Special sums: only the special rules apply.
  ExactSum special = summary(2, 0, 0);
  special.special = Special::nan;
  EXPECT_FALSE(check_error_bound(d, Format::f64, special, 0).precondition_met);
}

// judge()'s overload (nearest doubles of the error, A and |S| with exactness flags) decides as
// the FixedInt overload does, and asks for the exact error only when the doubles cannot tell:
// an error equal to the bound at n = 2 (A exact in double) needs no FixedInt.
TEST(BoundEval, NearestValuesAgreeWithTheExactError) {
  auto nearest_of = [](const ExactSum& e, const FixedInt& error) {
    NearestValues v;
    v.abs_error = round_fixed_fast(error, Format::f64, &v.abs_error_inexact);
    v.abs_sum = round_fixed_fast(e.abs_sum, Format::f64, &v.abs_sum_inexact);
    v.abs_exact = std::fabs(round_fixed_fast(e.sum, Format::f64, &v.abs_exact_inexact));
    return v;
  };
  int asked = 0;
  auto check_both = [&](const std::string& text, Format output, const ExactSum& e, const FixedInt& error) {
    const BoundExpr b = bound(text);
    const BoundCheck exact = check_error_bound(b, output, e, error);
    const BoundCheck fast = check_error_bound(b, output, e, nearest_of(e, error), [&] {
      ++asked;
      return error;
    });
    EXPECT_EQ(fast.within, exact.within) << text << " error " << fixed_hex(error);
    EXPECT_EQ(fast.vacuous, exact.vacuous) << text;
    EXPECT_EQ(fast.precondition_met, exact.precondition_met) << text;
    EXPECT_EQ(fast.bound, exact.bound) << text;
    return fast;
  };
  // recursive(f32), n = 2, A = 1: the bound is 2^-24 exactly.
  const ExactSum two = summary(2, pow2(0), pow2(0));
  EXPECT_TRUE(check_both("recursive(f32)", Format::f32, two, pow2(-24)).within);
  EXPECT_EQ(asked, 0) << "an exact error equal to an exact bound is decided in doubles";
  EXPECT_FALSE(check_both("recursive(f32)", Format::f32, two, pow2(-24) + 1).within);
  EXPECT_FALSE(check_both("recursive(f32)", Format::f32, two, pow2(-23)).within);
  EXPECT_TRUE(check_both("recursive(f32)", Format::f32, two, pow2(-25)).within);
  // Around every hand threshold of the tests above, and near the overflow threshold.
  const std::vector<std::tuple<std::string, Format, ExactSum, FixedInt>> cases = {
      {"recursive(f32)", Format::f32, summary(3, pow2(0), pow2(0)), pow2(-23)},
      {"recursive(f16)", Format::f16, summary(1000, pow2(0), 3 * pow2(0)), FixedInt(999 * 3) * pow2(-11)},
      {"anyorder(f32)", Format::f32, summary(2, pow2(0), 3 * pow2(0)), 3 * pow2(-24)},
      {"recursive(f16)", Format::f16, summary(2, FixedInt(65472) * pow2(0), FixedInt(65472) * pow2(0)),
       FixedInt(65472) * pow2(-11)},
      {"recursive(f64)", Format::f64, summary(2, 3 * pow2(1022), 3 * pow2(1022)), 3 * pow2(1022 - 53)},
      {"recursive(f64)", Format::f64, summary(3, FixedInt(1), FixedInt(1)), FixedInt(0)},
      {"kahan(f32)", Format::f32, summary(5, pow2(0), 7 * pow2(0)), 7 * pow2(-22)},
      {"widened(recursive(f64),f32)", Format::f32, summary(2, pow2(126), pow2(126)), pow2(126 - 24)},
  };
  for (const auto& [text, output, e, threshold] : cases)
    for (const FixedInt& error : {threshold, FixedInt(threshold + 1), FixedInt(threshold > 0 ? threshold - 1 : 0),
                                  FixedInt(2 * threshold), FixedInt(threshold / 2)})
      check_both(text, output, e, error);
  // Random short sums (n = 2 to 5, values of the format over a wide exponent range) and errors
  // at, next to and around the interval bound's double.
  std::mt19937_64 rng(test_seed(5));
  const std::vector<std::pair<std::string, Format>> bounds = {
      {"recursive(f32)", Format::f32}, {"anyorder(f16)", Format::f16}, {"tree(pairwise,bf16)", Format::bf16},
      {"kahan(f64)", Format::f64},     {"neumaier(f32)", Format::f32}, {"products(f32)", Format::f32}};
  for (int i = 0; i < 4000; ++i) {
    const auto& [text, f] = bounds[i % bounds.size()];
    std::vector<double> xs(2 + rng() % 4);
    for (double& x : xs)
      x = round_to_format(std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 80) - 100 - 53), f) *
          ((rng() & 1) ? -1 : 1);
    const ExactSum e = fast_exact_sum(xs);
    const double b = check_error_bound(bound(text), f, e, FixedInt(0)).bound;
    if (!std::isfinite(b)) continue;
    for (double error : {b, std::nextafter(b, 0.0), std::nextafter(b, INFINITY), b / 2, 0.0})
      for (int extra : {0, 1}) check_both(text, f, e, to_fixed(error) + extra);
  }
}

// ---------------------------------------------------------------------------------------
// depths(...): the per-leaf bound of one exact order (docs/bounds.md "Per-leaf bounds").

namespace depths_cases {

using Rational = boost::multiprecision::cpp_rational;

// gamma_d = d u / (1 - d u) with u = 2^-p, exactly.
Rational gamma(int d, int p) { return Rational(Big(d), (Big(1) << p) - d); }

// floor(r * 2^1074) for a positive rational.
FixedInt floor_units(const Rational& r) {
  return FixedInt(Big((boost::multiprecision::numerator(r) << fixed_scale) / boost::multiprecision::denominator(r)));
}

// The bound with these terms lies strictly inside (floor, floor + 1) units, or is exactly
// `floor` when `exact` (an error equal to the bound is within).
void expect_bound_with_terms(const std::string& text, Format output, const std::vector<double>& terms,
                             const Rational& value) {
  ASSERT_GT(value, 0);
  const ExactSum e = fast_exact_sum(terms);
  const BoundExpr b = bound(text);
  const FixedInt floor = floor_units(value);
  EXPECT_TRUE(check_error_bound(b, output, e, floor, terms).within) << text;
  EXPECT_FALSE(check_error_bound(b, output, e, floor + 1, terms).within) << text;
}

}  // namespace depths_cases

TEST(BoundText, DepthsRoundTripAndErrors) {
  for (const char* text :
       {"depths(sequential,f32)", "depths(lanes:8,f64)", "depths(numpy,bf16)", "depths(blocked:64,f16)",
        "depths(cuda_block:256:4:1024,f32)", "depths(numpy_buffered:8192,f64)", "depths(n5:4x2.3-1,f16)",
        "depths(sequential,n3:1.2x2,n5:4x2.3-1,f32)", "widened(depths(sequential,f64),f32)",
        "ftz(depths(cuda_block:32:1:1,f32),f32)", "tree(sequential,f32)"}) {
    std::string error;
    const auto parsed = parse_bound(text, &error);
    ASSERT_TRUE(parsed.has_value()) << text << ": " << error;
    EXPECT_EQ(to_string(*parsed), text);
  }
  // Tables come out in order of n.
  EXPECT_EQ(to_string(bound("depths(n5:4x2.3-1,n3:1.2x2,f32)")), "depths(n3:1.2x2,n5:4x2.3-1,f32)");
  EXPECT_TRUE(bound_needs_terms(bound("widened(depths(sequential,f64),f32)")));
  EXPECT_FALSE(bound_needs_terms(bound("widened(recursive(f64),f32)")));
  for (const std::string text :
       {"depths(f32)", "depths(pairwise,f32)", "depths(windows:4,f32)", "depths(torch_sum,f32)",
        "depths(nccl_tree:1,f32)", "depths(lanes:6,f32)", "depths(n5:1x2,f32)", "depths(n3:1.2x2,n3:1.2x2,f32)",
        "depths(sequential,numpy,f32)", "depths(n5:zz,f32)", "depths(n0:1,f32)", "depths(nx:1,f32)", "depths(n2:1x2)",
        "depths(sequential)"}) {
    std::string error;
    EXPECT_FALSE(parse_bound(text, &error).has_value()) << text;
    EXPECT_NE(error.find("bad bound expression"), std::string::npos) << error;
  }
}

TEST(BoundEval, DepthsByHand) {
  using namespace depths_cases;
  // Sequential f32 over (1, 2^-10, 2^-10): depths 2, 2, 1. Per leaf gamma_2 (1 + 2^-10) +
  // gamma_1 2^-10, below both the height bound 2u A and anyorder 2u/(1+2u) A (A = 1 + 2^-9).
  const std::vector<double> terms{1.0, 0x1p-10, 0x1p-10};
  const Rational per_leaf = gamma(2, 24) * Rational(1 + Rational(1, 1024)) + gamma(1, 24) * Rational(1, 1024);
  const Rational A = 1 + Rational(1, 512);
  const Rational any = Rational(2, (Big(1) << 24) + 2) * A;
  ASSERT_LT(per_leaf, any);
  expect_bound_with_terms("depths(sequential,f32)", Format::f32, terms, per_leaf);
  expect_bound_with_terms("depths(n3:2x2.1,f32)", Format::f32, terms, per_leaf);
  // The large term last (depth 1) costs far less than first: (2^-10, 2^-10, 1) reversed.
  const std::vector<double> reversed{0x1p-10, 0x1p-10, 1.0};
  expect_bound_with_terms("depths(sequential,f32)", Format::f32, reversed,
                          gamma(2, 24) * Rational(2, 1024) + gamma(1, 24));
  // Without the terms: the looser min(height bound, anyorder) = anyorder here.
  {
    const ExactSum e = fast_exact_sum(terms);
    const BoundExpr b = bound("depths(sequential,f32)");
    EXPECT_TRUE(check_error_bound(b, Format::f32, e, floor_units(any)).within);
    EXPECT_FALSE(check_error_bound(b, Format::f32, e, floor_units(any) + 1).within);
    EXPECT_TRUE(check_error_bound(b, Format::f32, e, floor_units(per_leaf) + 1).within);
  }
  // A length the profile does not list: anyorder, with or without the terms.
  expect_bound_with_terms("depths(n5:4x2.3-1,f32)", Format::f32, terms, any);
  // lanes:8 at n = 17, all the weight in leaf 16 (depth 1 + 3: it is lane 0's third term... no:
  // leaf 16 is lane 0's last, depth 1 in the lane plus 3 over the lanes = 4): gamma_4.
  std::vector<double> lanes(17, 0.0);
  lanes[16] = 1.0;
  expect_bound_with_terms("depths(lanes:8,f32)", Format::f32, lanes, gamma(4, 24));
  // Depths that reach u^-1 (bf16, sequential over 300 leaves): a nonzero term that deep has no
  // gamma, the per-leaf part is left out and anyorder (n-1) u A = 299/256 A remains; with only
  // the last leaf nonzero (depth 1) it is gamma_1 = 1/255.
  std::vector<double> long_chain(300, 0.0);
  long_chain[299] = 1.0;
  expect_bound_with_terms("depths(sequential,bf16)", Format::bf16, long_chain, gamma(1, 8));
  long_chain[0] = 0x1p-20;
  const Rational A300 = 1 + Rational(1, Big(1) << 20);
  expect_bound_with_terms("depths(sequential,bf16)", Format::bf16, long_chain, Rational(299, 256) * A300);
}

}  // namespace
}  // namespace accucheck
