// The climb behind `check --maximize` (climb.h): every mutation is a valid workload within its
// term limit, the seeds are what they say, and keeping the mutant whose error/bound does not
// fall takes a plain f32 loop from an exact sum (ratio 0) to its recursive bound.
#include "accucheck/climb.h"

#include <gtest/gtest.h>

#include "accucheck/check.h"
#include "accucheck/families.h"

namespace accucheck {
namespace {

// The plain left-to-right loop in f32, which the recursive(f32) bound (n - 1) u A describes.
Backend naive_f32() {
  return dense_backend("climb_test_naive_f32", Format::f32, Format::f32, "recursive(f32)", Determinism::bitwise_deterministic,
                       "plain loop", [](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
                         for (std::size_t j = 0; j < w.elements; ++j) {
                           float acc = static_cast<float>(w.initial[j]);
                           for (std::size_t t = 0; t < w.steps; ++t) acc = acc + static_cast<float>(w.addend(t, j));
                           result[j] = acc;
                         }
                       });
}

double max_ratio(const Backend& b, const Workload& w) { return run_and_judge(b, w).max_ratio; }

TEST(Climb, MutationsAreValidWorkloadsWithinTheTermLimit) {
  GenerationLimits l;
  l.max_wide_values = 0;
  const std::size_t term_limit = 40;
  for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::product, WorkloadKind::sparse})
    for (Format f : all_formats) {
      if (kind == WorkloadKind::product && f == Format::f64) continue;
      for (std::uint64_t seed = 0; seed < 20; ++seed) {
        SeededChoiceStream s(seed);
        Workload w = generate(s, f, l, kind);
        // Climbing works on one element: the shape-changing moves apply there.
        if (seed % 2 == 0) w = element_alone(w, 0);
        const std::size_t start_terms = max_terms(w);
        for (int step = 0; step < 300; ++step) {
          w = climb_mutation(w, s, term_limit);
          ASSERT_EQ(validate(w), "") << name(kind) << " " << name(f) << " seed " << seed << " step " << step;
          ASSERT_LE(max_terms(w), std::max(start_terms, term_limit)) << "grown past the limit";
        }
      }
    }
}

TEST(Climb, SeedsAreValidAndStagnationReachesTheRecursiveBound) {
  for (Format f : all_formats)
    for (const Workload& seed : climb_seeds(f, 65)) EXPECT_EQ(validate(seed), "") << name(f);
  // 2^24 then 64 half ulps, all absorbed: error/bound = 1 / (1 + 64 2^-24) (docs/detection.md).
  const auto seeds = climb_seeds(Format::f32, 65);
  ASSERT_FALSE(seeds.empty());
  EXPECT_GT(max_ratio(naive_f32(), seeds[0]), 0.99);
}

TEST(Climb, KeepingTheWorstMutantClimbsFromAnExactSumToTheBound) {
  const Backend b = naive_f32();
  DenseWorkload start{.format = Format::f32, .elements = 1, .steps = 1, .initial = {1.0}, .addends = {1.0}, .family = "test", .layout = {}};
  Workload worst = start;
  double worst_ratio = max_ratio(b, worst);
  ASSERT_EQ(worst_ratio, 0.0) << "1 + 1 is exact: the climb starts at the bottom";
  SeededChoiceStream s(1);
  for (int step = 0; step < 20000 && worst_ratio < 0.9; ++step) {
    Workload candidate = climb_mutation(worst, s, 65);
    const double r = max_ratio(b, candidate);
    if (r >= worst_ratio) {
      worst = std::move(candidate);
      worst_ratio = r;
    }
  }
  EXPECT_GE(worst_ratio, 0.9) << "the climb stalled at " << worst_ratio;
}

}  // namespace
}  // namespace accucheck
