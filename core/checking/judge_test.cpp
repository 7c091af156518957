// Judging wide workloads block by block (judge.h): exact sums a range at a time, the summary of
// a backend's verdicts (counts, the most severe elements with their indices), and reports that
// say when the `exact` double is not S itself.
#include <gtest/gtest.h>

#include <cmath>
#include <new>
#include <stdexcept>
#include <vector>

#include "accucheck/testing/seed.h"
#include "accucheck/testing/workloads.h"
#include "checking/determinism.h"
#include "checking/families.h"
#include "checking/judge.h"
#include "checking/properties.h"

namespace accucheck {
namespace {

bool same_summary(const ExactSum& a, const ExactSum& b) {
  return a.special == b.special && a.sum == b.sum && a.abs_sum == b.abs_sum && a.count == b.count &&
         a.all_negative_zero == b.all_negative_zero && a.max_abs == b.max_abs;
}

// A dense f32 backend whose result is RNE(S) of each element (the exact column sum, rounded
// once), with `wrong[j]` added to element j.
Backend exact_f32_backend(std::vector<std::pair<std::size_t, double>> wrong) {
  return dense_backend("test_exact_f32", Format::f32, Format::f32, "recursive(f32)", Determinism::bitwise_deterministic,
                       "test", [wrong](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
                         for (std::size_t j = 0; j < w.elements; ++j)
                           result[j] = exact_element(w, j).rounded(Format::f32);
                         for (const auto& [j, delta] : wrong) result[j] += delta;
                       });
}

DenseWorkload ones(std::size_t elements) {
  DenseWorkload w;
  w.format = Format::f32;
  w.elements = elements;
  w.steps = 1;
  w.initial.assign(elements, 1.0);
  w.addends.assign(elements, 0.5);
  return w;
}

// Generated workloads of every kind: ExactSumRanges over any split of the elements gives what
// the Boost reference gives for each element (exact_sums_disagreement) and what exact_sums gives.
TEST(ExactSumRanges, EveryRangeAgreesWithTheReference) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    SeededChoiceStream s(test::test_seed(seed));
    const auto kind = static_cast<WorkloadKind>(seed % 3);
    GenerationLimits limits;
    limits.max_elements = 9;
    limits.max_long_steps = 300;
    const Workload w = generate(s, kind == WorkloadKind::product ? Format::f32 : Format::f64, limits, kind);
    const std::vector<ExactSum> all = exact_sums(w);
    ASSERT_EQ(exact_sums_disagreement(w, all), "") << describe_shape(w);
    const ExactSumRanges ranges(w);
    std::vector<ExactSum> block;
    for (std::size_t step : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
      for (std::size_t begin = 0; begin < all.size(); begin += step) {
        const std::size_t end = std::min(all.size(), begin + step);
        ranges.sums(begin, end, block);
        ASSERT_EQ(block.size(), end - begin);
        for (std::size_t e = begin; e < end; ++e) {
          EXPECT_TRUE(same_summary(block[e - begin], all[e])) << describe_shape(w) << ", element " << e;
          EXPECT_TRUE(same_summary(exact_sum_of(w, e), all[e])) << describe_shape(w) << ", element " << e;
        }
      }
    }
  }
}

// A sparse table whose rows are touched out of order, some twice, some never: each element's
// sum is worked out by hand.
TEST(ExactSumRanges, SparseRowsGatherTheirPairsInOrder) {
  const Workload table = SparseWorkload{.format = Format::f64,
                                        .rows = 4,
                                        .dim = 2,
                                        .steps = 2,
                                        .initial = {1, 2, 3, 4, 5, 6, 7, 8},
                                        .step_offsets = {0, 2, 3},
                                        .row_index = {2, 0, 2},
                                        .values = {0x1p-60, 10, 100, 200, 0x1p60, 20}};
  // ExactSumRanges keeps a reference: to `table`, not to a temporary.
  const ExactSumRanges ranges(table);
  std::vector<ExactSum> sums;
  ranges.sums(0, 8, sums);
  const double expected[8] = {1 + 100, 2 + 200, 3, 4, 5 + 0x1p-60 + 0x1p60, 6 + 10 + 20, 7, 8};
  const std::uint64_t terms[8] = {2, 2, 1, 1, 3, 3, 1, 1};
  for (std::size_t e = 0; e < 8; ++e) {
    EXPECT_EQ(sums[e].count, terms[e]) << e;
    if (e != 4) EXPECT_EQ(nearest_double(sums[e].sum), expected[e]) << e;
  }
  EXPECT_EQ(sums[4].sum, to_fixed(5) + to_fixed(0x1p-60) + to_fixed(0x1p60));  // not a double: exact
}

// Two wrong elements in three blocks and a bit: counts per verdict, the most severe first
// (larger error first), then the ok elements by index; worst, max ratio and ulps as
// run_and_judge gives them.
TEST(RunAndSummarize, KeepsTheMostSevereElementsAcrossBlocks) {
  const std::size_t n = 3 * kJudgeBlock + 5, small_error = 2 * kJudgeBlock + 1, large_error = 7;
  const DenseWorkload w = ones(n);
  const Backend b = exact_f32_backend({{small_error, 0x1p-10}, {large_error, 0x1p-4}});
  const OutcomeSummary summary = run_and_summarize(b, w, 4);
  EXPECT_EQ(summary.counts[static_cast<std::size_t>(Verdict::ok)], n - 2);
  EXPECT_EQ(summary.counts[static_cast<std::size_t>(Verdict::bound_exceeded)], 2u);
  ASSERT_EQ(summary.most_severe.size(), 4u);
  EXPECT_EQ(summary.most_severe[0].index, large_error);
  EXPECT_EQ(summary.most_severe[1].index, small_error);
  EXPECT_EQ(summary.most_severe[2].index, 0u);
  EXPECT_EQ(summary.most_severe[3].index, 1u);
  EXPECT_EQ(summary.most_severe[0].verdict.computed, 1.5 + 0x1p-4);
  EXPECT_EQ(summary.most_severe[0].exact_hex, "0x3p-1");
  EXPECT_EQ(summary.result.size(), n);
  const BackendOutcome judged = run_and_judge(b, w);
  EXPECT_EQ(summary.outcome.worst, Verdict::bound_exceeded);
  EXPECT_EQ(summary.outcome.worst_element, judged.worst_element);
  EXPECT_EQ(summary.outcome.max_ratio, judged.max_ratio);
  EXPECT_EQ(summary.outcome.max_abs_ulps, judged.max_abs_ulps);
  EXPECT_TRUE(summary.outcome.elements.empty());
}

TEST(RunAndSummarize, EachSeesEveryElementInOrder) {
  const DenseWorkload w = ones(kJudgeBlock + 3);
  std::size_t next = 0;
  const OutcomeSummary summary = run_and_summarize(exact_f32_backend({}), w, 0, [&](const JudgedElement& e) {
    EXPECT_EQ(e.index, next);
    EXPECT_EQ(e.verdict.verdict, Verdict::ok);
    ++next;
  });
  EXPECT_EQ(next, w.elements);
  EXPECT_TRUE(summary.most_severe.empty());
}

TEST(RunAndSummarize, BackendFailuresAreVerdictsButOutOfMemoryIsNot) {
  const DenseWorkload w = ones(3);
  auto throwing = [](auto exception) {
    return dense_backend("test_throws", Format::f32, Format::f32, "recursive(f32)", Determinism::bitwise_deterministic,
                         "test",
                         [exception](const DenseWorkload&, std::span<double>, const RunOptions&) { throw exception; });
  };
  const Backend failing = throwing(std::runtime_error("device lost"));
  EXPECT_EQ(run_and_summarize(failing, w, 4).outcome.worst, Verdict::backend_failed);
  EXPECT_EQ(run_and_summarize(failing, w, 4).outcome.failure, "device lost");
  EXPECT_EQ(run_and_judge(failing, w).worst, Verdict::backend_failed);
  const Backend out_of_memory = throwing(std::bad_alloc());
  EXPECT_THROW(run_and_summarize(out_of_memory, w, 4), std::bad_alloc);
  EXPECT_THROW(run_and_judge(out_of_memory, w), std::bad_alloc);
  EXPECT_THROW(check_property(Property::negation, out_of_memory, w), std::bad_alloc);
}

// S = 16783751 - 2^-118 (addends 16783752, -1, -2^-118 in f32): the nearest double is the f32
// midpoint 16783751 itself, RNE(S) is 16783750, and summing in f64 before rounding to f32 gives
// 16783752 (the tie, to even). The report marks the double with `~` and gives S exactly:
// 16783751 * 2^118 - 1 = 0x400661bf...f (python3 -c "print(hex((16783751<<118)-1))").
TEST(DescribeViolation, ShowsSExactlyWhenTheDoubleIsNotS) {
  DenseWorkload w = test::column_workload(Format::f32, {16783752, -1, -0x1p-118});
  const Backend double_rounding = dense_backend(
      "test_double_rounding_f32", Format::f32, Format::f64, "correctly_rounded", Determinism::bitwise_deterministic,
      "test", [](const DenseWorkload& x, std::span<double> result, const RunOptions&) {
        result[0] = static_cast<float>(x.initial[0] + x.addends[0] + x.addends[1]);
      });
  const BackendOutcome outcome = run_and_judge(double_rounding, w);
  ASSERT_EQ(outcome.worst, Verdict::not_correctly_rounded);
  const ElementVerdict& v = outcome.elements[0];
  EXPECT_EQ(v.exact, 16783751);
  EXPECT_TRUE(v.exact_is_rounded);
  EXPECT_EQ(v.correctly_rounded, 16783750);
  EXPECT_EQ(v.computed, 16783752);
  const std::string exact_line = "  exact     16783751~ ";
  const std::string s_line = "  exact S   0x400661bfffffffffffffffffffffffffffffp-118";
  const std::string text = describe_violation(double_rounding, w, outcome);
  EXPECT_NE(text.find(exact_line), std::string::npos) << text;
  EXPECT_NE(text.find(s_line), std::string::npos) << text;
  const std::string summarized = describe_violation(double_rounding, w, run_and_summarize(double_rounding, w, 1));
  EXPECT_NE(summarized.find(exact_line), std::string::npos) << summarized;
  EXPECT_NE(summarized.find(s_line), std::string::npos) << summarized;

  // An S that is a double is shown as it is.
  w.addends = {-1, -1};
  const BackendOutcome exact = run_and_judge(double_rounding, w);
  EXPECT_FALSE(exact.elements[0].exact_is_rounded);
  EXPECT_EQ(describe_violation(double_rounding, w, exact).find("~"), std::string::npos);
}

}  // namespace

// The permutations check_determinism hands an order-independent backend keep a workload valid:
// with FP8 addends the initial value (of the buffer's format) stays the initial value.
TEST(CheckDeterminism, PermutationsKeepFp8AddendsFp8) {
  const Backend validating =
      dense_backend("validating_f32", Format::f32, Format::f32, "correctly_rounded", Determinism::order_independent,
                    "test", [](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
                      if (const std::string problem = w.validate(); !problem.empty()) throw std::runtime_error(problem);
                      for (double& x : result) x = 0.0;
                    });
  DenseWorkload w{.format = Format::f32,
                  .elements = 2,
                  .steps = 3,
                  .initial = {1.0 + 0x1p-20, 3e6},
                  .addends = {448, -0.5, 0.25, 2, 0.125, -448},
                  .family = "hand",
                  .layout = {},
                  .input_format = Format::e4m3};
  ASSERT_EQ(w.validate(), "");
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    SeededChoiceStream s(seed);
    EXPECT_EQ(check_determinism(validating, w, s), "") << seed;
  }
}

}  // namespace accucheck
