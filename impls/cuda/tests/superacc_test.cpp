// exact/superacc.h (the deposit and rounding code the device reductions run) on the CPU, against
// core's exact oracle (FastExactAccumulator, itself cross-checked against Boost and MPFR), on
// adversarial inputs: every exponent, subnormals, massive cancellation, sums at rounding ties of
// every target format, near-overflow sums, special values and zero signs, and long sums that
// cross the normalization interval. The device kernels are checked on a GPU by
// cuda_exact_device_test (label gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "accucheck/testing/bits.h"
#include "accucheck/testing/seed.h"
#include "cuda/exact/superacc.h"
#include "numerics/fast_exact.h"
#include "numerics/format.h"

namespace accucheck {
namespace {

namespace hd = exact_hd;

constexpr Format kFormats[] = {Format::f64, Format::f32, Format::f16, Format::bf16};

hd::Target target(Format f) {
  switch (f) {
    case Format::f64: return hd::kF64;
    case Format::f32: return hd::kF32;
    case Format::f16: return hd::kF16;
    case Format::bf16: return hd::kBF16;
    case Format::e4m3:
    case Format::e5m2: break;  // not in kFormats
  }
  return hd::kF64;
}

using test::same_bits;

// Deposits every value through the double path (and, when every value is a float, separately
// through the float path) and compares each rounding with the oracle's.
void expect_matches_oracle(const std::vector<double>& xs, const std::string& what) {
  FastExactAccumulator oracle;
  oracle.add(std::span<const double>(xs));
  hd::SuperAccumulator by_double, by_float;
  bool all_float = true;
  for (double x : xs) {
    by_double.add(x);
    const float f = static_cast<float>(x);
    if (!(static_cast<double>(f) == x || (std::isnan(x) && std::isnan(f))))
      all_float = false;
    else if (std::signbit(f) != std::signbit(x))
      all_float = false;
    else
      by_float.add(f);
  }
  for (Format f : kFormats) {
    const double want = oracle.rounded(f);
    const double got = by_double.rounded(target(f));
    EXPECT_TRUE(same_bits(got, want)) << what << ": " << name(f) << " via double deposits: got " << hex_float(got)
                                      << ", oracle " << hex_float(want) << " (" << xs.size() << " addends)";
    if (all_float) {
      const double got_float = by_float.rounded(target(f));
      EXPECT_TRUE(same_bits(got_float, want)) << what << ": " << name(f) << " via float deposits: got "
                                              << hex_float(got_float) << ", oracle " << hex_float(want);
    }
  }
}

double random_double(std::mt19937_64& rng, int min_exp, int max_exp) {
  std::uniform_int_distribution<int> e(min_exp, max_exp);
  std::uniform_real_distribution<double> m(1.0, 2.0);
  const double x = std::ldexp(m(rng), e(rng));
  return (rng() & 1) ? -x : x;
}

TEST(SuperAccumulator, SingleValuesRoundLikeTheOracle) {
  std::vector<double> specials = {0.0,
                                  -0.0,
                                  1.0,
                                  -1.0,
                                  std::numeric_limits<double>::denorm_min(),
                                  -std::numeric_limits<double>::denorm_min(),
                                  std::numeric_limits<double>::min(),
                                  std::numeric_limits<double>::max(),
                                  -std::numeric_limits<double>::max(),
                                  static_cast<double>(std::numeric_limits<float>::denorm_min()),
                                  static_cast<double>(FLT_MIN),
                                  static_cast<double>(FLT_MAX),
                                  65504.0,
                                  65520.0,  // f16: a tie between 65504 and the overflow threshold: rounds to inf
                                  0x1.ffep15,
                                  std::ldexp(1.0, -24),
                                  std::ldexp(1.0, -25),  // half the smallest f16 subnormal: a tie, rounds to 0
                                  std::ldexp(3.0, -26),  // 0.75 of it: rounds up
                                  std::ldexp(1.0, -150),
                                  std::ldexp(3.0, -151),
                                  0x1.fffffffffffffp+1023};
  for (double x : specials) expect_matches_oracle({x}, "single " + hex_float(x));
}

TEST(SuperAccumulator, RandomSumsAcrossTheWholeRange) {
  std::mt19937_64 rng(test::test_seed(20240601));
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 60);
    const int lo = -1074 + static_cast<int>(rng() % 1000), hi = lo + static_cast<int>(rng() % 1000);
    std::vector<double> xs;
    for (int i = 0; i < n; ++i) xs.push_back(random_double(rng, lo, std::min(hi, 1020)));
    expect_matches_oracle(xs, "random trial " + std::to_string(trial));
  }
}

TEST(SuperAccumulator, FloatsOfEveryExponent) {
  std::mt19937_64 rng(test::test_seed(7));
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<double> xs;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const auto bits = static_cast<std::uint32_t>(rng());
      float f;
      std::memcpy(&f, &bits, sizeof f);
      if (!std::isfinite(f)) f = 0.0f;
      xs.push_back(f);
    }
    expect_matches_oracle(xs, "float trial " + std::to_string(trial));
  }
}

TEST(SuperAccumulator, MassiveCancellationLeavesTheTinyRemainder) {
  std::mt19937_64 rng(test::test_seed(11));
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> xs;
    const int n = 2 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      const double x = random_double(rng, -200, 1000);
      xs.push_back(x);
      xs.push_back(-x);
    }
    xs.push_back(random_double(rng, -1074, -900));  // what survives
    if (trial % 2) xs.push_back(std::numeric_limits<double>::denorm_min());
    std::shuffle(xs.begin(), xs.end(), rng);
    expect_matches_oracle(xs, "cancellation trial " + std::to_string(trial));
  }
}

TEST(SuperAccumulator, TiesOfEveryTargetFormat) {
  // 1 + half an ulp of the target (a tie, rounding to even 1), plus or minus a tiny sticky part,
  // and the same one ulp up (a tie rounding up to even), at several binades.
  for (Format f : kFormats) {
    const int p = traits(f).precision;
    for (int scale : {0, -100, 60, traits(f).emin, traits(f).emax - 1}) {
      const double one = std::ldexp(1.0, scale), half_ulp = std::ldexp(1.0, scale - p);
      expect_matches_oracle({one, half_ulp}, std::string(name(f)) + " tie to even");
      expect_matches_oracle({one, half_ulp, std::ldexp(1.0, scale - p - 60)}, std::string(name(f)) + " tie + sticky");
      expect_matches_oracle({one, half_ulp, -std::ldexp(1.0, scale - p - 60)}, std::string(name(f)) + " tie - sticky");
      expect_matches_oracle({one, 2 * half_ulp, half_ulp}, std::string(name(f)) + " tie to even up");
      expect_matches_oracle({-one, -half_ulp}, std::string(name(f)) + " negative tie");
    }
    // Subnormal ties of the target.
    const double sub = smallest_subnormal(f);
    expect_matches_oracle({sub / 2}, std::string(name(f)) + " half the smallest subnormal");
    expect_matches_oracle({sub, sub / 2}, std::string(name(f)) + " 1.5 subnormals");
    expect_matches_oracle({-sub / 2, -std::ldexp(sub, -70)}, std::string(name(f)) + " above half a subnormal");
    // Overflow thresholds: largest + half an ulp rounds to infinity, a hair less does not.
    const double big = largest_finite(f), half = ulp(big, f) / 2;
    expect_matches_oracle({big, half}, std::string(name(f)) + " overflow tie");
    expect_matches_oracle({big, half, -std::ldexp(half, -80)}, std::string(name(f)) + " just below overflow");
    expect_matches_oracle({-big, -big}, std::string(name(f)) + " negative overflow");
  }
  // f64 overflow through many addends of the largest value, and back.
  expect_matches_oracle({DBL_MAX, DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX}, "partial sums beyond DBL_MAX");
}

TEST(SuperAccumulator, SpecialValuesAndZeroSigns) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  expect_matches_oracle({-0.0}, "-0");
  expect_matches_oracle({-0.0, -0.0, -0.0}, "all -0");
  expect_matches_oracle({-0.0, 0.0}, "-0 + +0");
  expect_matches_oracle({1.0, -1.0}, "exact cancellation");
  expect_matches_oracle({-1.0, 1.0, -0.0}, "exact cancellation with -0");
  expect_matches_oracle({inf, 1.0}, "+inf");
  expect_matches_oracle({-inf, 1.0}, "-inf");
  expect_matches_oracle({inf, -inf}, "inf - inf");
  expect_matches_oracle({nan, 1.0}, "NaN");
  expect_matches_oracle({1.0, nan, inf}, "NaN and inf");
  expect_matches_oracle({DBL_MAX, DBL_MAX, inf}, "finite overflow and +inf");
}

TEST(SuperAccumulator, LongSumsCrossTheNormalizationInterval) {
  std::mt19937_64 rng(test::test_seed(3));
  for (int n : {hd::kMaxDeposits - 1, hd::kMaxDeposits, hd::kMaxDeposits + 1, 5000, 70000}) {
    std::vector<double> xs;
    for (int i = 0; i < n; ++i) xs.push_back(i % 3 == 0 ? DBL_MAX / 4 : random_double(rng, -1074, 1000));
    for (int i = 0; i < n / 3; ++i) xs.push_back(-DBL_MAX / 4);  // the same number of huge ones cancels
    expect_matches_oracle(xs, "long sum n=" + std::to_string(n));
    std::vector<double> same_sign(n, std::ldexp(1.0, 1010));  // past DBL_MAX from n = 2^14 on: infinity
    expect_matches_oracle(same_sign, "long same-sign sum n=" + std::to_string(n));
  }
}

TEST(SuperAccumulator, MergeEqualsOneAccumulator) {
  std::mt19937_64 rng(test::test_seed(5));
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> xs;
    for (int i = 0; i < 3000; ++i) xs.push_back(random_double(rng, -1074, 1000));
    hd::SuperAccumulator whole, left, right;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      whole.add(xs[i]);
      (i % 3 ? left : right).add(xs[i]);
    }
    left.merge(right);
    hd::normalize(whole.cell, 1);
    for (int c = 0; c < hd::kChunks; ++c) ASSERT_EQ(left.cell[c], whole.cell[c]) << "cell " << c;
    for (Format f : kFormats) EXPECT_TRUE(same_bits(left.rounded(target(f)), whole.rounded(target(f))));
  }
}

TEST(SuperAccumulator, IntegerDepositsAtEveryAlignment) {
  // The device reductions fold per-block integers (bins of u_k = 2^(pos - 1074)) in with
  // deposit_integer; v 2^(pos-1074) is the exact sum of its two 32-bit halves as doubles.
  std::mt19937_64 rng(test::test_seed(9));
  for (int trial = 0; trial < 2000; ++trial) {
    const auto v = static_cast<std::int64_t>(rng());
    const int pos = static_cast<int>(rng() % (32 * (hd::kChunks - 3) - 1100));
    hd::SuperAccumulator acc;
    hd::deposit_integer(acc.cell, 1, v, pos);
    const double high = std::ldexp(static_cast<double>(v >> 32), pos + 32 - 1074);
    const double low = std::ldexp(static_cast<double>(v & 0xffffffffLL), pos - 1074);
    ASSERT_TRUE(std::isfinite(high) && std::isfinite(low));
    FastExactAccumulator oracle;
    oracle.add(high);
    oracle.add(low);
    acc.flags |= hd::kNotAllNegZero;  // the oracle's addends are +0 at worst, never all -0
    for (Format f : kFormats)
      ASSERT_TRUE(same_bits(acc.rounded(target(f)), oracle.rounded(f)))
          << "v=" << v << " pos=" << pos << " " << name(f);
  }
}

}  // namespace
}  // namespace accucheck
