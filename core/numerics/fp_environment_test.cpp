// The floating-point environment guard: accucheck runs in IEEE's default environment, says what
// a change is in words, and a backend that leaves the environment changed is that backend's
// failure (Backend::run restores it), so nothing judged after it is affected.
#include "numerics/fp_environment.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <limits>

#include "accucheck/testing/workloads.h"
#include "checking/judge.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace accucheck {
namespace {

TEST(FpEnvironment, TheTestsRunInTheDefaultEnvironment) {
  EXPECT_EQ(current_fp_environment(), default_fp_environment());
  volatile double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_GT(tiny + 0.0, 0.0) << "a subnormal must survive an addition (no FTZ/DAZ)";
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

#if defined(__x86_64__)
TEST(FpEnvironment, FlushToZeroIsNamedAndRestored) {
  const FpEnvironmentGuard guard;
  _mm_setcsr(_mm_getcsr() | 0x8040);  // what crtfastmath.o's constructor does
  volatile double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(tiny + 0.0, 0.0) << "DAZ is on";
  EXPECT_EQ(
      guard.check_and_restore(),
      "flush-to-zero and denormals-are-zero switched on (MXCSR 0x1f80 -> 0x9fc0, x87 control word 0x37f -> 0x37f)");
  EXPECT_EQ(current_fp_environment(), default_fp_environment());
  EXPECT_GT(tiny + 0.0, 0.0);
  EXPECT_EQ(guard.check_and_restore(), "") << "nothing changed since";
}
#endif

TEST(FpEnvironment, RoundingModeChangesAreNamed) {
  const FpEnvironmentGuard guard;
  std::fesetround(FE_UPWARD);
  EXPECT_NE(guard.check_and_restore().find("rounding mode changed"), std::string::npos);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

// A backend that rounds upward and leaves it so: its result is not judged, and the next
// backend runs in the default environment again.
TEST(FpEnvironment, ABackendThatLeavesItChangedFailsAndIsRestored) {
  const Backend changes = dense_backend("test_rounds_up_f64", Format::f64, Format::f64, "recursive(f64)",
                                        Determinism::bitwise_deterministic, "sets FE_UPWARD and keeps it",
                                        [](const DenseWorkload& w, std::span<double> out, const RunOptions&) {
                                          std::fesetround(FE_UPWARD);
                                          volatile double sum = w.initial[0] + w.addends[0];
                                          out[0] = sum;
                                        });
  const auto outcome = run_and_judge(changes, test::column_workload(Format::f64, {1.0, 0x1p-60}));
  EXPECT_EQ(outcome.worst, Verdict::backend_failed);
  EXPECT_NE(outcome.failure.find("test_rounds_up_f64 changed the floating-point environment and left it changed"),
            std::string::npos)
      << outcome.failure;
  EXPECT_EQ(current_fp_environment(), default_fp_environment());
  volatile double one = 1.0, tiny = 0x1p-60;
  EXPECT_EQ(one + tiny, 1.0) << "rounding to nearest again";
}

}  // namespace
}  // namespace accucheck
