// The property suite, quantified over every registered backend: each (property, backend) pair
// for which the property applies (property_exclusion in core's properties.h) is its own ctest
// entry, e.g. Registered/StatedBound.Holds/naive_f32, and runs on every workload kind the
// backend supports. A backend added later (a new file in impls/) is covered without touching
// this file: the parameters are read from Registry::global() when the tests are listed.
#include <gtest/gtest.h>

#include "checking/backend.h"
#include "checking/properties.h"
#include "harness.h"

namespace accucheck::props {
namespace {

class PropertyOfBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void check(Property property) {
    const Backend* backend = Registry::global().find(GetParam());
    ASSERT_NE(backend, nullptr) << GetParam() << " is not registered";
    ASSERT_TRUE(property_applies(property, *backend)) << property_exclusion(property, *backend);
    const HarnessOptions options = options_from_environment();
    int kinds = 0;
    for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::product, WorkloadKind::sparse}) {
      if (!backend->supports(kind)) continue;
      ++kinds;
      const PropertyRun run = run_property(*backend, property, kind, options);
      EXPECT_TRUE(run.passed) << run.message;
      std::printf("%s on %s: %s after %d case(s)\n", std::string(name(property)).c_str(),
                  std::string(name(kind)).c_str(), run.passed ? "held" : "FAILED", run.cases);
    }
    EXPECT_GT(kinds, 0) << backend->name << " runs no workload kind";
  }
};

std::string parameter(const ::testing::TestParamInfo<std::string>& info) { return parameter_name(info.param); }

// Each property gets its own fixture so that its parameters are exactly the backends it applies to.
#define ACCUCHECK_PROPERTY_SUITE(Fixture, Test, PROPERTY) \
  class Fixture : public PropertyOfBackend {};            \
  TEST_P(Fixture, Test) { check(PROPERTY); }              \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Fixture); \
  INSTANTIATE_TEST_SUITE_P(Registered, Fixture, ::testing::ValuesIn(registered_backends_where(PROPERTY)), parameter)

// No element of any generated workload gets a violation verdict (bound exceeded, overflow,
// special-value mismatch, not representable, backend failed...).
ACCUCHECK_PROPERTY_SUITE(StatedBound, Holds, Property::stated_bound);
// correctly_rounded backends: RNE(S) bit for bit, zero sign included.
ACCUCHECK_PROPERTY_SUITE(CorrectlyRounded, EqualsRNE, Property::correctly_rounded);
// bitwise-deterministic: same bits across reruns and thread counts; order-independent: also
// under permutations and splits.
ACCUCHECK_PROPERTY_SUITE(DeterminismClass, AsPromised, Property::determinism);
// BOUNDS.md's NaN / infinity rules on the special-value families.
ACCUCHECK_PROPERTY_SUITE(SpecialValues, FollowRules, Property::special_values);
// result(2^k w) == 2^k result(w) wherever no intermediate can underflow or overflow.
ACCUCHECK_PROPERTY_SUITE(Scaling, ByPowersOfTwo, Property::scaling);
// result(-w) == -result(w).
ACCUCHECK_PROPERTY_SUITE(Negation, NegatesResult, Property::negation);

// The suite covers the registry: every registered backend is checked for its stated bound and
// special values, and the class-based exclusions are the documented ones.
TEST(PropertySuite, CoversEveryRegisteredBackend) {
  ASSERT_FALSE(Registry::global().all().empty());
  for (const Backend& b : Registry::global().all()) {
    EXPECT_TRUE(property_applies(Property::stated_bound, b)) << b.name;
    EXPECT_TRUE(property_applies(Property::special_values, b)) << b.name;
    EXPECT_EQ(property_applies(Property::correctly_rounded, b), b.bound.kind == BoundKind::correctly_rounded) << b.name;
    EXPECT_EQ(property_applies(Property::determinism, b), b.determinism != Determinism::run_to_run_nondeterministic)
        << b.name;
    if (b.determinism == Determinism::run_to_run_nondeterministic) {
      EXPECT_FALSE(property_applies(Property::scaling, b)) << b.name;
      EXPECT_FALSE(property_applies(Property::negation, b)) << b.name;
    }
  }
}

}  // namespace
}  // namespace accucheck::props
