// core's property checks (properties.h): which backends each property applies to, the exact
// scaling range, the transformations, and that every check can fail (a deliberately broken
// backend for each) while a correct one passes. The backends are defined here: what the
// shipped ones do is impls/tests' business (registry_test.cpp runs these checks over them).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>

#include "accucheck/testing/workloads.h"
#include "checking/properties.h"
#include "engine/findings.h"

namespace accucheck {
namespace {

using test::column_workload;

// A dense backend storing and accumulating in f from a function of one element's addends.
template <class F>
Backend backend_in(Format f, const std::string& bound, Determinism d, F sum) {
  return dense_backend("test_backend", f, f, bound, d, "test",
                       [sum](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
                         std::vector<double> x;
                         for (std::size_t j = 0; j < w.elements; ++j) {
                           w.column(j, x);
                           result[j] = sum(x);
                         }
                       });
}

template <class F>
Backend f32_backend(const char* bound, Determinism d, F sum) {
  return backend_in(Format::f32, bound, d, sum);
}

double naive_f32(const std::vector<double>& x) {
  float acc = static_cast<float>(x[0]);
  for (std::size_t i = 1; i < x.size(); ++i) acc += static_cast<float>(x[i]);
  return acc;
}

// A correct recursive sum in f, stating recursive(f): each addition is done in double and
// rounded to f, which is f's own rounding of the sum (double has more than 2p + 1 bits).
Backend naive_in(Format f) {
  return backend_in(f, "recursive(" + std::string(name(f)) + ")", Determinism::bitwise_deterministic,
                    [f](const std::vector<double>& x) {
                      double acc = x[0];
                      for (std::size_t i = 1; i < x.size(); ++i) acc = round_to_format(acc + x[i], f);
                      return acc;
                    });
}

TEST(Properties, NamesParse) {
  for (Property p : all_properties) EXPECT_EQ(parse_property(name(p)), p);
  EXPECT_FALSE(parse_property("bogus").has_value());
}

TEST(Properties, ExclusionsFollowTheClassAndTheBound) {
  const auto d = Determinism::bitwise_deterministic;
  auto applies = [](const char* bound, Determinism det, Property p) {
    return property_applies(p, f32_backend(bound, det, naive_f32));
  };
  for (const char* bound : {"recursive(f32)", "anyorder(f32)", "tree(pairwise,f32)", "kahan(f32)", "neumaier(f32)",
                            "widened(recursive(f64),f32)", "correctly_rounded", "faithful", "products(f32)"}) {
    EXPECT_TRUE(applies(bound, d, Property::scaling)) << bound;
    EXPECT_TRUE(applies(bound, d, Property::negation)) << bound;
    EXPECT_TRUE(applies(bound, d, Property::determinism)) << bound;
    EXPECT_TRUE(applies(bound, d, Property::stated_bound)) << bound;
    EXPECT_EQ(applies(bound, d, Property::correctly_rounded), std::string(bound) == "correctly_rounded") << bound;
  }
  for (const char* bound : {"stochastic(6,f32)", "reproducible_binned(3,13,f32)", "ulps(2)"}) {
    EXPECT_FALSE(applies(bound, d, Property::scaling)) << bound;
    EXPECT_FALSE(applies(bound, d, Property::negation)) << bound;
  }
  EXPECT_FALSE(applies("ftz(recursive(f32),f32)", d, Property::scaling));
  EXPECT_TRUE(applies("ftz(recursive(f32),f32)", d, Property::negation));
  EXPECT_FALSE(applies("widened(ftz(recursive(f32),f32),f32)", d, Property::scaling));  // inner bounds count
  const auto racy = Determinism::run_to_run_nondeterministic;
  for (Property p : {Property::determinism, Property::scaling, Property::negation})
    EXPECT_FALSE(applies("anyorder(f32)", racy, p));
  EXPECT_TRUE(applies("anyorder(f32)", racy, Property::stated_bound));
}

TEST(Properties, ScalingRangeKeepsEveryValueExact) {
  const Backend b = f32_backend("recursive(f32)", Determinism::bitwise_deterministic, naive_f32);
  const Workload w = column_workload(Format::f32, {1.0, std::ldexp(1.0, -20)});
  const auto range = exact_scaling_range(b, w);
  ASSERT_TRUE(range.has_value());
  // Lowest bit 2^-20 may go down to f32's smallest subnormal 2^-149; A < 2^1 with 2 bits of
  // growth margin (M = 4 (1+u)) up to 2^127.
  EXPECT_EQ(range->low, -149 + 20);
  EXPECT_EQ(range->high, 127 - 1 - 3);
  for (int k : scaling_exponents(*range)) {
    EXPECT_NE(k, 0);
    EXPECT_EQ(validate(scaled(w, k)), "") << k;
    EXPECT_GE(k, range->low);
    EXPECT_LE(k, range->high);
  }
  EXPECT_EQ(std::get<DenseWorkload>(scaled(w, -129)).addends[0], std::ldexp(1.0, -149));
  // Non-finite values, or a workload already at the edge of the range: nothing is promised.
  EXPECT_FALSE(exact_scaling_range(b, column_workload(Format::f32, {1.0, NAN})).has_value());
  EXPECT_FALSE(exact_scaling_range(b, column_workload(Format::f32, {largest_finite(Format::f32), 1.0})).has_value());
  // Zeros scale to zeros.
  EXPECT_TRUE(exact_scaling_range(b, column_workload(Format::f32, {0.0, -0.0})).has_value());
}

// The lowest set bit of subnormal and normal f64 values sets the low end: 5 * 2^-1074 may not
// go down at all, 5 * 2^-1073 by one binade, 1.5 * 2^-1000 (lowest bit 2^-1001) by 73.
TEST(Properties, ScalingRangeLowEndFromTheLowestBit) {
  const Backend naive = naive_in(Format::f64);
  auto low = [&](double x) {
    const auto range = exact_scaling_range(naive, column_workload(Format::f64, {1.0, x}));
    return range ? range->low : 1;
  };
  EXPECT_EQ(low(5 * std::ldexp(1.0, -1074)), 0);
  EXPECT_EQ(low(5 * std::ldexp(1.0, -1073)), -1);
  EXPECT_EQ(low(1.5 * std::ldexp(1.0, -1000)), -73);
  EXPECT_EQ(low(-1.5 * std::ldexp(1.0, -1000)), -73);
  EXPECT_EQ(low(3.0), -1074);  // 1.0 and 3.0: lowest bit 2^0
  // scaled() by an exponent beyond the double range of 2^k (k > 1023) still scales exactly.
  const Workload tiny = column_workload(Format::f64, {std::ldexp(1.0, -1074), 0.0});
  EXPECT_EQ(std::get<DenseWorkload>(scaled(tiny, 1074 + 1000)).initial[0], std::ldexp(1.0, 1000));
}

// The scaling property must not be silently vacuous: its range is non-empty for most generated
// cases (the rest carry NaN/inf or overflowing partial sums by design).
TEST(Properties, ScalingAppliesToMostGeneratedCases) {
  for (Format f : {Format::f64, Format::f32, Format::bf16, Format::f16}) {
    const Backend naive = naive_in(f);
    int applies = 0, nontrivial = 0;
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
      SeededChoiceStream s(seed);
      const Workload w = generate_for_property(Property::scaling, naive, WorkloadKind::dense, s, GenerationLimits{});
      if (const auto range = exact_scaling_range(naive, w)) {
        ++applies;
        nontrivial += !scaling_exponents(*range).empty();
      }
    }
    // Measured: about 150 of 200 (f16: about 115); a range of {0} alone (no exponent to try) is rare.
    EXPECT_GE(applies, 100) << naive.bound_text();
    EXPECT_GE(nontrivial, 100) << naive.bound_text();
    std::printf("%s: scaling range non-empty for %d of 200 cases, with exponents to try for %d\n",
                naive.bound_text().c_str(), applies, nontrivial);
  }
}

TEST(Properties, NegatedAndScaledTransformEveryKind) {
  ProductWorkload p;
  p.format = Format::f32;
  p.rows = p.cols = p.batch = p.steps = 1;
  p.initial = {3.0};
  p.a = {0.5};
  p.b = {-2.0};
  const Workload negated_p = negated(p), scaled_p = scaled(p, 4);
  const auto& np = std::get<ProductWorkload>(negated_p);
  EXPECT_EQ(np.initial[0], -3.0);
  EXPECT_EQ(np.a[0], -0.5);
  EXPECT_EQ(np.b[0], -2.0);  // B is not negated: every term a*b changes sign once
  const auto& sp = std::get<ProductWorkload>(scaled_p);
  EXPECT_EQ(sp.initial[0], 48.0);
  EXPECT_EQ(sp.a[0], 8.0);
  EXPECT_EQ(sp.b[0], -2.0);
}

// Every check can fail: one broken backend per property.
TEST(Properties, StatedBoundFailsForAWrongSum) {
  const Backend doubled = f32_backend("recursive(f32)", Determinism::bitwise_deterministic,
                                      [](const std::vector<double>& x) { return 2 * naive_f32(x); });
  const auto f = check_property(Property::stated_bound, doubled, column_workload(Format::f32, {1.0, 1.0}));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->verdict, Verdict::bound_exceeded);
  EXPECT_EQ(f->label, "bound-exceeded");
  EXPECT_NE(f->detail.find("test_backend"), std::string::npos);
}

TEST(Properties, CorrectlyRoundedFailsForANaiveSum) {
  const Backend claims = f32_backend("correctly_rounded", Determinism::order_independent, naive_f32);
  const double half_ulp = std::ldexp(1.0, -24);
  EXPECT_TRUE(
      check_property(Property::correctly_rounded, claims, column_workload(Format::f32, {1.0, half_ulp, half_ulp})));
  EXPECT_FALSE(check_property(Property::correctly_rounded, claims, column_workload(Format::f32, {1.0, 2.0})));
  // The zero sign: -0 only when every addend is -0.
  const Backend positive_zero = f32_backend("correctly_rounded", Determinism::order_independent,
                                            [](const std::vector<double>& x) { return naive_f32(x) + 0.0; });
  EXPECT_TRUE(check_property(Property::correctly_rounded, positive_zero, column_workload(Format::f32, {-0.0, -0.0})));
}

TEST(Properties, DeterminismFailsForARunCounter) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  const Backend drifting = f32_backend(
      "recursive(f32)", Determinism::bitwise_deterministic,
      [calls](const std::vector<double>& x) { return naive_f32(x) + (++*calls % 2 ? 0.0 : std::ldexp(1.0, -30)); });
  EXPECT_TRUE(check_property(Property::determinism, drifting, column_workload(Format::f32, {0.0, 0.0})));
  // Order-independent claims are checked under permutations: 1 then 40 half ulps sums to 1 in
  // order, to more in almost any other order.
  const Backend ordered = f32_backend("recursive(f32)", Determinism::order_independent, naive_f32);
  std::vector<double> column(41, std::ldexp(1.0, -24));
  column[0] = 1.0;
  EXPECT_TRUE(check_property(Property::determinism, ordered, column_workload(Format::f32, column)));
  const Backend exact =
      f32_backend("correctly_rounded", Determinism::order_independent,
                  [](const std::vector<double>& x) { return boost_exact_sum(x).rounded(Format::f32); });
  EXPECT_FALSE(check_property(Property::determinism, exact, column_workload(Format::f32, column)));
}

// The caller's run (run_and_judge's, default RunOptions) is the determinism check's first run:
// a backend whose default-threads result differs from every explicit thread count is caught
// when that run is given, and only then (threads 1, 2 and 4 agree with each other).
TEST(Properties, DeterminismComparesTheGivenFirstRun) {
  const Backend default_differs =
      dense_backend("test_backend", Format::f32, Format::f32, "recursive(f32)", Determinism::bitwise_deterministic,
                    "test", [](const DenseWorkload& w, std::span<double> result, const RunOptions& options) {
                      for (std::size_t j = 0; j < w.elements; ++j) result[j] = options.threads == 0 ? 1.0 : 2.0;
                    });
  const Workload w = column_workload(Format::f32, {1.0, 1.0});
  const auto exact = exact_sums(w);
  std::vector<double> first(1);
  default_differs.run(w, first, RunOptions{});
  ASSERT_EQ(first[0], 1.0);
  const auto found = check_property(Property::determinism, default_differs, w, exact, &first);
  ASSERT_TRUE(found.has_value());
  EXPECT_NE(found->detail.find("on the first run (default threads)"), std::string::npos) << found->detail;
  EXPECT_FALSE(check_property(Property::determinism, default_differs, w, exact));
}

TEST(Properties, SpecialValuesFailWhenNaNIsDropped) {
  const Backend skips =
      f32_backend("recursive(f32)", Determinism::bitwise_deterministic, [](const std::vector<double>& x) {
        float acc = 0;
        for (double v : x)
          if (!std::isnan(v)) acc += static_cast<float>(v);
        return static_cast<double>(acc);
      });
  const auto f = check_property(Property::special_values, skips, column_workload(Format::f32, {1.0, NAN}));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->verdict, Verdict::special_value_mismatch);
}

TEST(Properties, ScalingFailsWhenSubnormalsAreFlushed) {
  const Backend flushes =
      f32_backend("recursive(f32)", Determinism::bitwise_deterministic, [](const std::vector<double>& x) {
        const double r = naive_f32(x);
        return std::fabs(r) < smallest_normal(Format::f32) ? 0.0 : r;
      });
  const auto f = check_property(Property::scaling, flushes, column_workload(Format::f32, {1.0, std::ldexp(1.0, -20)}));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->label, "scaling-mismatch");
  const Backend naive = naive_in(Format::f32);
  EXPECT_FALSE(check_property(Property::scaling, naive, column_workload(Format::f32, {1.0, std::ldexp(1.0, -20)})));
}

TEST(Properties, NegationFailsForDirectedRounding) {
  // Rounds toward +infinity: fl(-a - b) != -fl(a + b) when the sum is inexact.
  const Backend upward =
      f32_backend("recursive(f32)", Determinism::bitwise_deterministic, [](const std::vector<double>& x) {
        double exact = 0;
        for (double v : x) exact += v;  // exact in double for these inputs
        const double r = static_cast<float>(exact);
        return r < exact ? next_up(r, Format::f32) : r;
      });
  const auto f = check_property(Property::negation, upward, column_workload(Format::f32, {1.0, std::ldexp(1.0, -30)}));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->label, "negation-mismatch");
  const Backend naive = naive_in(Format::f32);
  EXPECT_FALSE(check_property(Property::negation, naive, column_workload(Format::f32, {1.0, std::ldexp(1.0, -30)})));
  // x + (-x) is +0 both ways: zero signs are not compared.
  EXPECT_FALSE(check_property(Property::negation, naive, column_workload(Format::f32, {1.0, -1.0})));
}

TEST(Properties, GenerationUsesTheSpecialFamilyForSpecialValues) {
  const Backend naive = naive_in(Format::f32);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    SeededChoiceStream s(seed), t(seed);
    const Workload special =
        generate_for_property(Property::special_values, naive, WorkloadKind::dense, s, GenerationLimits{});
    EXPECT_EQ(family_of(special).substr(0, 14), "special_values");
    const Workload uniform = generate_for_property(Property::stated_bound, naive, WorkloadKind::dense, t,
                                                   GenerationLimits{}, find_family("uniform"));
    EXPECT_EQ(family_of(uniform).substr(0, 7), "uniform");
    EXPECT_EQ(format_of(uniform), Format::f32);
  }
}

TEST(Properties, UnsupportedKindIsACallerError) {
  const Backend naive = naive_in(Format::f32);
  SparseWorkload s;
  s.format = Format::f32;
  EXPECT_THROW(check_property(Property::stated_bound, naive, s), std::invalid_argument);
}

}  // namespace
}  // namespace accucheck
