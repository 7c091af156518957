// Tests of the exact oracle (exact.h): hand-computed cases in every format, special values,
// signed zeros, condition numbers (against MPFR), fixed_hex, and an independent integer
// fixed-point path for narrow formats.
#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "accucheck/testing/bits.h"
#include "accucheck/testing/mpfr.h"
#include "accucheck/testing/seed.h"
#include "numerics/exact.h"
#include "numerics/format.h"
#include "numerics/number_parse.h"

namespace accucheck {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using test::same_bits;
using test::test_seed;

ExactSum sum_of(const std::vector<double>& xs) { return boost_exact_sum(xs); }

// 2^e as a FixedInt (e >= -1074).
FixedInt pow2(int e) { return FixedInt(1) << (e + fixed_scale); }

TEST(ExactOracle, ToFixed) {
  EXPECT_EQ(to_fixed(1.0), pow2(0));
  EXPECT_EQ(to_fixed(-1.0), -pow2(0));
  EXPECT_EQ(to_fixed(0x1p-1074), FixedInt(1));
  EXPECT_EQ(to_fixed(0x1.8p-1073), FixedInt(3));
  EXPECT_EQ(to_fixed(0x1p-1022), pow2(-1022));
  EXPECT_EQ(to_fixed(0.0), FixedInt(0));
  EXPECT_EQ(to_fixed(-0.0), FixedInt(0));
  EXPECT_EQ(to_fixed(DBL_MAX), (pow2(1024) - pow2(971)));
  EXPECT_EQ(to_fixed(0.1), FixedInt(0x1999999999999aULL) << (1074 - 56));
}

TEST(ExactOracle, TiesAtThePrecisionLimit) {
  const double two53 = 0x1p53;
  EXPECT_EQ(sum_of({two53, 1}).rounded(Format::f64), two53);
  EXPECT_EQ(sum_of({two53, 3}).rounded(Format::f64), two53 + 4);
  EXPECT_EQ(sum_of({two53, 1, 0x1p-1074}).rounded(Format::f64), two53 + 2);  // sticky bit far below
  EXPECT_EQ(sum_of({two53, 1, -0x1p-1074}).rounded(Format::f64), two53);
  EXPECT_EQ(sum_of({two53 + 2, 1}).rounded(Format::f64), two53 + 4);  // tie, odd below: up
  EXPECT_EQ(sum_of({-two53, -1}).rounded(Format::f64), -two53);
  EXPECT_EQ(sum_of({-two53, -3}).rounded(Format::f64), -two53 - 4);
  EXPECT_EQ(sum_of({two53, 1}).sum, pow2(53) + pow2(0));
  // The same in each narrow format: 2^p + 1 ties down, 2^p + 3 ties up.
  EXPECT_EQ(sum_of({0x1p24, 1}).rounded(Format::f32), 0x1p24);
  EXPECT_EQ(sum_of({0x1p24, 3}).rounded(Format::f32), 0x1p24 + 4);
  EXPECT_EQ(sum_of({2048, 1}).rounded(Format::f16), 2048.0);
  EXPECT_EQ(sum_of({2048, 3}).rounded(Format::f16), 2052.0);
  EXPECT_EQ(sum_of({256, 1}).rounded(Format::bf16), 256.0);
  EXPECT_EQ(sum_of({256, 3}).rounded(Format::bf16), 260.0);
  EXPECT_EQ(sum_of({256, 1, 0x1p-133}).rounded(Format::bf16), 258.0);
  // Subnormal ties in f16: 1.5 and 2.5 units of 2^-24.
  EXPECT_EQ(sum_of({0x1p-24, 0x1p-25}).rounded(Format::f64), 0x1.8p-24);
  EXPECT_EQ(sum_of({0x1p-24, 0x1p-25}).rounded(Format::f16), 0x1p-23);
  EXPECT_EQ(sum_of({0x1p-23, 0x1p-25}).rounded(Format::f16), 0x1p-23);
  EXPECT_TRUE(same_bits(sum_of({0x1p-25}).rounded(Format::f16), 0.0));
  EXPECT_TRUE(same_bits(sum_of({-0x1p-25}).rounded(Format::f16), -0.0));  // negative tiny: -0
  EXPECT_TRUE(same_bits(sum_of({-0x1p-1074}).rounded(Format::f32), -0.0));
}

TEST(ExactOracle, OverflowEdges) {
  // DBL_MAX = (2^53 - 1) 2^971: odd significand, so adding half its ulp (2^970) ties up to 2^1024.
  EXPECT_EQ(sum_of({DBL_MAX, 0x1p970}).rounded(Format::f64), kInf);
  EXPECT_EQ(sum_of({DBL_MAX, 0x1p970, -0x1p-1074}).rounded(Format::f64), DBL_MAX);
  EXPECT_EQ(sum_of({DBL_MAX, 0x1p969}).rounded(Format::f64), DBL_MAX);
  EXPECT_EQ(sum_of({DBL_MAX, 0x1p969, 0x1p969}).rounded(Format::f64), kInf);
  EXPECT_EQ(sum_of({DBL_MAX, DBL_MAX}).rounded(Format::f64), kInf);
  EXPECT_EQ(sum_of({DBL_MAX, DBL_MAX, -DBL_MAX}).rounded(Format::f64), DBL_MAX);  // exact, no intermediate
  EXPECT_EQ(sum_of({-DBL_MAX, -0x1p970}).rounded(Format::f64), -kInf);
  EXPECT_EQ(sum_of({-DBL_MAX, -0x1p970, 0x1p-1074}).rounded(Format::f64), -DBL_MAX);
  EXPECT_EQ(sum_of({-DBL_MAX, -0x1p969}).rounded(Format::f64), -DBL_MAX);
  EXPECT_EQ(sum_of({DBL_MAX, 0x1p970}).sum, pow2(1024) - pow2(970));
  // f32: FLT_MAX ulp 2^104; f16: 65504 ulp 32; bf16: 0x1.fep127 ulp 2^120.
  EXPECT_EQ(sum_of({FLT_MAX, 0x1p103}).rounded(Format::f32), kInf);
  EXPECT_EQ(sum_of({FLT_MAX, 0x1p102}).rounded(Format::f32), static_cast<double>(FLT_MAX));
  EXPECT_EQ(sum_of({-FLT_MAX, -0x1p103}).rounded(Format::f32), -kInf);
  EXPECT_EQ(sum_of({65504, 16}).rounded(Format::f16), kInf);
  EXPECT_EQ(sum_of({65504, 15}).rounded(Format::f16), 65504.0);
  EXPECT_EQ(sum_of({65504, 8, 8, -0x1p-24}).rounded(Format::f16), 65504.0);
  EXPECT_EQ(sum_of({-65504, -16}).rounded(Format::f16), -kInf);
  EXPECT_EQ(sum_of({0x1.fep127, 0x1p119}).rounded(Format::bf16), kInf);
  EXPECT_EQ(sum_of({0x1.fep127, 0x1p118}).rounded(Format::bf16), 0x1.fep127);
  // Sums far beyond the f64 range stay exact: 4 * DBL_MAX - 3 * DBL_MAX.
  EXPECT_EQ(sum_of({DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX, -DBL_MAX}).rounded(Format::f64), DBL_MAX);
}

TEST(ExactOracle, TelescopingSums) {
  // Every power of two of f64, 2^-1074 .. 2^1023: the sum 2^1024 - 2^-1074 (overflows f64),
  // minus DBL_MAX = 2^1024 - 2^971 gives 2^971 - 2^-1074, which rounds to 2^971.
  std::vector<double> powers;
  for (int e = -1074; e <= 1023; ++e) powers.push_back(std::ldexp(1.0, e));
  const ExactSum all = sum_of(powers);
  EXPECT_EQ(all.sum, pow2(1024) - FixedInt(1));
  EXPECT_EQ(all.rounded(Format::f64), kInf);
  powers.push_back(-DBL_MAX);
  EXPECT_EQ(sum_of(powers).rounded(Format::f64), 0x1p971);
  EXPECT_EQ(sum_of(powers).sum, pow2(971) - FixedInt(1));

  // t0 - t1 + t1 - t2 + ... - tN, intermediates arbitrary values of the format, shuffled:
  // the exact sum is t0 - tN.
  std::mt19937_64 rng(test_seed(5));
  for (Format f : all_formats) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> xs = {1.5};
      for (int i = 0; i < 500; ++i) {
        const double t = round_to_format(
            std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53), static_cast<int>(rng() % 20) - 10), f);
        xs.push_back(-t);
        xs.push_back(t);
      }
      xs.push_back(-3.0);  // t_N = 3
      std::shuffle(xs.begin(), xs.end(), rng);
      const ExactSum s = sum_of(xs);
      EXPECT_EQ(s.sum, -(pow2(0) + pow2(-1)));
      EXPECT_EQ(s.rounded(f), -1.5);
      EXPECT_EQ(s.count, xs.size());
    }
  }
}

TEST(ExactOracle, SignedZeros) {
  EXPECT_TRUE(same_bits(sum_of({1.5, -1.5}).rounded(Format::f64), 0.0));
  EXPECT_TRUE(same_bits(sum_of({-1.5, 1.5}).rounded(Format::f16), 0.0));
  EXPECT_TRUE(same_bits(sum_of({-0.0, -0.0, -0.0}).rounded(Format::f32), -0.0));
  EXPECT_TRUE(same_bits(sum_of({-0.0}).rounded(Format::bf16), -0.0));
  EXPECT_TRUE(same_bits(sum_of({0.0, -0.0}).rounded(Format::f64), 0.0));
  EXPECT_TRUE(same_bits(sum_of({-0.0, 0.0}).rounded(Format::f64), 0.0));
  EXPECT_TRUE(same_bits(sum_of({-0.0, 1.0, -1.0}).rounded(Format::f64), 0.0));
  EXPECT_TRUE(same_bits(sum_of({-1.0, 1.0, -0.0}).rounded(Format::f64), 0.0));
  EXPECT_TRUE(same_bits(sum_of({-DBL_MAX, DBL_MAX, -0x1p-1074, 0x1p-1074}).rounded(Format::f64), 0.0));
  EXPECT_TRUE(same_bits(ExactSum{}.rounded(Format::f64), 0.0));  // no addends: +0
  for (Format f : all_formats) EXPECT_TRUE(same_bits(sum_of(std::vector<double>(1000, -0.0)).rounded(f), -0.0));
  const ExactSum z = sum_of({-0.0, -0.0});
  EXPECT_TRUE(z.all_negative_zero);
  EXPECT_EQ(z.count, 2u);
  EXPECT_EQ(z.sum, 0);
  EXPECT_EQ(z.abs_sum, 0);
}

TEST(ExactOracle, SubnormalOnlySums) {
  EXPECT_EQ(sum_of(std::vector<double>(1000, 0x1p-1074)).rounded(Format::f64), 1000 * 0x1p-1074);
  EXPECT_EQ(sum_of(std::vector<double>(1000, 0x1p-1074)).sum, FixedInt(1000));
  // Subnormal + subnormal crossing into the normal range, exactly.
  EXPECT_EQ(sum_of({0x1.ffffffffffffep-1023, 0x1p-1074}).rounded(Format::f64), 0x1p-1022);
  EXPECT_EQ(sum_of({0x1.ffffffffffffep-1023, 0x1p-1074, 0x1p-1074}).rounded(Format::f64), 0x1.0000000000001p-1022);
  EXPECT_EQ(sum_of({0x1p-149, 0x1p-149, 0x1p-149}).rounded(Format::f32), 0x1.8p-148);
  EXPECT_EQ(sum_of({0x1p-24, 0x1p-24, 0x1p-24, 0x1p-24, 0x1p-24}).rounded(Format::f16), 5 * 0x1p-24);
  EXPECT_EQ(sum_of({0x1p-133, -0x1p-132, 0x1p-131}).rounded(Format::bf16), 3 * 0x1p-133);
  EXPECT_EQ(sum_of({0x1.ffcp-15, 0x1p-24}).rounded(Format::f16), 0x1p-14);  // largest subnormal + 1 unit
  // Alternating tiny values that cancel.
  std::vector<double> alternating;
  for (int i = 0; i < 999; ++i) alternating.push_back(i % 2 ? -0x1p-1074 : 0x1p-1074);
  EXPECT_EQ(sum_of(alternating).rounded(Format::f64), 0x1p-1074);
  EXPECT_EQ(sum_of(alternating).abs_sum, FixedInt(999));
}

TEST(ExactOracle, MillionAddends) {
  // 0.1f = 13421773 * 2^-27; 10^6 copies sum to 13421773 * 10^6 * 2^-27 exactly
  // = 100000.00149011612..., which is 100000 in f32 (ulp 2^-7 there).
  const float tenth = 0.1f;
  ASSERT_EQ(static_cast<double>(tenth), 13421773 * 0x1p-27);
  BoostExactAccumulator accumulator;
  for (int i = 0; i < 1000000; ++i) accumulator.add(tenth);
  const ExactSum s = accumulator.result();
  EXPECT_EQ(s.count, 1000000u);
  EXPECT_EQ(s.sum, FixedInt(13421773000000ULL) << (fixed_scale - 27));
  EXPECT_EQ(s.abs_sum, s.sum);
  EXPECT_EQ(s.rounded(Format::f64), 13421773000000.0 * 0x1p-27);
  EXPECT_EQ(s.rounded(Format::f32), 100000.0);
  EXPECT_EQ(s.rounded(Format::f16), kInf);
  EXPECT_EQ(s.rounded(Format::bf16), 99840.0);  // bf16 spacing 512 at 2^16: 99840 and 100352
  EXPECT_EQ(s.condition_number(), 1.0);
  EXPECT_EQ(s.max_abs, static_cast<double>(tenth));
}

TEST(ExactOracle, SpecialValues) {
  EXPECT_EQ(sum_of({1, kNaN}).special, Special::nan);
  EXPECT_EQ(sum_of({kInf, -kInf}).special, Special::nan);
  EXPECT_EQ(sum_of({-kInf, 1, kInf}).special, Special::nan);
  EXPECT_EQ(sum_of({kInf, 1}).special, Special::pos_inf);
  EXPECT_EQ(sum_of({kInf, kInf, -DBL_MAX}).special, Special::pos_inf);
  EXPECT_EQ(sum_of({-kInf, 2, -kInf}).special, Special::neg_inf);
  EXPECT_EQ(sum_of({kNaN, kInf}).special, Special::nan);
  EXPECT_EQ(sum_of({1, 2}).special, Special::none);
  for (Format f : all_formats) {
    EXPECT_TRUE(std::isnan(sum_of({1, kNaN}).rounded(f)));
    EXPECT_TRUE(std::isnan(sum_of({kInf, -kInf}).rounded(f)));
    EXPECT_EQ(sum_of({kInf, -5}).rounded(f), kInf);
    EXPECT_EQ(sum_of({-kInf, 5}).rounded(f), -kInf);
  }
  const ExactSum s = sum_of({kInf, 2.0, -0.5});
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.sum, pow2(0) + pow2(-1));  // the finite addends
  EXPECT_TRUE(std::isnan(s.condition_number()));
  EXPECT_EQ(name(Special::nan), "nan");
  EXPECT_EQ(name(Special::pos_inf), "+inf");
  EXPECT_EQ(name(Special::neg_inf), "-inf");
}

// MPFR's correctly rounded A / |S| from the exact fixed-point integers.
double mpfr_ratio(const FixedInt& a, const FixedInt& s) {
  mpfr_t fa, fs, q;
  mpfr_inits2(4000, fa, fs, static_cast<mpfr_ptr>(nullptr));  // exact: both scale by 2^-1074
  mpfr_init2(q, 53);
  test::set_mpfr(fa, a);
  test::set_mpfr(fs, s < 0 ? FixedInt(-s) : s);
  mpfr_div(q, fa, fs, MPFR_RNDN);
  const double result = mpfr_get_d(q, MPFR_RNDN);
  mpfr_clears(fa, fs, q, static_cast<mpfr_ptr>(nullptr));
  return result;
}

TEST(ExactOracle, ConditionNumber) {
  EXPECT_EQ(sum_of({1, -1}).condition_number(), kInf);
  EXPECT_EQ(sum_of({}).condition_number(), 1.0);
  EXPECT_EQ(sum_of({0.0, -0.0}).condition_number(), 1.0);
  EXPECT_EQ(sum_of({3, -1}).condition_number(), 2.0);
  EXPECT_EQ(sum_of({1, 1}).condition_number(), 1.0);
  EXPECT_EQ(sum_of({-1, -2}).condition_number(), 1.0);
  EXPECT_EQ(sum_of({2, -1}).condition_number(), 3.0);
  EXPECT_EQ(sum_of({1e300, -1e300, 0x1p-1074}).condition_number(), kInf);  // A / 2^-1074 overflows
  EXPECT_EQ(sum_of({2, -1, 0x1p-1074}).condition_number(), 3.0);
  EXPECT_EQ(sum_of({1, 2}).condition_number(), 1.0);
  EXPECT_EQ(sum_of({4, -1}).condition_number(), 5.0 / 3.0);
  // A / |S| = (1 + 2^-53) + 1/(3 * 2^70): just above the midpoint between 1 and 1 + 2^-52,
  // so the nearest double is 1 + 2^-52 (a quotient truncated to 64 bits would tie to 1).
  ExactSum hand;
  hand.sum = FixedInt(3) << 70;
  hand.abs_sum = ((FixedInt(3) * ((FixedInt(1) << 53) + 1)) << 17) + 1;
  hand.count = 2;
  hand.all_negative_zero = false;
  EXPECT_EQ(hand.condition_number(), 1.0 + 0x1p-52);
  EXPECT_EQ(mpfr_ratio(hand.abs_sum, hand.sum), 1.0 + 0x1p-52);
  hand.abs_sum -= 2;  // now just below the midpoint
  EXPECT_EQ(hand.condition_number(), 1.0);
  // Random cancelling sums against MPFR's correctly rounded quotient.
  std::mt19937_64 rng(test_seed(17));
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<double> xs;
    const int n = 2 + static_cast<int>(rng() % 6);
    for (int i = 0; i < n; ++i) {
      double x = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 200) - 150);
      xs.push_back(rng() & 1 ? -x : x);
    }
    if (trial % 3 == 0) xs.push_back(-xs[0] + std::ldexp(1.0, static_cast<int>(rng() % 40) - 20));
    const ExactSum s = sum_of(xs);
    if (s.sum == 0) continue;
    ASSERT_EQ(s.condition_number(), mpfr_ratio(s.abs_sum, s.sum)) << "trial " << trial;
  }
}

// Parses fixed_hex back and checks it names the same exact value with an odd significand.
void expect_fixed_hex_round_trip(const FixedInt& value) {
  const std::string text = fixed_hex(value);
  const auto parsed = parse_number(text);
  ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.error;
  ASSERT_EQ(parsed.number.exponent10, 0);
  if (value == 0) {
    EXPECT_EQ(text, "0x0p+0");
    return;
  }
  EXPECT_EQ(parsed.number.negative, value < 0) << text;
  EXPECT_TRUE(boost::multiprecision::bit_test(parsed.number.mantissa, 0)) << text << " significand is even";
  const std::int64_t shift = parsed.number.exponent2 + fixed_scale;
  ASSERT_GE(shift, 0) << text;
  FixedInt back = FixedInt(parsed.number.mantissa) << static_cast<unsigned>(shift);
  if (parsed.number.negative) back = -back;
  EXPECT_EQ(back, value) << text;
  // The text is a C99 hex float: strtod agrees when the value is a double.
  const double nearest = nearest_double(value);
  if (std::isfinite(nearest) && to_fixed(nearest) == value)
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), nearest) << text;
}

TEST(ExactOracle, FixedHex) {
  EXPECT_EQ(fixed_hex(FixedInt(0)), "0x0p+0");
  EXPECT_EQ(fixed_hex(to_fixed(1.5)), "0x3p-1");
  EXPECT_EQ(fixed_hex(to_fixed(-0.75)), "-0x3p-2");
  EXPECT_EQ(fixed_hex(to_fixed(1.0)), "0x1p+0");
  EXPECT_EQ(fixed_hex(to_fixed(0x1p-1074)), "0x1p-1074");
  EXPECT_EQ(fixed_hex(to_fixed(DBL_MAX)), "0x1fffffffffffffp+971");
  EXPECT_EQ(fixed_hex(to_fixed(96.0)), "0x3p+5");
  EXPECT_EQ(fixed_hex(FixedInt(0xabc)), "0x2afp-1072");  // 0xabc = 0x2af * 4
  EXPECT_EQ(fixed_hex(pow2(1024) - FixedInt(1)), "0x3" + std::string(2098 / 4, 'f') + "p-1074");
  for (const FixedInt& v : {FixedInt(1), FixedInt(-1), pow2(1100), -pow2(1100) - 1, to_fixed(0.1), to_fixed(-1e-310)})
    expect_fixed_hex_round_trip(v);
  std::mt19937_64 rng(test_seed(23));
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> xs;
    for (int i = 0; i < 5; ++i) {
      const double x = std::bit_cast<double>(rng());
      if (std::isfinite(x)) xs.push_back(x);
    }
    const ExactSum s = sum_of(xs);
    expect_fixed_hex_round_trip(s.sum);
    expect_fixed_hex_round_trip(s.abs_sum);
  }
}

TEST(ExactOracle, AbsSumCountMaxAbs) {
  const ExactSum s = sum_of({-3.0, 0.5, -0.0, 2.0, kInf});
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.abs_sum, pow2(2) + pow2(0) + pow2(-1));  // 5.5
  EXPECT_EQ(s.sum, -pow2(-1));                         // -0.5
  EXPECT_EQ(s.max_abs, 3.0);
  EXPECT_FALSE(s.all_negative_zero);
  EXPECT_EQ(s.special, Special::pos_inf);
  BoostExactAccumulator incremental;
  incremental.add(1.0);
  EXPECT_EQ(incremental.result().sum, pow2(0));
  incremental.add(std::vector<double>{2.0, -4.0});  // result() may be called, then more added
  EXPECT_EQ(incremental.result().sum, -pow2(0));
  EXPECT_EQ(incremental.result().count, 3u);
}

// Independent path for narrow formats: values of f in a limited exponent range are integer
// multiples of a fixed quantum, so __int128 sums are exact; rounding through round_to_format
// when the integer is exactly a double.
TEST(ExactOracle, NarrowFormatsAgainstIntegerSums) {
  std::mt19937_64 rng(test_seed(29));
  struct Range {
    Format f;
    int lo, hi;
  };
  for (const Range r : {Range{Format::f16, -24, 15}, Range{Format::bf16, -40, 40}, Range{Format::f32, -40, 40},
                        Range{Format::f64, -20, 20}}) {
    const int p = traits(r.f).precision;
    const int quantum = std::max(r.lo, traits(r.f).emin) - p + 1;
    for (int trial = 0; trial < 300; ++trial) {
      const int n = 1 + static_cast<int>(rng() % 400);
      std::vector<double> xs;
      __int128 total = 0, total_abs = 0;
      for (int i = 0; i < n; ++i) {
        const int e = r.lo + static_cast<int>(rng() % (r.hi - r.lo + 1));
        double x = round_to_format(std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53), e), r.f);
        if (!std::isfinite(x)) x = largest_finite(r.f);
        if (rng() & 1) x = -x;
        xs.push_back(x);
        const double units = std::ldexp(x, -quantum);  // an integer below 2^(hi - quantum + 1)
        ASSERT_EQ(units, std::trunc(units));
        ASSERT_LT(std::fabs(units), 0x1p110);
        const __int128 u = static_cast<__int128>(units);
        total += u;
        total_abs += u < 0 ? -u : u;
      }
      const ExactSum s = sum_of(xs);
      const bool negative = total < 0;
      const unsigned __int128 magnitude = negative ? -static_cast<unsigned __int128>(total) : total;
      FixedInt expected = FixedInt(static_cast<std::uint64_t>(magnitude >> 64)) << 64;
      expected += static_cast<std::uint64_t>(magnitude);
      expected <<= (quantum + fixed_scale);
      if (negative) expected = -expected;
      ASSERT_EQ(s.sum, expected);
      ASSERT_EQ(s.abs_sum, (FixedInt(static_cast<std::uint64_t>(total_abs >> 64)) << 64 |
                            FixedInt(static_cast<std::uint64_t>(total_abs)))
                               << (quantum + fixed_scale));
      const double as_double = static_cast<double>(total);
      if (static_cast<__int128>(as_double) == total) {
        const double value = std::ldexp(as_double, quantum);  // exact
        const double expected_rounded = total == 0 ? 0.0 : round_to_format(value, r.f);
        ASSERT_TRUE(same_bits(s.rounded(r.f), expected_rounded)) << name(r.f) << " " << value;
      }
    }
  }
}

}  // namespace
}  // namespace accucheck
