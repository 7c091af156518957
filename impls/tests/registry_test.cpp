// core's checks over the whole registry: every built-in backend passes the properties that
// apply to it, the property checks agree with and without precomputed exact sums on every
// backend, and every stated bound survives a case file.
#include <gtest/gtest.h>

#include <cstdint>

#include "accucheck/testing/workloads.h"
#include "checking/backend.h"
#include "checking/families.h"
#include "checking/judge.h"
#include "checking/properties.h"
#include "engine/findings.h"
#include "io/case_file.h"

namespace accucheck {
namespace {

// The finding pipeline over the shipped naive_f32: the stated bound and every applicable
// property hold on generated cases.
TEST(Properties, ShippedNaivePassesEveryApplicableCheck) {
  const Backend* naive = Registry::global().find("naive_f32");
  ASSERT_NE(naive, nullptr);
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    SeededChoiceStream s(seed);
    const Workload w =
        generate_for_property(Property::stated_bound, *naive, WorkloadKind::dense, s, GenerationLimits{});
    const auto judgement = find_violations(*naive, w, exact_sums(w));
    EXPECT_FALSE(judgement.violated()) << judgement.findings.front().detail;
  }
}

// The properties that replay runs give the same answers without the exact sums (computed a
// block at a time where needed) as with them; so does the scaling range.
TEST(CheckProperty, WithoutExactSumsAgreesWithThem) {
  const Registry& registry = Registry::global();
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    SeededChoiceStream s(seed);
    const auto kind = static_cast<WorkloadKind>(seed % 3);
    GenerationLimits limits;
    limits.max_long_steps = 200;
    const Workload w = generate(s, Format::f32, limits, kind);
    const auto exact = exact_sums(w);
    for (const Backend& b : registry.all()) {
      if (b.storage != Format::f32 || !b.runs(w)) continue;
      const auto with = exact_scaling_range(b, w, exact), without = exact_scaling_range(b, w);
      ASSERT_EQ(with.has_value(), without.has_value()) << b.name << " on " << describe_shape(w);
      if (with) {
        EXPECT_TRUE(with->low == without->low && with->high == without->high) << b.name << " on " << describe_shape(w);
      }
      for (Property p : {Property::determinism, Property::scaling, Property::negation}) {
        if (!property_applies(p, b)) continue;
        EXPECT_EQ(check_property(p, b, w, exact).has_value(), check_property(p, b, w).has_value())
            << name(p) << ", " << b.name << " on " << describe_shape(w);
      }
    }
  }
}

// Every registered backend's stated bound and name, as check, the properties and the fuzzers
// write them into a case file, read back as they were written.
TEST(CaseFile, EveryRegisteredBackendsCaseReadsBack) {
  for (const Backend& b : Registry::global().all()) {
    CaseFile c;
    c.workload = test::column_workload(b.storage, {1.0, 0.5});
    c.backend = b.name;
    c.bound = b.bound_text();
    c.verdict = "bound-exceeded";
    const CaseFile back = parse_case(case_to_json(c), "c.json");
    EXPECT_TRUE(back.warnings.empty()) << b.name;
    EXPECT_EQ(back.backend, b.name);
    EXPECT_EQ(back.bound, b.bound_text());
  }
}

}  // namespace
}  // namespace accucheck
