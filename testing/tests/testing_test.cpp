// The test library's helpers on cases worked out by hand: a helper that called everything
// equal, rounded twice or ignored ACCUCHECK_TEST_SEED would let the tests built on it pass.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "accucheck/testing/bits.h"
#include "accucheck/testing/exact_sums.h"
#include "accucheck/testing/mpfr.h"
#include "accucheck/testing/order_models.h"
#include "accucheck/testing/seed.h"
#include "accucheck/testing/workloads.h"
#include "numerics/hash.h"

namespace accucheck {
namespace {

using test::same_bits;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(TestingBits, SignedZerosDifferAndNaNsAreEqual) {
  EXPECT_TRUE(same_bits(1.5, 1.5));
  EXPECT_FALSE(same_bits(0.0, -0.0));
  EXPECT_FALSE(same_bits(1.0, std::nextafter(1.0, 2.0)));
  EXPECT_TRUE(same_bits(kNaN, -std::nan("3")));
  EXPECT_FALSE(same_bits(kNaN, std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(same_bits(0.0, kNaN));
}

const std::vector<double> kTwo = {1.0, 2.0}, kOne = {1.0};

TEST(TestingBits, ExpectSameBitsFailsOnADifferenceOrALength) {
  test::expect_same_bits({1.0, -0.0, kNaN}, {1.0, -0.0, kNaN}, "equal");
  EXPECT_NONFATAL_FAILURE(test::expect_same_bits({1.0, -0.0}, {1.0, 0.0}, "zeros"), "zeros element 1: ");
  EXPECT_FATAL_FAILURE(test::expect_same_bits(kTwo, kOne, "lengths"), "lengths");
}

TEST(TestingExactSums, EveryFieldCounts) {
  ExactSum a;
  a.count = 2;
  a.sum = 3;
  a.abs_sum = 5;
  a.all_negative_zero = false;
  a.max_abs = 4.0;
  test::expect_same_exact_sum(a, a, "equal");
  ExactSum b = a;
  b.sum = 4;
  EXPECT_NONFATAL_FAILURE(test::expect_same_exact_sum(b, a, "sums"), "sums\n sum ");
  b = a;
  b.abs_sum = 6;
  EXPECT_NONFATAL_FAILURE(test::expect_same_exact_sum(b, a, "abs"), "abs\n abs_sum ");
  b = a;
  b.count = 3;
  EXPECT_NONFATAL_FAILURE(test::expect_same_exact_sum(b, a, "count"), "count");
  b = a;
  b.all_negative_zero = true;
  EXPECT_NONFATAL_FAILURE(test::expect_same_exact_sum(b, a, "zeros"), "zeros");
  b = a;
  b.max_abs = -4.0;
  EXPECT_NONFATAL_FAILURE(test::expect_same_exact_sum(b, a, "max"), "max\n max_abs ");
  b = a;
  b.special = Special::nan;
  EXPECT_NONFATAL_FAILURE(test::expect_same_exact_sum(b, a, "special"), "special");
}

// Round to nearest even in f16 (p = 11, subnormals from 2^-24): each case by hand.
TEST(TestingMpfr, RoundsOnceIntoTheFormat) {
  auto round_f16 = [](double x) {
    return test::mpfr_round_to_format(Format::f16, [x](mpfr_ptr r) { return mpfr_set_d(r, x, MPFR_RNDN); });
  };
  EXPECT_EQ(round_f16(1 + 0x1p-11), 1.0);                    // a tie, to even
  EXPECT_EQ(round_f16(1 + 3 * 0x1p-11), 1 + 0x1p-9);         // a tie, to even, upward
  EXPECT_EQ(round_f16(0x1p-25), 0.0);                        // half the smallest subnormal: to even (0)
  EXPECT_EQ(round_f16(3 * 0x1p-26), 0x1p-24);                // 0.75 of it: rounded once, up
  EXPECT_EQ(round_f16(0x1.ff8p-15 + 0x1p-26), 0x1.ff8p-15);  // the largest subnormal plus a quarter unit
  EXPECT_EQ(round_f16(65519.0), 65504.0);
  EXPECT_EQ(round_f16(65520.0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::signbit(round_f16(-0x1p-26)));
  // The exponent range is f16's only inside.
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  {
    const test::MpfrExponentRange range(Format::bf16);
    EXPECT_EQ(mpfr_get_emax(), 128);
  }
  EXPECT_EQ(mpfr_get_emin(), emin);
  EXPECT_EQ(mpfr_get_emax(), emax);
}

TEST(TestingMpfr, FixedIntConversionsAreExact) {
  for (const FixedInt& v :
       {FixedInt(0), FixedInt(-3), FixedInt(1) << 2100, -(FixedInt(1) << 1074) - 1, to_fixed(-0.1)}) {
    mpfr_t x;
    mpfr_init2(x, 2300);
    EXPECT_EQ(test::set_mpfr(x, v), 0);
    EXPECT_EQ(test::mpfr_to_fixed(x, MPFR_RNDN), v);
    mpz_t z;
    mpz_init(z);
    test::set_mpz(z, v);
    char* text = mpz_get_str(nullptr, 10, z);
    EXPECT_EQ(FixedInt(text), v);
    free(text);
    mpz_clear(z);
    mpfr_clear(x);
  }
  // -1.5 units of 2^-1074 rounded down and up.
  mpfr_t half;
  mpfr_init2(half, 10);
  mpfr_set_si_2exp(half, -3, -1075, MPFR_RNDN);
  EXPECT_EQ(test::mpfr_to_fixed(half, MPFR_RNDD), FixedInt(-2));
  EXPECT_EQ(test::mpfr_to_fixed(half, MPFR_RNDU), FixedInt(-1));
  mpfr_clear(half);
}

TEST(TestingMpfr, ValuesHoldWhatWasAskedFor) {
  const std::vector<double> xs = {1.0, kNaN, -2.0, -std::numeric_limits<double>::infinity()};
  test::MpfrValues finite(xs, {.magnitudes = true, .finite_only = true});
  ASSERT_EQ(finite.size(), 2u);
  EXPECT_EQ(mpfr_get_d(finite.data()[1], MPFR_RNDN), 2.0);
  test::MpfrValues all(xs);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_TRUE(mpfr_nan_p(all.data()[1]));
  EXPECT_EQ(mpfr_get_d(all.data()[3], MPFR_RNDN), -std::numeric_limits<double>::infinity());
}

TEST(TestingSeed, FixedWithoutTheVariableAndDerivedWithIt) {
  unsetenv("ACCUCHECK_TEST_SEED");
  EXPECT_EQ(test::test_seed(17), 17u);
  setenv("ACCUCHECK_TEST_SEED", "", 1);
  EXPECT_EQ(test::test_seed(17), 17u);
  setenv("ACCUCHECK_TEST_SEED", "5", 1);
  EXPECT_EQ(test::test_seed(17), splitmix64(5 ^ splitmix64(17)));
  EXPECT_NE(test::test_seed(17), test::test_seed(18));
  setenv("ACCUCHECK_TEST_SEED", "18446744073709551615", 1);
  EXPECT_EQ(test::test_seed(0), splitmix64(~std::uint64_t{0} ^ splitmix64(0)));
  setenv("ACCUCHECK_TEST_SEED", "random", 1);
  EXPECT_EQ(test::test_seed(3), test::test_seed(3)) << "one draw per process";
  for (const char* bad : {"12x", "-1", "18446744073709551616", " 7", "seed"}) {
    setenv("ACCUCHECK_TEST_SEED", bad, 1);
    EXPECT_THROW(test::test_seed(1), std::invalid_argument) << bad;
  }
  unsetenv("ACCUCHECK_TEST_SEED");
}

TEST(TestingWorkloads, BuildersMakeValidWorkloadsFromTheirSeeds) {
  const DenseWorkload column = test::column_workload(Format::f16, {2.0, -1.0, 0.5});
  EXPECT_EQ(column.elements, 1u);
  EXPECT_EQ(column.steps, 2u);
  EXPECT_EQ(column.initial, std::vector<double>({2.0}));
  EXPECT_EQ(column.addends, std::vector<double>({-1.0, 0.5}));
  for (Format f : all_formats)
    for (auto values : {test::Values::ordinary, test::Values::with_extremes}) {
      const DenseWorkload w = test::random_dense(f, 5, 40, 9, values);
      EXPECT_EQ(w.validate(), "") << name(f);
      EXPECT_TRUE(w == test::random_dense(f, 5, 40, 9, values)) << "a function of the seed";
      EXPECT_FALSE(w == test::random_dense(f, 5, 40, 10, values));
    }
  const SparseWorkload s = test::random_sparse(Format::bf16, 4);
  EXPECT_EQ(s.validate(), "");
  EXPECT_EQ(s.pairs(), 20u);
  for (std::uint32_t row : s.row_index) EXPECT_LT(row, 5u) << "rows 5 and 6 stay untouched";
  EXPECT_EQ(test::random_product(3, 2, 4, 2, 1, true).validate(), "");
}

// The heights of the order models for small n, counted by hand.
TEST(TestingOrderModels, DepthsByHand) {
  const std::vector<test::Depth> leaves(16, test::Depth{});
  EXPECT_EQ(test::model_numpy(leaves.data(), 7).depth, 6);  // a chain
  EXPECT_EQ(test::model_numpy(leaves.data(), 8).depth, 3);  // the 3-level tree
  EXPECT_EQ(test::model_numpy(leaves.data(), 9).depth, 4);  // the tree, then the ninth term
  EXPECT_EQ(test::model_blocked(leaves.data(), 16, 4).depth, 3 + 3);
  EXPECT_EQ(test::model_lanes8(leaves.data(), 3).depth, 2);  // empty lanes cost nothing
  EXPECT_EQ(test::model_halving(16).depth, 4);
  const float x[] = {1.0f, 0x1p-24f, 0x1p-24f};
  EXPECT_EQ(test::model_numpy(x, 3), 1.0f) << "left to right: both ties go to 1";
}

}  // namespace
}  // namespace accucheck
