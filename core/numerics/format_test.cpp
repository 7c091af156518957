// Tests of format.h: exhaustive over every f16 and bf16 bit pattern, against independent
// references (MPFR, the compiler's _Float16, float's bits for bf16, the oracle's round_fixed).
#include <gtest/gtest.h>
#include <mpfr.h>
#include <xmmintrin.h>

#include <bit>
#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "accucheck/testing/bits.h"
#include "accucheck/testing/mpfr.h"
#include "accucheck/testing/seed.h"
#include "numerics/exact.h"
#include "numerics/format.h"
#include "numerics/number_parse.h"
#include "numerics/soft_float.h"

namespace accucheck {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using test::mpfr_round_to_format;
using test::same_bits;
using test::test_seed;

// Round-to-nearest-even of a double into f, by MPFR with the format's exponent range.
double mpfr_reference_round(double x, Format f) {
  return mpfr_round_to_format(f, [x](mpfr_ptr r) { return mpfr_set_d(r, x, MPFR_RNDN); });
}

// The oracle's own rounding path, for finite x; the sign of a zero result follows x.
double fixed_round(double x, Format f) {
  const double r = round_fixed(to_fixed(x), f);
  return x == 0.0 ? x : r;
}

// Independent decoding of a 16-bit pattern from the format's definition.
double reference_decode16(std::uint32_t bits, Format f) {
  if (f == Format::bf16) {  // bf16 is the top half of a binary32
    const std::uint32_t wide = bits << 16;
    float value;
    std::memcpy(&value, &wide, 4);
    return value;
  }
  const std::uint16_t narrow = static_cast<std::uint16_t>(bits);
  _Float16 h;
  std::memcpy(&h, &narrow, 2);
  return static_cast<double>(h);
}

double compiler_round_f16(double x) { return static_cast<double>(static_cast<_Float16>(x)); }

std::string describe(double x) { return hex_float(x); }

// Checks round_to_format(x, f) against MPFR and round_fixed (and _Float16 for f16).
void expect_rounding_agrees(double x, Format f) {
  const double got = round_to_format(x, f);
  const double mpfr = mpfr_reference_round(x, f);
  ASSERT_TRUE(same_bits(got, mpfr)) << name(f) << " x=" << describe(x) << " got " << describe(got) << " mpfr "
                                    << describe(mpfr);
  if (std::isfinite(x)) {
    const double fixed = fixed_round(x, f);
    ASSERT_TRUE(same_bits(got, fixed)) << name(f) << " x=" << describe(x) << " got " << describe(got) << " round_fixed "
                                       << describe(fixed);
  }
  if (f == Format::f16) {
    const double compiler = compiler_round_f16(x);
    ASSERT_TRUE(same_bits(got, compiler))
        << "f16 x=" << describe(x) << " got " << describe(got) << " _Float16 " << describe(compiler);
  }
}

const Format kNarrow[] = {Format::f16, Format::bf16};

TEST(FormatConstants, TraitsAndLimits) {
  EXPECT_EQ(traits(Format::f64).precision, 53);
  EXPECT_EQ(traits(Format::f32).precision, 24);
  EXPECT_EQ(traits(Format::f16).precision, 11);
  EXPECT_EQ(traits(Format::bf16).precision, 8);
  EXPECT_EQ(largest_finite(Format::f64), DBL_MAX);
  EXPECT_EQ(smallest_normal(Format::f64), DBL_MIN);
  EXPECT_EQ(smallest_subnormal(Format::f64), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(largest_finite(Format::f32), static_cast<double>(FLT_MAX));
  EXPECT_EQ(smallest_normal(Format::f32), static_cast<double>(FLT_MIN));
  EXPECT_EQ(smallest_subnormal(Format::f32), static_cast<double>(std::numeric_limits<float>::denorm_min()));
  EXPECT_EQ(largest_finite(Format::f16), 65504.0);
  EXPECT_EQ(smallest_normal(Format::f16), 6.103515625e-05);
  EXPECT_EQ(smallest_subnormal(Format::f16), 5.9604644775390625e-08);
  EXPECT_EQ(largest_finite(Format::bf16), 3.3895313892515355e38);
  EXPECT_EQ(largest_finite(Format::bf16), 0x1.fep127);
  EXPECT_EQ(smallest_normal(Format::bf16), 0x1p-126);
  EXPECT_EQ(smallest_subnormal(Format::bf16), 0x1p-133);
  EXPECT_EQ(unit_roundoff_exponent(Format::bf16), -8);
}

TEST(FormatConstants, ParseFormat) {
  EXPECT_EQ(parse_format("f64"), Format::f64);
  EXPECT_EQ(parse_format("f32"), Format::f32);
  EXPECT_EQ(parse_format("f16"), Format::f16);
  EXPECT_EQ(parse_format("bf16"), Format::bf16);
  EXPECT_EQ(parse_format("bfloat16"), Format::bf16);
  EXPECT_EQ(parse_format("half"), Format::f16);
  EXPECT_FALSE(parse_format("f8").has_value());
  EXPECT_FALSE(parse_format("").has_value());
  for (Format f : all_formats) EXPECT_EQ(parse_format(name(f)), f);
}

// Every bit pattern: decode against the independent decoding, encode round trip, rounding
// is the identity on values, classification from the bit fields.
TEST(FormatExhaustive, DecodeEncodeClassify) {
  for (Format f : kNarrow) {
    const auto& t = traits(f);
    const int mantissa_bits = t.precision - 1;
    const std::uint32_t exponent_mask = (1u << t.exponent_bits) - 1;
    for (std::uint32_t bits = 0; bits < 65536; ++bits) {
      const double x = decode(bits, f);
      const double reference = reference_decode16(bits, f);
      ASSERT_TRUE(same_bits(x, reference)) << name(f) << " bits " << bits;
      const std::uint32_t exponent_field = (bits >> mantissa_bits) & exponent_mask;
      const std::uint32_t mantissa_field = bits & ((1u << mantissa_bits) - 1);
      const bool negative = bits >> 15;
      FloatClass expected;
      if (exponent_field == exponent_mask)
        expected = mantissa_field ? FloatClass::nan : FloatClass::infinite;
      else if (exponent_field == 0)
        expected = mantissa_field ? FloatClass::subnormal : FloatClass::zero;
      else
        expected = FloatClass::normal;
      ASSERT_EQ(classify(x, f), expected) << name(f) << " bits " << bits;
      ASSERT_TRUE(representable(x, f));
      if (expected == FloatClass::nan) {
        ASSERT_TRUE(std::isnan(x));
        ASSERT_EQ(std::signbit(x), negative) << name(f) << " bits " << bits;
        const std::uint64_t encoded = encode(x, f);
        ASSERT_LT(encoded, 65536u);
        ASSERT_EQ((encoded >> mantissa_bits) & exponent_mask, exponent_mask);
        ASSERT_NE(encoded & ((1u << mantissa_bits) - 1), 0u);
        ASSERT_EQ(encoded >> 15, negative ? 1u : 0u);
        ASSERT_TRUE(std::isnan(decode(encoded, f)));
        ASSERT_TRUE(std::isnan(round_to_format(x, f)));
        continue;
      }
      ASSERT_EQ(encode(x, f), bits) << name(f) << " " << describe(x);
      ASSERT_TRUE(same_bits(round_to_format(x, f), x)) << name(f) << " " << describe(x);
      expect_rounding_agrees(x, f);
    }
  }
}

TEST(FormatExhaustive, F32AndF64EncodeDecode) {
  std::mt19937_64 rng(test_seed(1));
  for (int i = 0; i < 100000; ++i) {
    const std::uint32_t b32 = static_cast<std::uint32_t>(rng());
    const float x32 = std::bit_cast<float>(b32);
    if (!std::isnan(x32)) {
      ASSERT_EQ(encode(x32, Format::f32), b32);
      ASSERT_TRUE(same_bits(decode(b32, Format::f32), x32));
      ASSERT_TRUE(representable(x32, Format::f32));
    }
    const std::uint64_t b64 = rng();
    const double x64 = std::bit_cast<double>(b64);
    if (!std::isnan(x64)) {
      ASSERT_EQ(encode(x64, Format::f64), b64);
      ASSERT_TRUE(same_bits(decode(b64, Format::f64), x64));
    }
  }
  EXPECT_EQ(encode(-0.0, Format::f32), 0x80000000u);
  EXPECT_EQ(encode(-0.0, Format::f16), 0x8000u);
  EXPECT_EQ(encode(-0.0, Format::bf16), 0x8000u);
  EXPECT_EQ(encode(1.0, Format::f16), 0x3c00u);
  EXPECT_EQ(encode(1.0, Format::bf16), 0x3f80u);
  EXPECT_EQ(encode(65504.0, Format::f16), 0x7bffu);
  EXPECT_EQ(encode(kInf, Format::f16), 0x7c00u);
  EXPECT_EQ(encode(-kInf, Format::bf16), 0xff80u);
  EXPECT_EQ(encode(0x1p-24, Format::f16), 0x0001u);
  EXPECT_EQ(encode(0x1p-133, Format::bf16), 0x0001u);
  EXPECT_EQ(classify(0x1p-1074, Format::f64), FloatClass::subnormal);
  EXPECT_EQ(classify(0x1p-1022, Format::f64), FloatClass::normal);
  EXPECT_EQ(classify(0x1p-127, Format::f32), FloatClass::subnormal);
  EXPECT_EQ(classify(-0.0, Format::f32), FloatClass::zero);
}

// The positive finite values of a 16-bit format in increasing order, then +inf.
std::vector<double> positive_values_and_inf(Format f) {
  std::vector<double> values;
  for (std::uint32_t bits = 0; bits < 0x8000; ++bits) {
    const double x = decode(bits, f);
    if (std::isnan(x)) break;
    values.push_back(x);
  }
  return values;  // ends with +inf (the pattern after the largest finite value)
}

// Every midpoint between neighbours (and between the largest finite value and 2^(emax+1),
// where the even neighbour is infinity) ties to even; nudged by one double ulp it goes to
// the nearer neighbour.
TEST(FormatExhaustive, MidpointsTieToEven) {
  for (Format f : kNarrow) {
    const auto values = positive_values_and_inf(f);
    ASSERT_TRUE(std::isinf(values.back()));
    ASSERT_EQ(values[values.size() - 2], largest_finite(f));
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
      const double a = values[i];
      // The neighbour above; above the largest finite value, 2^(emax+1) stands in for it.
      const double b = std::isinf(values[i + 1]) ? std::ldexp(1.0, traits(f).emax + 1) : values[i + 1];
      const double mid = (a + b) / 2;
      ASSERT_EQ(mid - a, b - mid);  // exact in double
      // Even neighbour: the one whose bit pattern is even (i and i+1 are the patterns).
      const double even = (i % 2 == 0) ? a : values[i + 1];
      for (double sign : {1.0, -1.0}) {
        ASSERT_TRUE(same_bits(round_to_format(sign * mid, f), sign * even))
            << name(f) << " mid " << describe(sign * mid) << " got " << describe(round_to_format(sign * mid, f));
        const double above = std::nextafter(mid, kInf), below = std::nextafter(mid, 0.0);
        ASSERT_TRUE(same_bits(round_to_format(sign * above, f), sign * values[i + 1]))
            << name(f) << " " << describe(above);
        ASSERT_TRUE(same_bits(round_to_format(sign * below, f), sign * a)) << name(f) << " " << describe(below);
        expect_rounding_agrees(sign * mid, f);
        expect_rounding_agrees(sign * above, f);
        expect_rounding_agrees(sign * below, f);
      }
    }
    // Below half the smallest subnormal: zero of the same sign; at half: ties to 0 (even).
    const double half = smallest_subnormal(f) / 2;
    EXPECT_TRUE(same_bits(round_to_format(half, f), 0.0));
    EXPECT_TRUE(same_bits(round_to_format(-half, f), -0.0));
    EXPECT_TRUE(same_bits(round_to_format(std::nextafter(half, 1.0), f), smallest_subnormal(f)));
    EXPECT_TRUE(same_bits(round_to_format(-0x1p-1074, f), -0.0));
  }
}

TEST(FormatRounding, OverflowThreshold) {
  EXPECT_EQ(round_to_format(65520.0, Format::f16), kInf);
  EXPECT_EQ(round_to_format(-65520.0, Format::f16), -kInf);
  EXPECT_EQ(round_to_format(std::nextafter(65520.0, 0.0), Format::f16), 65504.0);
  EXPECT_EQ(round_to_format(65519.99, Format::f16), 65504.0);
  EXPECT_EQ(round_to_format(65535.0, Format::f16), kInf);
  EXPECT_EQ(round_to_format(1e300, Format::f16), kInf);
  EXPECT_EQ(round_to_format(65504.0 + 15.99, Format::f16), 65504.0);
  // bf16: largest 0x1.fep127, midpoint to 2^128 is 0x1.ffp127.
  EXPECT_EQ(round_to_format(0x1.ffp127, Format::bf16), kInf);
  EXPECT_EQ(round_to_format(std::nextafter(0x1.ffp127, 0.0), Format::bf16), 0x1.fep127);
  // f32: largest 0x1.fffffep127, midpoint 0x1.ffffffp127.
  EXPECT_EQ(round_to_format(0x1.ffffffp127, Format::f32), kInf);
  EXPECT_EQ(round_to_format(std::nextafter(0x1.ffffffp127, 0.0), Format::f32), 0x1.fffffep127);
  // f64 is the identity, including the largest value and infinities.
  EXPECT_EQ(round_to_format(DBL_MAX, Format::f64), DBL_MAX);
  EXPECT_TRUE(same_bits(round_to_format(-0.0, Format::f64), -0.0));
  EXPECT_TRUE(std::isnan(round_to_format(std::nan(""), Format::f16)));
  // Small hand cases.
  EXPECT_EQ(round_to_format(0.1, Format::f16), 0.0999755859375);
  EXPECT_EQ(round_to_format(0.1, Format::bf16), 0.10009765625);
  EXPECT_EQ(round_to_format(257.0, Format::bf16), 256.0);  // tie to even
  EXPECT_EQ(round_to_format(259.0, Format::bf16), 260.0);  // tie to even (up)
  EXPECT_EQ(round_to_format(2049.0, Format::f16), 2048.0);
  EXPECT_EQ(round_to_format(2051.0, Format::f16), 2052.0);
}

// A double with a random sign, a random exponent in [lo, hi] and a random 52-bit fraction.
double random_double(std::mt19937_64& rng, int lo, int hi) {
  std::uniform_int_distribution<int> exponent(lo, hi);
  const double fraction = 1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52);
  const double x = std::ldexp(fraction, exponent(rng));
  return (rng() & 1) ? -x : x;
}

TEST(FormatRounding, RandomDoublesAgreeWithMpfrAndOracle) {
  std::mt19937_64 rng(test_seed(20240601));
  for (Format f : {Format::f32, Format::f16, Format::bf16}) {
    const auto& t = traits(f);
    for (int i = 0; i < 40000; ++i) {
      double x = random_double(rng, t.emin - t.precision - 3, t.emax + 2);
      if (i % 4 == 1) {
        // Near a midpoint: a value of f plus half its ulp, nudged by a few double ulps.
        const double v = round_to_format(x, f);
        if (std::isinf(v)) continue;
        x = v + std::copysign(ulp(v, f) / 2, v);
        const int nudge = static_cast<int>(rng() % 5) - 2;
        for (int k = 0; k < std::abs(nudge); ++k) x = std::nextafter(x, nudge > 0 ? kInf : -kInf);
      } else if (i % 4 == 2) {
        x = std::bit_cast<double>(rng());  // any double, NaN and huge exponents included
      }
      expect_rounding_agrees(x, f);
    }
  }
  // Subnormal doubles and the extremes.
  for (double x : {0x1p-1074, -0x1p-1074, 0x1p-1022, DBL_MAX, -DBL_MAX, kInf, -kInf, 0.0, -0.0})
    for (Format f : all_formats)
      if (f != Format::f64) expect_rounding_agrees(x, f);
}

// round_to_format's bit-manipulation path for f16 and bf16 (round_to_small_format, used by
// SoftFloat) against the original ldexp/nearbyint definition: every value of the format, every
// midpoint between neighbours and a few double ulps either side, and random doubles of every
// exponent (NaN, infinities, double subnormals included), both signs.
TEST(FormatRounding, BitPathMatchesReference) {
  auto check = [](double x, Format f) {
    const double reference = round_to_format_reference(x, f);
    const double fast =
        f == Format::f16 ? round_to_small_format<Format::f16>(x) : round_to_small_format<Format::bf16>(x);
    ASSERT_TRUE(same_bits(fast, reference))
        << name(f) << " x=" << describe(x) << " fast " << describe(fast) << " reference " << describe(reference);
    ASSERT_TRUE(same_bits(round_to_format(x, f), reference)) << name(f) << " x=" << describe(x);
  };
  std::mt19937_64 rng(test_seed(77));
  for (Format f : kNarrow) {
    const auto values = positive_values_and_inf(f);
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
      const double a = values[i];
      const double b = std::isinf(values[i + 1]) ? std::ldexp(1.0, traits(f).emax + 1) : values[i + 1];
      const double mid = (a + b) / 2;
      for (double sign : {1.0, -1.0}) {
        double up = sign * mid, down = sign * mid;
        check(sign * a, f);
        check(up, f);
        for (int k = 0; k < 3; ++k) {
          up = std::nextafter(up, sign * kInf);
          down = std::nextafter(down, 0.0);
          check(up, f);
          check(down, f);
        }
      }
    }
    const auto& t = traits(f);
    for (int i = 0; i < 200000; ++i) {
      check(random_double(rng, t.emin - t.precision - 3, t.emax + 2), f);
      check(std::bit_cast<double>(rng()), f);
    }
    for (double x : {0x1p-1074, -0x1p-1074, 0x1p-1022, -0x1p-1022, DBL_MAX, -DBL_MAX, kInf, -kInf, 0.0, -0.0,
                     std::nan(""), -std::nan("")})
      check(x, f);
  }
}

TEST(FormatSpacing, UlpNextUpNextDownExhaustive) {
  for (Format f : kNarrow) {
    const auto values = positive_values_and_inf(f);
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
      const double x = values[i], next = values[i + 1];
      ASSERT_TRUE(same_bits(next_up(x, f), next)) << name(f) << " " << describe(x);
      ASSERT_TRUE(same_bits(next_down(-x, f), -next)) << name(f) << " " << describe(x);
      if (i > 0) {
        ASSERT_TRUE(same_bits(next_down(next, f), x)) << name(f) << " " << describe(next);
        ASSERT_TRUE(same_bits(next_up(-next, f), -x)) << name(f) << " " << describe(next);
      }
      if (std::isfinite(next)) {
        ASSERT_EQ(ulp(x, f), next - x) << name(f) << " " << describe(x);
        ASSERT_EQ(ulp(-x, f), next - x) << name(f) << " " << describe(x);
      }
      ASSERT_EQ(ordinal(x, f), static_cast<std::int64_t>(i));
      ASSERT_EQ(ordinal(-x, f), -static_cast<std::int64_t>(i));
    }
    const double big = largest_finite(f);
    EXPECT_EQ(ulp(big, f), std::ldexp(1.0, traits(f).emax - traits(f).precision + 1));
    EXPECT_EQ(next_up(big, f), kInf);
    EXPECT_EQ(next_down(-big, f), -kInf);
    EXPECT_EQ(next_up(kInf, f), kInf);
    EXPECT_EQ(next_up(-kInf, f), -big);
    EXPECT_EQ(next_down(kInf, f), big);
    EXPECT_TRUE(same_bits(next_up(-0.0, f), smallest_subnormal(f)));
    EXPECT_TRUE(same_bits(next_up(0.0, f), smallest_subnormal(f)));
    EXPECT_TRUE(same_bits(next_up(-smallest_subnormal(f), f), -0.0));
    EXPECT_TRUE(same_bits(next_down(smallest_subnormal(f), f), 0.0));
    EXPECT_TRUE(same_bits(next_down(0.0, f), -smallest_subnormal(f)));
    EXPECT_TRUE(std::isnan(next_up(std::nan(""), f)));
    EXPECT_EQ(ordinal(-0.0, f), 0);
    EXPECT_EQ(ordinal(0.0, f), 0);
  }
  EXPECT_EQ(ulp(1.0, Format::f16), 0x1p-10);
  EXPECT_EQ(ulp(1.0, Format::bf16), 0x1p-7);
  EXPECT_EQ(ulp(1.0, Format::f32), 0x1p-23);
  EXPECT_EQ(ulp(1.0, Format::f64), 0x1p-52);
  EXPECT_EQ(ulp(0.0, Format::f16), 0x1p-24);
  EXPECT_EQ(ulp(0x1p-20, Format::f16), 0x1p-24);  // subnormal spacing
  EXPECT_EQ(ulp(DBL_MAX, Format::f64), 0x1p971);
}

TEST(FormatSpacing, F32AndF64AgainstNextafter) {
  std::mt19937_64 rng(test_seed(7));
  std::vector<double> samples = {0.0, -0.0, 0x1p-1074, -0x1p-1074, DBL_MIN, DBL_MAX, -DBL_MAX, 1.0, -1.0};
  for (int i = 0; i < 20000; ++i) samples.push_back(std::bit_cast<double>(rng()));
  for (double x : samples) {
    if (std::isnan(x)) continue;
    ASSERT_TRUE(same_bits(next_up(x, Format::f64), std::nextafter(x, kInf))) << describe(x);
    ASSERT_TRUE(same_bits(next_down(x, Format::f64), std::nextafter(x, -kInf))) << describe(x);
    if (std::isfinite(x) && std::isfinite(std::nextafter(x, kInf)) && x != 0) {
      ASSERT_EQ(ordinal(std::nextafter(x, kInf), Format::f64), ordinal(x, Format::f64) + 1) << describe(x);
      if (x > 0) {
        ASSERT_EQ(ulp(x, Format::f64), std::nextafter(x, kInf) - x) << describe(x);
      }
    }
    const float y = static_cast<float>(x);
    if (std::isnan(y)) continue;
    ASSERT_TRUE(same_bits(next_up(y, Format::f32), std::nextafterf(y, INFINITY))) << describe(y);
    ASSERT_TRUE(same_bits(next_down(y, Format::f32), std::nextafterf(y, -INFINITY))) << describe(y);
    if (std::isfinite(y) && y > 0 && std::isfinite(std::nextafterf(y, INFINITY))) {
      ASSERT_EQ(ordinal(std::nextafterf(y, INFINITY), Format::f32), ordinal(y, Format::f32) + 1);
      ASSERT_EQ(ulp(y, Format::f32), static_cast<double>(std::nextafterf(y, INFINITY)) - y) << describe(y);
    }
  }
  EXPECT_EQ(ordinal(DBL_MAX, Format::f64), 0x7fefffffffffffffLL);
  EXPECT_EQ(ordinal(-DBL_MAX, Format::f64), -0x7fefffffffffffffLL);
  EXPECT_EQ(ordinal(0x1p-149, Format::f32), 1);
  EXPECT_EQ(ordinal(-0x1p-149, Format::f32), -1);
  EXPECT_EQ(ordinal(-0.0, Format::f64), 0);
}

TEST(FormatText, HexFloat) {
  EXPECT_EQ(hex_float(0.1875), "0x1.8p-3");
  EXPECT_EQ(hex_float(1.0), "0x1p+0");
  EXPECT_EQ(hex_float(-2.0), "-0x1p+1");
  EXPECT_EQ(hex_float(0.0), "0x0p+0");
  EXPECT_EQ(hex_float(-0.0), "-0x0p+0");
  EXPECT_EQ(hex_float(kInf), "inf");
  EXPECT_EQ(hex_float(-kInf), "-inf");
  EXPECT_EQ(hex_float(std::nan("")), "nan");
  EXPECT_EQ(hex_float(0x1p-1074), "0x0.0000000000001p-1022");
  std::mt19937_64 rng(test_seed(3));
  for (int i = 0; i < 5000; ++i) {
    const double x = std::bit_cast<double>(rng());
    if (std::isnan(x)) continue;
    const auto parsed = parse_number(hex_float(x));
    ASSERT_TRUE(parsed.ok()) << hex_float(x);
    ASSERT_TRUE(same_bits(round_parsed_to_format(parsed.number, Format::f64), x)) << hex_float(x);
  }
}

// Significant digits of a decimal text ("-1.250e-3" has 4; leading zeros do not count).
int significant_digits(const std::string& text) {
  std::string digits;
  for (char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c >= '0' && c <= '9') digits += c;
  }
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 1;
  return static_cast<int>(digits.size() - first);
}

using Big = boost::multiprecision::cpp_int;

// Independent shortness check: for k digits, the decimals on the k-digit grid nearest below
// and above x are the only candidates that can round back (the set rounding to x is an
// interval around x). Returns true if some decimal with k significant digits rounds to x.
bool some_k_digit_decimal_rounds_back(double x, Format f, int k) {
  const bool negative = x < 0;
  const FixedInt n = to_fixed(std::fabs(x));  // |x| = n / 2^1074
  const Big numerator(n);
  const Big denominator = Big(1) << fixed_scale;
  // E = floor(log10 |x|), by exact comparison around the double estimate.
  int e = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  auto compare_power = [&](int power) {  // sign of |x| - 10^power
    Big left = numerator, right = denominator;
    if (power >= 0)
      right *= boost::multiprecision::pow(Big(10), static_cast<unsigned>(power));
    else
      left *= boost::multiprecision::pow(Big(10), static_cast<unsigned>(-power));
    return left < right ? -1 : (left > right ? 1 : 0);
  };
  while (compare_power(e) < 0) --e;
  while (compare_power(e + 1) >= 0) ++e;
  const int grid = e - k + 1;  // candidates are integers times 10^grid
  Big scaled_num = numerator, scaled_den = denominator;
  if (grid >= 0)
    scaled_den *= boost::multiprecision::pow(Big(10), static_cast<unsigned>(grid));
  else
    scaled_num *= boost::multiprecision::pow(Big(10), static_cast<unsigned>(-grid));
  const Big low = scaled_num / scaled_den;
  for (const Big& m : {low, Big(low + 1)}) {
    const std::string text = std::string(negative ? "-" : "") + m.str() + "e" + std::to_string(grid);
    const auto parsed = parse_number(text);
    if (!parsed.ok()) ADD_FAILURE() << text;
    if (same_bits(round_parsed_to_format(parsed.number, f), x)) return true;
  }
  return false;
}

void expect_shortest_round_trip(double x, Format f, bool check_minimal) {
  const std::string text = shortest_decimal(x, f);
  const auto parsed = parse_number(text);
  ASSERT_TRUE(parsed.ok()) << name(f) << " " << describe(x) << " -> '" << text << "': " << parsed.error;
  const double back = round_parsed_to_format(parsed.number, f);
  ASSERT_TRUE(same_bits(back, x)) << name(f) << " " << describe(x) << " -> '" << text << "' -> " << describe(back);
  if (!std::isfinite(x) || x == 0) return;
  const int digits = significant_digits(text);
  ASSERT_LE(digits, 17) << text;
  if (check_minimal && digits > 1) {
    ASSERT_FALSE(some_k_digit_decimal_rounds_back(x, f, digits - 1))
        << name(f) << " " << describe(x) << " -> '" << text << "' is not the shortest";
  }
}

TEST(FormatText, ShortestDecimalExhaustive16) {
  for (Format f : kNarrow)
    for (std::uint32_t bits = 0; bits < 65536; ++bits) {
      const double x = decode(bits, f);
      if (std::isnan(x)) continue;
      expect_shortest_round_trip(x, f, true);
    }
  EXPECT_EQ(shortest_decimal(0.0999755859375, Format::f16), "0.1");
  EXPECT_EQ(shortest_decimal(65504.0, Format::f16), "6.55e+04");  // 65500 rounds to 65504
  EXPECT_EQ(shortest_decimal(-0.0, Format::f16), "-0");
  EXPECT_EQ(shortest_decimal(kInf, Format::bf16), "inf");
  EXPECT_EQ(shortest_decimal(-kInf, Format::bf16), "-inf");
  EXPECT_EQ(shortest_decimal(std::nan(""), Format::bf16), "nan");
  EXPECT_EQ(shortest_decimal(0.1, Format::f64), "0.1");
  EXPECT_EQ(shortest_decimal(static_cast<float>(0.1), Format::f32), "0.1");
}

TEST(FormatText, ShortestDecimalRandomF32F64) {
  std::mt19937_64 rng(test_seed(11));
  for (int i = 0; i < 4000; ++i) {
    const float y = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (!std::isnan(y)) expect_shortest_round_trip(y, Format::f32, i < 1500);
    const double x = std::bit_cast<double>(rng());
    if (!std::isnan(x)) expect_shortest_round_trip(x, Format::f64, i < 300);
  }
  for (double x : {DBL_MAX, DBL_MIN, 0x1p-1074, 5e-324, 1e23, 9007199254740993.0})
    expect_shortest_round_trip(x, Format::f64, true);
  for (float y : {FLT_MAX, FLT_MIN, 0x1p-149f, 16777216.0f}) expect_shortest_round_trip(y, Format::f32, true);
}

// ---------------------------------------------------------------------------------------
// SoftFloat arithmetic (soft_float.h): + - * and fused multiply-add rounded once into f16 and
// bf16, against MPFR at the format's precision and exponent range.

enum class Op { add, sub, mul, fma };

double mpfr_operation(Op op, double a, double b, double c, Format f) {
  mpfr_t x, y, z;
  mpfr_inits2(64, x, y, z, static_cast<mpfr_ptr>(nullptr));  // operands are exact (set before the range shrinks)
  mpfr_set_d(x, a, MPFR_RNDN);
  mpfr_set_d(y, b, MPFR_RNDN);
  mpfr_set_d(z, c, MPFR_RNDN);
  const double result = mpfr_round_to_format(f, [&](mpfr_ptr r) {
    switch (op) {
      case Op::add: return mpfr_add(r, x, y, MPFR_RNDN);
      case Op::sub: return mpfr_sub(r, x, y, MPFR_RNDN);
      case Op::mul: return mpfr_mul(r, x, y, MPFR_RNDN);
      case Op::fma: return mpfr_fma(r, x, y, z, MPFR_RNDN);
    }
    return 0;
  });
  mpfr_clears(x, y, z, static_cast<mpfr_ptr>(nullptr));
  return result;
}

template <class T>
void check_soft_float(std::uint64_t seed) {
  constexpr Format f = T::format;
  std::mt19937_64 rng(test_seed(seed));
  auto draw = [&]() {
    for (;;) {
      // Bit patterns (all classes) or values close to 1 (carries, cancellations, ties).
      const double x =
          (rng() & 1) ? decode(rng() & 0xffff, f) : decode((rng() & 0x8000) | (encode(1.0, f) + rng() % 64 - 32), f);
      if (!std::isnan(x)) return x;
    }
  };
  for (int i = 0; i < 60000; ++i) {
    const double a = draw(), b = draw(), c = draw();
    const T x(a), y(b), z(c);
    ASSERT_EQ(x.value(), a);
    ASSERT_TRUE(same_bits((x + y).value(), mpfr_operation(Op::add, a, b, 0, f))) << name(f) << " " << a << " + " << b;
    ASSERT_TRUE(same_bits((x - y).value(), mpfr_operation(Op::sub, a, b, 0, f))) << name(f) << " " << a << " - " << b;
    ASSERT_TRUE(same_bits((x * y).value(), mpfr_operation(Op::mul, a, b, 0, f))) << name(f) << " " << a << " * " << b;
    ASSERT_TRUE(same_bits(fused_multiply_add(x, y, z).value(), mpfr_operation(Op::fma, a, b, c, f)))
        << name(f) << " fma(" << hex_float(a) << ", " << hex_float(b) << ", " << hex_float(c) << ")";
    ASSERT_TRUE(same_bits((-x).value(), -a));
  }
}

TEST(SoftFloat, HalfAgainstMpfr) { check_soft_float<Half>(1); }
TEST(SoftFloat, BFloat16AgainstMpfr) { check_soft_float<BFloat16>(2); }

TEST(SoftFloat, HalfAgainstCompilerFloat16) {
  // GCC's _Float16 arithmetic (float with one rounding back: 24 >= 2*11+2 bits) is another reference.
  for (std::uint32_t i = 0; i < 65536; i += 7) {
    for (std::uint32_t j = 0; j < 65536; j += 1031) {
      const double a = decode(i, Format::f16), b = decode(j, Format::f16);
      if (std::isnan(a) || std::isnan(b)) continue;
      const _Float16 ha = static_cast<_Float16>(a), hb = static_cast<_Float16>(b);
      ASSERT_TRUE(same_bits((Half(a) + Half(b)).value(), static_cast<double>(static_cast<_Float16>(ha + hb))));
      ASSERT_TRUE(same_bits((Half(a) * Half(b)).value(), static_cast<double>(static_cast<_Float16>(ha * hb))));
    }
  }
}

TEST(SoftFloat, FusedMultiplyAddHandCases) {
  // bf16: 1 + 2^-8 ties to 1; a product that pushes past the tie rounds up.
  EXPECT_EQ(fused_multiply_add(BFloat16(0x1p-4), BFloat16(0x1p-4), BFloat16(1.0)).value(), 1.0);
  EXPECT_EQ(fused_multiply_add(BFloat16(0x1.02p-4), BFloat16(0x1p-4), BFloat16(1.0)).value(), 1 + 0x1p-7);
  // f16 overflow and cancellation to an exact small result.
  EXPECT_EQ(fused_multiply_add(Half(256.0), Half(256.0), Half(0.0)).value(), kInf);
  EXPECT_EQ(fused_multiply_add(Half(255.0), Half(257.0), Half(-65504.0)).value(), 65535.0 - 65504.0);
  // float and double use the hardware fma: exactly one rounding.
  EXPECT_EQ(fused_multiply_add(1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -1.0f), 0x1p-11f + 0x1p-24f);
  EXPECT_EQ(fused_multiply_add(1.0 + 0x1p-30, 1.0 + 0x1p-30, -1.0), 0x1p-29 + 0x1p-60);
  // The rounding mode is restored.
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

// DESIGN.md: a subnormal addend must survive an addition. Through volatile, so that the
// compiler cannot fold it: a stray FTZ or DAZ flag (e.g. -ffast-math's crtfastmath.o)
// makes these additions lose the subnormal.
bool subnormals_survive() {
  volatile double tiny = std::numeric_limits<double>::denorm_min();
  volatile double zero = 0.0;
  volatile double normal = DBL_MIN;
  volatile double sum1 = tiny + zero;              // DAZ reads tiny as 0
  volatile double sum2 = (normal * 1.5) - normal;  // FTZ flushes the subnormal result 2^-1023
  volatile float tiny_f = std::numeric_limits<float>::denorm_min();
  volatile float zero_f = 0.0f;
  volatile float normal_f = FLT_MIN;
  volatile float sum3 = tiny_f + zero_f;
  volatile float sum4 = (normal_f * 1.5f) - normal_f;
  volatile float sum5 = tiny_f + tiny_f;
  // Compared as bits: under DAZ a floating-point comparison would read the subnormals as 0.
  return std::bit_cast<std::uint64_t>(double{sum1}) == 1 &&
         std::bit_cast<std::uint64_t>(double{sum2}) == (std::uint64_t{1} << 51) &&
         std::bit_cast<std::uint32_t>(float{sum3}) == 1 && std::bit_cast<std::uint32_t>(float{sum4}) == (1u << 22) &&
         std::bit_cast<std::uint32_t>(float{sum5}) == 2;
}

TEST(FormatRuntime, SubnormalsAreNotFlushed) {
  EXPECT_TRUE(subnormals_survive()) << "FTZ/DAZ is on: subnormal addends are flushed (MXCSR " << std::hex
                                    << _mm_getcsr() << ")";
  EXPECT_EQ(_mm_getcsr() & 0x8040u, 0u) << "MXCSR has FTZ (0x8000) or DAZ (0x40) set";
}

TEST(FormatRuntime, SubnormalCheckCanFail) {
  // The check above must notice FTZ/DAZ: turn them on, check, restore.
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);
  const bool survived = subnormals_survive();
  _mm_setcsr(saved);
  EXPECT_FALSE(survived);
  EXPECT_TRUE(subnormals_survive());
}

}  // namespace
}  // namespace accucheck
