// E4M3 and E5M2 (fp8.h) against values read off the OCP OFP8 specification's tables by hand;
// the exhaustive comparison with an independent implementation is fp8_vs_ml_dtypes.py.
#include "numerics/fp8.h"

#include <gtest/gtest.h>

#include "numerics/exact.h"
#include "numerics/number_parse.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "checking/float_gen.h"
#include "numerics/fast_exact.h"

namespace accucheck {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr auto saturating = Fp8Overflow::saturating;

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

TEST(Fp8, E4m3DecodesTheSpecificationsValues) {
  const auto f = Format::e4m3;
  EXPECT_TRUE(same_bits(fp8_decode(0x00, f), 0.0));
  EXPECT_TRUE(same_bits(fp8_decode(0x80, f), -0.0));
  EXPECT_EQ(fp8_decode(0x01, f), std::ldexp(1.0, -9));      // smallest subnormal 0.0000.001
  EXPECT_EQ(fp8_decode(0x07, f), 7 * std::ldexp(1.0, -9));  // largest subnormal 0.0000.111
  EXPECT_EQ(fp8_decode(0x08, f), std::ldexp(1.0, -6));      // smallest normal 0.0001.000
  EXPECT_EQ(fp8_decode(0x38, f), 1.0);                      // 0.0111.000: exponent 7 - bias 7
  EXPECT_EQ(fp8_decode(0x3c, f), 1.5);
  EXPECT_EQ(fp8_decode(0x40, f), 2.0);
  EXPECT_EQ(fp8_decode(0x78, f), 256.0);  // 0.1111.000: E4M3 uses exponent field 15 for values
  EXPECT_EQ(fp8_decode(0x7e, f), 448.0);  // 0.1111.110: the largest finite value
  EXPECT_EQ(fp8_decode(0xfe, f), -448.0);
  EXPECT_TRUE(std::isnan(fp8_decode(0x7f, f)));  // S.1111.111, the only NaNs
  EXPECT_TRUE(std::isnan(fp8_decode(0xff, f)));
  EXPECT_EQ(largest_finite(f), 448.0);
  EXPECT_EQ(smallest_normal(f), std::ldexp(1.0, -6));
  EXPECT_EQ(smallest_subnormal(f), std::ldexp(1.0, -9));
}

TEST(Fp8, E5m2DecodesTheSpecificationsValues) {
  const auto f = Format::e5m2;
  EXPECT_TRUE(same_bits(fp8_decode(0x80, f), -0.0));
  EXPECT_EQ(fp8_decode(0x01, f), std::ldexp(1.0, -16));  // smallest subnormal 0.00000.01
  EXPECT_EQ(fp8_decode(0x03, f), 3 * std::ldexp(1.0, -16));
  EXPECT_EQ(fp8_decode(0x04, f), std::ldexp(1.0, -14));  // smallest normal 0.00001.00
  EXPECT_EQ(fp8_decode(0x3c, f), 1.0);                   // 0.01111.00: exponent 15 - bias 15
  EXPECT_EQ(fp8_decode(0x3d, f), 1.25);
  EXPECT_EQ(fp8_decode(0x7b, f), 57344.0);  // 0.11110.11: the largest finite value
  EXPECT_EQ(fp8_decode(0x7c, f), inf);      // 0.11111.00
  EXPECT_EQ(fp8_decode(0xfc, f), -inf);
  for (int code : {0x7d, 0x7e, 0x7f, 0xfd, 0xfe, 0xff}) EXPECT_TRUE(std::isnan(fp8_decode(code, f))) << code;
  EXPECT_EQ(largest_finite(f), 57344.0);
}

TEST(Fp8, ClassifiesEveryCode) {
  int counts[2][5] = {};
  for (Format f : fp8_formats)
    for (int code = 0; code < 256; ++code)
      ++counts[f == Format::e4m3 ? 0 : 1][static_cast<int>(classify(fp8_decode(code, f), f))];
  // zero, subnormal, normal, infinite, nan (FloatClass order), both signs.
  const int e4m3[5] = {2, 14, 238, 0, 2};
  const int e5m2[5] = {2, 6, 240, 2, 6};
  for (int c = 0; c < 5; ++c) {
    EXPECT_EQ(counts[0][c], e4m3[c]) << "e4m3 class " << c;
    EXPECT_EQ(counts[1][c], e5m2[c]) << "e5m2 class " << c;
  }
}

TEST(Fp8, EveryCodeEncodesBackToItself) {
  for (Format f : fp8_formats)
    for (int code = 0; code < 256; ++code) {
      const double v = fp8_decode(code, f);
      if (std::isnan(v)) {
        EXPECT_EQ(fp8_encode(v, f) & 0x7f, fp8_encoding(f).nan_code) << name(f) << " " << code;
        continue;
      }
      EXPECT_EQ(fp8_encode(v, f), code) << name(f) << " " << code;
      EXPECT_EQ(fp8_encode(v, f, saturating), std::isinf(v) ? (code & 0x80) | 0x7b : code) << name(f) << " " << code;
      EXPECT_TRUE(representable(v, f));
    }
}

TEST(Fp8, RoundsToNearestTiesToEven) {
  const auto e4m3 = Format::e4m3, e5m2 = Format::e5m2;
  EXPECT_EQ(fp8_round(1.0625, e4m3), 1.0);   // 1 + 1/16: between 1.000 and 1.001, to the even 1.000
  EXPECT_EQ(fp8_round(1.1875, e4m3), 1.25);  // 1 + 3/16: between 1.001 and 1.010, to 1.010
  EXPECT_EQ(fp8_round(std::nextafter(1.0625, 2.0), e4m3), 1.125);  // one double past the tie
  EXPECT_EQ(fp8_round(1.125, e5m2), 1.0);                          // 1 + 1/8: between 1.00 and 1.01, to 1.00
  EXPECT_EQ(fp8_round(1.375, e5m2), 1.5);                          // between 1.01 and 1.10, to 1.10
  // Subnormals: half the smallest subnormal is a tie with zero (even); the zero keeps the sign.
  EXPECT_EQ(fp8_encode(std::ldexp(1.0, -10), e4m3), 0x00);
  EXPECT_EQ(fp8_encode(-std::ldexp(1.0, -10), e4m3), 0x80);
  EXPECT_EQ(fp8_encode(std::nextafter(std::ldexp(1.0, -10), 1.0), e4m3), 0x01);
  EXPECT_EQ(fp8_encode(3 * std::ldexp(1.0, -10), e4m3), 0x02);  // 1.5 subnormals: to 2
  EXPECT_EQ(fp8_encode(5 * std::ldexp(1.0, -10), e4m3), 0x02);  // 2.5 subnormals: to 2
  EXPECT_EQ(fp8_encode(std::ldexp(1.0, -17), e5m2), 0x00);
  EXPECT_EQ(fp8_encode(std::ldexp(1.0, -1074), e5m2), 0x00);  // a double subnormal
  EXPECT_EQ(fp8_encode(-std::ldexp(1.0, -1074), e4m3), 0x80);
  // A carry out of the subnormals: 7.5 * 2^-9 is the tie between the largest subnormal 7 * 2^-9
  // and 8 * 2^-9, the smallest normal: to the even 8.
  EXPECT_EQ(fp8_encode(7.5 * std::ldexp(1.0, -9), e4m3), 0x08);
}

TEST(Fp8, OverflowsByEitherRule) {
  const auto e4m3 = Format::e4m3, e5m2 = Format::e5m2;
  // E4M3: 464 is the tie between 448 (1.110 * 2^8) and 480 (1.111 * 2^8, a NaN code): to the even 448.
  EXPECT_EQ(fp8_encode(464.0, e4m3), 0x7e);
  EXPECT_EQ(fp8_encode(std::nextafter(464.0, 500.0), e4m3), 0x7f);  // beyond: NaN, no infinity
  EXPECT_EQ(fp8_encode(-1e6, e4m3), 0xff);
  EXPECT_EQ(fp8_encode(std::nextafter(464.0, 500.0), e4m3, saturating), 0x7e);
  EXPECT_EQ(fp8_encode(-1e300, e4m3, saturating), 0xfe);
  EXPECT_EQ(fp8_encode(inf, e4m3), 0x7f);
  EXPECT_EQ(fp8_encode(-inf, e4m3, saturating), 0xfe);
  // E5M2: 61440 is the tie between 57344 (1.11 * 2^15) and 2^16: to the even 2^16, which overflows.
  EXPECT_EQ(fp8_encode(61440.0, e5m2), 0x7c);
  EXPECT_EQ(fp8_encode(std::nextafter(61440.0, 0.0), e5m2), 0x7b);
  EXPECT_EQ(fp8_encode(61440.0, e5m2, saturating), 0x7b);
  EXPECT_EQ(fp8_encode(-inf, e5m2), 0xfc);
  EXPECT_EQ(fp8_encode(inf, e5m2, saturating), 0x7b);
  EXPECT_EQ(fp8_encode(std::numeric_limits<double>::max(), e5m2), 0x7c);
  // NaN keeps its sign; E5M2's is the quiet S.11111.10.
  EXPECT_EQ(fp8_encode(std::numeric_limits<double>::quiet_NaN(), e5m2), 0x7e);
  EXPECT_EQ(fp8_encode(-std::numeric_limits<double>::quiet_NaN(), e4m3, saturating), 0xff);
}

TEST(Fp8, RepresentableOnlyForTheFormatsValues) {
  EXPECT_TRUE(representable(448.0, Format::e4m3));
  EXPECT_FALSE(representable(480.0, Format::e4m3));
  EXPECT_FALSE(representable(inf, Format::e4m3));
  EXPECT_TRUE(representable(-inf, Format::e5m2));
  EXPECT_FALSE(representable(1.125, Format::e5m2));
  EXPECT_TRUE(representable(1.125, Format::e4m3));
  EXPECT_FALSE(representable(std::ldexp(1.0, -10), Format::e4m3));
  EXPECT_EQ(parse_any_format("e5m2"), Format::e5m2);
  EXPECT_EQ(parse_any_format("float8_e4m3fn"), Format::e4m3);
  EXPECT_EQ(parse_any_format("f32"), Format::f32);
  EXPECT_FALSE(parse_any_format("fp8"));
  EXPECT_FALSE(parse_format("e4m3"));  // not a workload format yet
}

TEST(Fp8, FormatFunctionsTakeTheEncodings) {
  for (Format f : fp8_formats) {
    EXPECT_EQ(storage_size(f), 1u);
    for (int code = 0; code < 256; ++code) {
      const double v = fp8_decode(code, f);
      EXPECT_TRUE(representable(v, f));
      const unsigned char byte = static_cast<unsigned char>(code);
      EXPECT_TRUE(same_bits(load_value(&byte, f), v) || (std::isnan(v) && std::isnan(load_value(&byte, f))));
      if (std::isnan(v) || std::isinf(v)) continue;
      unsigned char stored = 0;
      store_value(v, f, &stored);
      EXPECT_EQ(stored, code) << name(f);
      EXPECT_EQ(decode(encode(v, f), f), v);
    }
  }
  // Neighbours and ulps: E4M3 above 448 is NaN (no infinity); E5M2's is infinity.
  EXPECT_TRUE(std::isnan(next_up(448.0, Format::e4m3)));
  EXPECT_EQ(next_down(448.0, Format::e4m3), 416.0);
  EXPECT_EQ(next_up(-0.0, Format::e4m3), std::ldexp(1.0, -9));
  EXPECT_EQ(next_up(57344.0, Format::e5m2), inf);
  EXPECT_EQ(ulp(1.0, Format::e4m3), 0.125);
  EXPECT_EQ(ulp(1.0, Format::e5m2), 0.25);
  EXPECT_EQ(ordinal(448.0, Format::e4m3) - ordinal(-448.0, Format::e4m3), 2 * 0x7e);
  EXPECT_FALSE(representable(inf, Format::e4m3));
  EXPECT_TRUE(std::isnan(round_to_format(1000.0, Format::e4m3)));
  EXPECT_EQ(round_to_format(-1e5, Format::e5m2), -inf);
}

TEST(Fp8, ParsedNumbersAreValuesOnlyWithinTheRange) {
  const auto value_in = [](const char* text, Format f) { return exact_value_in(parse_number(text).number, f); };
  EXPECT_EQ(value_in("448", Format::e4m3), 448.0);
  EXPECT_FALSE(value_in("480", Format::e4m3));  // rounds beyond the range: NaN in E4M3, no value
  EXPECT_FALSE(value_in("1e9", Format::e4m3));
  EXPECT_FALSE(value_in("inf", Format::e4m3));  // no infinity
  EXPECT_EQ(value_in("-inf", Format::e5m2), -inf);
  EXPECT_FALSE(value_in("65536", Format::e5m2));
  EXPECT_TRUE(std::isnan(*value_in("nan", Format::e4m3)));
}

TEST(Fp8, ExactSumsRoundIntoTheEncodings) {
  // S = 448 + 16: the tie at 464 rounds to the even 448; 448 + 17 is past it: NaN in E4M3.
  ExactSum s = boost_exact_sum(std::vector<double>{448.0, 16.0});
  EXPECT_EQ(s.rounded(Format::e4m3), 448.0);
  EXPECT_EQ(round_fixed(s.sum, Format::e4m3), 448.0);
  EXPECT_EQ(round_fixed_fast(s.sum, Format::e4m3), 448.0);
  s = boost_exact_sum(std::vector<double>{448.0, 16.0, 1.0});
  EXPECT_TRUE(std::isnan(s.rounded(Format::e4m3)));
  EXPECT_TRUE(std::isnan(round_fixed_fast(s.sum, Format::e4m3)));
  EXPECT_EQ(s.rounded(Format::e5m2), 448.0);                  // 465: E5M2 has 448 and 512 there (spacing 64)
  s = boost_exact_sum(std::vector<double>{57344.0, 4096.0});  // 61440: the tie, to 2^16: infinity
  EXPECT_EQ(s.rounded(Format::e5m2), inf);
  EXPECT_EQ(round_fixed_fast(s.sum, Format::e5m2), inf);
  // 2^-10 + 2^-40: just above half E4M3's smallest subnormal (one rounding, not two).
  s = boost_exact_sum(std::vector<double>{std::ldexp(1.0, -10), std::ldexp(1.0, -40)});
  EXPECT_EQ(s.rounded(Format::e4m3), std::ldexp(1.0, -9));
  s = boost_exact_sum(std::vector<double>{inf, 1.0});
  EXPECT_TRUE(std::isnan(s.rounded(Format::e4m3)));
  EXPECT_EQ(s.rounded(Format::e5m2), inf);
}

TEST(Fp8, GeneratorsDrawOnlyTheFormatsValues) {
  // Special values and bands per format: no infinity in E4M3 (OFP8), the top binade cut at
  // 448 (whose next code is NaN) and at 57344.
  for (Format f : fp8_formats) {
    const auto specials = special_values(f, true);
    for (double x : specials) EXPECT_TRUE(representable(x, f)) << name(f) << " " << x;
    EXPECT_EQ(std::count(specials.begin(), specials.end(), largest_finite(f)), 1) << name(f);
    EXPECT_EQ(std::count(specials.begin(), specials.end(), inf), f == Format::e5m2 ? 1 : 0) << name(f);
    SeededChoiceStream s(7);
    bool top_binade = false;
    for (int i = 0; i < 20000; ++i) {
      for (double x : {draw_simple_float(s, f), draw_band_float(s, f, -12, 20), draw_float(s, f, false),
                       draw_special_float(s, f, false)}) {
        ASSERT_TRUE(representable(x, f)) << name(f) << " " << x;
        ASSERT_TRUE(std::isfinite(x)) << name(f) << " " << x;
        top_binade |= std::fabs(x) == largest_finite(f);
      }
      const double any = draw_float(s, f, true);
      ASSERT_TRUE(representable(any, f)) << name(f) << " " << any;
    }
    EXPECT_TRUE(top_binade) << name(f);
  }
}

}  // namespace
}  // namespace accucheck
