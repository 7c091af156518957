// Tests of number_parse.h: exact parsing, representability per format, correct rounding
// (against glibc's strtod/strtof and MPFR's mpfr_strtofr), and malformed tokens.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

#include "accucheck/testing/bits.h"
#include "accucheck/testing/mpfr.h"
#include "accucheck/testing/seed.h"
#include "numerics/number_parse.h"

namespace accucheck {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using test::same_bits;

double parse_rounded(const std::string& text, Format f) {
  const auto parsed = parse_number(text);
  EXPECT_TRUE(parsed.ok()) << "'" << text << "': " << parsed.error;
  return round_parsed_to_format(parsed.number, f);
}

std::optional<double> parse_exact(const std::string& text, Format f) {
  const auto parsed = parse_number(text);
  EXPECT_TRUE(parsed.ok()) << "'" << text << "': " << parsed.error;
  return exact_value_in(parsed.number, f);
}

// MPFR's correctly rounded conversion of the text into f (base 0: decimal or 0x hex).
double mpfr_parse(const std::string& text, Format f) {
  return test::mpfr_round_to_format(f, [&text](mpfr_ptr r) {
    char* end = nullptr;
    const int inexact = mpfr_strtofr(r, text.c_str(), &end, 0, MPFR_RNDN);
    EXPECT_EQ(*end, '\0') << text;
    return inexact;
  });
}

TEST(NumberParse, Decimal) {
  EXPECT_EQ(parse_rounded("1.5", Format::f64), 1.5);
  EXPECT_EQ(parse_rounded("-2e-3", Format::f64), -0.002);
  EXPECT_EQ(parse_rounded("+7", Format::f64), 7.0);
  EXPECT_EQ(parse_rounded(".5", Format::f64), 0.5);
  EXPECT_EQ(parse_rounded("5.", Format::f64), 5.0);
  EXPECT_EQ(parse_rounded("1E3", Format::f64), 1000.0);
  EXPECT_EQ(parse_rounded("1e+3", Format::f64), 1000.0);
  EXPECT_EQ(parse_rounded("00012.50e-1", Format::f64), 1.25);
  EXPECT_EQ(parse_rounded("0.1", Format::f64), 0.1);
  EXPECT_EQ(parse_rounded("0.1", Format::f32), static_cast<double>(0.1f));
  EXPECT_EQ(parse_rounded("0.1", Format::f16), 0.0999755859375);
  EXPECT_EQ(parse_rounded("0.1", Format::bf16), 0.10009765625);
  const auto parsed = parse_number("-12.5e2");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed.number.negative);
  EXPECT_EQ(parsed.number.kind, ExactNumber::Kind::finite);
  EXPECT_EQ(parsed.number.mantissa, 125);
  EXPECT_EQ(parsed.number.exponent10, 1);
  EXPECT_EQ(parsed.number.exponent2, 0);
}

TEST(NumberParse, HexFloats) {
  EXPECT_EQ(parse_rounded("0x1.8p-3", Format::f64), 0.1875);
  EXPECT_EQ(parse_rounded("0X1P+0", Format::f64), 1.0);
  EXPECT_EQ(parse_rounded("-0x.8p1", Format::f64), -1.0);
  EXPECT_EQ(parse_rounded("0xA", Format::f64), 10.0);
  EXPECT_EQ(parse_rounded("0x1e5p0", Format::f64), 485.0);  // 'e' is a hex digit
  EXPECT_EQ(parse_rounded("0x1.fffffffffffffp1023", Format::f64), DBL_MAX);
  EXPECT_EQ(parse_rounded("0x1p-1074", Format::f64), 0x1p-1074);
  EXPECT_EQ(parse_rounded("0x1p1024", Format::f64), kInf);
  EXPECT_EQ(parse_rounded("-0x1p1024", Format::f64), -kInf);
  EXPECT_EQ(parse_rounded("0x1.ffp127", Format::bf16), kInf);  // midpoint: ties to 2^128
  EXPECT_EQ(parse_rounded("0x1.fefffffp127", Format::bf16), 0x1.fep127);
  const auto parsed = parse_number("0x1.8p-3");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.number.mantissa, 0x18);
  EXPECT_EQ(parsed.number.exponent2, -7);
  EXPECT_EQ(parsed.number.exponent10, 0);
}

TEST(NumberParse, SpecialsAndSigns) {
  for (const char* text : {"inf", "INF", "Infinity", "+inf", "infinity"}) {
    const auto p = parse_number(text);
    ASSERT_TRUE(p.ok()) << text;
    EXPECT_EQ(p.number.kind, ExactNumber::Kind::infinity) << text;
    for (Format f : all_formats) {
      EXPECT_EQ(round_parsed_to_format(p.number, f), kInf);
      EXPECT_EQ(exact_value_in(p.number, f), kInf);
    }
  }
  for (const char* text : {"-inf", "-Infinity", "-INF"}) {
    const auto p = parse_number(text);
    ASSERT_TRUE(p.ok()) << text;
    for (Format f : all_formats) EXPECT_EQ(exact_value_in(p.number, f), -kInf) << text;
  }
  for (const char* text : {"nan", "NaN", "-nan", "+NAN"}) {
    const auto p = parse_number(text);
    ASSERT_TRUE(p.ok()) << text;
    EXPECT_EQ(p.number.kind, ExactNumber::Kind::nan);
    for (Format f : all_formats) {
      EXPECT_TRUE(std::isnan(round_parsed_to_format(p.number, f)));
      auto v = exact_value_in(p.number, f);
      ASSERT_TRUE(v.has_value());
      EXPECT_TRUE(std::isnan(*v));
    }
  }
  for (Format f : all_formats) {
    EXPECT_TRUE(same_bits(*parse_exact("-0", f), -0.0));
    EXPECT_TRUE(same_bits(*parse_exact("+0", f), 0.0));
    EXPECT_TRUE(same_bits(*parse_exact("0", f), 0.0));
    EXPECT_TRUE(same_bits(*parse_exact("-0.000e-5", f), -0.0));
    EXPECT_TRUE(same_bits(*parse_exact("-0x0p+0", f), -0.0));
    EXPECT_TRUE(same_bits(*parse_exact("0e999999999", f), 0.0));
    // Underflow to zero keeps the sign.
    EXPECT_TRUE(same_bits(parse_rounded("-1e-400", f), -0.0));
    EXPECT_TRUE(same_bits(parse_rounded("1e-400", f), 0.0));
  }
}

TEST(NumberParse, Representability) {
  EXPECT_FALSE(parse_exact("0.1", Format::f32));
  EXPECT_FALSE(parse_exact("0.1", Format::f64));
  EXPECT_EQ(parse_exact("0.5", Format::bf16), 0.5);
  EXPECT_EQ(parse_exact("65504", Format::f16), 65504.0);
  EXPECT_FALSE(parse_exact("65505", Format::f16));
  EXPECT_FALSE(parse_exact("65520", Format::f16));  // rounds to infinity
  EXPECT_FALSE(parse_exact("65536", Format::f16));
  EXPECT_EQ(parse_exact("65536", Format::bf16), 65536.0);
  EXPECT_EQ(parse_exact("0x1p-149", Format::f32), 0x1p-149);
  EXPECT_FALSE(parse_exact("0x1p-150", Format::f32));
  EXPECT_FALSE(parse_exact("0x1.8p-149", Format::f32));
  EXPECT_EQ(parse_exact("0x1p-24", Format::f16), 0x1p-24);
  EXPECT_FALSE(parse_exact("0x1p-25", Format::f16));
  EXPECT_EQ(parse_exact("0x1p-133", Format::bf16), 0x1p-133);
  EXPECT_FALSE(parse_exact("0x1p-134", Format::bf16));
  EXPECT_FALSE(parse_exact("1e-400", Format::f64));
  EXPECT_FALSE(parse_exact("0x1p-1075", Format::f64));
  EXPECT_FALSE(parse_exact("0x1p1024", Format::f64));
  EXPECT_EQ(parse_exact("0x1.fep127", Format::bf16), 0x1.fep127);
  EXPECT_FALSE(parse_exact("0x1.fe8p127", Format::bf16));
  EXPECT_EQ(parse_exact("1.5e0", Format::f16), 1.5);
  EXPECT_EQ(parse_exact("15e-1", Format::f16), 1.5);
  EXPECT_EQ(parse_exact("0.000244140625", Format::f16), 0x1p-12);
  EXPECT_EQ(parse_exact("-1023.5", Format::f16), -1023.5);
  EXPECT_FALSE(parse_exact("1024.5", Format::f16));            // spacing 1 above 1024
  EXPECT_FALSE(parse_exact("9007199254740993", Format::f64));  // 2^53 + 1
  EXPECT_EQ(parse_exact("9007199254740994", Format::f64), 9007199254740994.0);
  EXPECT_EQ(parse_exact("16777216", Format::f32), 16777216.0);
  EXPECT_FALSE(parse_exact("16777217", Format::f32));
  EXPECT_EQ(parse_exact("340282346638528859811704183484516925440", Format::f32), static_cast<double>(FLT_MAX));
  EXPECT_FALSE(parse_exact("340282346638528859811704183484516925441", Format::f32));
  // bf16 max = 255 * 2^120 as an exact decimal integer.
  EXPECT_EQ(parse_exact("338953138925153547590470800371487866880", Format::bf16), 0x1.fep127);
  EXPECT_FALSE(parse_exact("3.3895313892515355e38", Format::bf16));

  // 2^-1074 = 5^1074 * 10^-1074 exactly: a 751-digit decimal.
  const std::string five_power =
      boost::multiprecision::cpp_int(boost::multiprecision::pow(boost::multiprecision::cpp_int(5), 1074)).str();
  ASSERT_EQ(five_power.size(), 751u);
  EXPECT_EQ(parse_exact(five_power + "e-1074", Format::f64), 0x1p-1074);
  EXPECT_EQ(parse_exact("0." + std::string(1074 - 751, '0') + five_power, Format::f64), 0x1p-1074);
  // One more digit in the last place: no longer exact, still rounds to 2^-1074.
  std::string off = five_power;
  off.back() = static_cast<char>(off.back() + 1);
  EXPECT_FALSE(parse_exact(off + "e-1074", Format::f64));
  EXPECT_EQ(parse_rounded(off + "e-1074", Format::f64), 0x1p-1074);
  EXPECT_FALSE(parse_exact(five_power + "e-1074", Format::f32));
  EXPECT_TRUE(same_bits(parse_rounded(five_power + "e-1074", Format::f32), 0.0));
}

TEST(NumberParse, TiesAndNearTies) {
  // 2^53 + 1 ties to 2^53 (even); a hair above rounds up to 2^53 + 2.
  EXPECT_EQ(parse_rounded("9007199254740993", Format::f64), 9007199254740992.0);
  EXPECT_EQ(parse_rounded("9007199254740993.00000000000000000000000000001", Format::f64), 9007199254740994.0);
  EXPECT_EQ(parse_rounded("9007199254740992.99999999999999999999999999999", Format::f64), 9007199254740992.0);
  EXPECT_EQ(parse_rounded("9007199254740995", Format::f64), 9007199254740996.0);
  // f16: 2049 ties to 2048, 2051 to 2052; 65519.999 to 65504; 65520 to inf.
  EXPECT_EQ(parse_rounded("2049", Format::f16), 2048.0);
  EXPECT_EQ(parse_rounded("2051", Format::f16), 2052.0);
  EXPECT_EQ(parse_rounded("65519.999999999999999999", Format::f16), 65504.0);
  EXPECT_EQ(parse_rounded("65520", Format::f16), kInf);
  EXPECT_EQ(parse_rounded("-65520", Format::f16), -kInf);
  // Half the smallest subnormal ties to zero; a hair above rounds up.
  EXPECT_TRUE(same_bits(parse_rounded("0x1p-25", Format::f16), 0.0));
  EXPECT_EQ(parse_rounded("0x1.000001p-25", Format::f16), 0x1p-24);
  EXPECT_EQ(parse_rounded("0x3p-25", Format::f16), 0x2p-24);  // 1.5 subnormal units: tie to even 2
  EXPECT_EQ(parse_rounded("0x1p-150", Format::f32), 0.0);
  EXPECT_EQ(parse_rounded("0x1.0000000001p-150", Format::f32), 0x1p-149);
  // Double rounding through f64 would get this wrong for f32: 1 + 2^-24 + 2^-80.
  EXPECT_EQ(parse_rounded("0x1.000001000000000000001p0", Format::f32), 1.0 + 0x1p-23);
}

// Random decimal and hex strings: round_parsed_to_format agrees with MPFR (all formats),
// strtod (f64) and strtof (f32).
TEST(NumberParse, RandomAgainstStrtodAndMpfr) {
  std::mt19937_64 rng(test::test_seed(99));
  auto digits = [&](int count, int base) {
    std::string s;
    for (int i = 0; i < count; ++i) s += "0123456789abcdef"[rng() % base];
    return s;
  };
  for (int i = 0; i < 6000; ++i) {
    std::string text = (rng() & 1) ? "-" : "";
    if (i % 3 == 0) {
      const int exponent = static_cast<int>(rng() % 260) - 160;
      text += "0x" + digits(1 + rng() % 16, 16) + "." + digits(rng() % 20, 16) + "p" + std::to_string(exponent);
      if (i % 2) text = (text[0] == '-' ? "-" : "") + std::string("0x1p") + std::to_string(exponent - 1000);
    } else {
      const int exponent = static_cast<int>(rng() % 700) - 360;
      text += digits(1 + rng() % 30, 10) + "." + digits(rng() % 10, 10) + "e" + std::to_string(exponent);
      if (i % 5 == 1) text = digits(1 + rng() % 6, 10) + "e" + std::to_string(static_cast<int>(rng() % 14) - 9);
    }
    for (Format f : all_formats) {
      const double got = parse_rounded(text, f);
      const double mpfr = mpfr_parse(text, f);
      ASSERT_TRUE(same_bits(got, mpfr)) << text << " " << name(f) << " got " << got << " mpfr " << mpfr;
      const auto exact = parse_exact(text, f);
      if (exact) {
        ASSERT_TRUE(same_bits(*exact, got)) << text;
      }
    }
    ASSERT_TRUE(same_bits(parse_rounded(text, Format::f64), std::strtod(text.c_str(), nullptr))) << text;
    ASSERT_TRUE(same_bits(parse_rounded(text, Format::f32), std::strtof(text.c_str(), nullptr))) << text;
  }
}

TEST(NumberParse, MalformedTokensAreErrors) {
  for (const char* text :
       {"",     "-",       "+",     "1.2.3", "0x",   "-0x", "0x.",   "0xp1", "1e",      "1e+",   "1e-",   "nan1",
        "inf1", "infinit", "abc",   " 1",    "1 ",   "1,5", "--1",   "+-1",  "0x1.8q3", "1e5.5", ".",     "e5",
        "1p5",  "0x1p",    "0x1pe", "1e5x",  "0x1g", "1..", "1_000", "nana", "\t",      "1e 5",  "0b101", "1f"}) {
    const auto p = parse_number(text);
    EXPECT_FALSE(p.ok()) << "'" << text << "' parsed";
    EXPECT_FALSE(p.error.empty());
  }
}

// Trailing zeros are not significant: however many, they neither count against the digit limit
// nor change the value, in the integer part, in the fraction, before an exponent.
TEST(NumberParse, TrailingZerosAreNotSignificant) {
  const std::string zeros(5000, '0');
  for (const std::string& text :
       {"0x1." + zeros + "p0", "1." + zeros, "0x0.8" + zeros + "p1", "0.5" + zeros + "e1", "1" + zeros + "e-5000",
        "0x1" + zeros + "p-20000", "0x1." + zeros, "-1." + zeros + "e0"}) {
    const auto p = parse_number(text);
    ASSERT_TRUE(p.ok()) << text.substr(0, 12) << ": " << p.error;
    for (Format f : all_formats)
      EXPECT_EQ(exact_value_in(p.number, f), text[0] == '-'          ? -1.0
                                             : text.find("0.5") == 0 ? 5.0
                                                                     : 1.0)
          << text.substr(0, 12);
  }
  EXPECT_EQ(parse_exact("10.00", Format::f32), 10.0);
  EXPECT_EQ(parse_exact("0x10.00p0", Format::f32), 16.0);
  EXPECT_EQ(parse_exact("100e-2", Format::f32), 1.0);
  EXPECT_EQ(parse_exact("0x1.80p1", Format::f32), 3.0);
  // Zeros between nonzero digits are significant: 2000 digits in all are the limit.
  EXPECT_TRUE(parse_number("1." + std::string(1998, '0') + "1").ok());
  EXPECT_FALSE(parse_number("1." + std::string(1999, '0') + "1").ok());
  EXPECT_FALSE(parse_number("0x1." + zeros + "1p0").ok());
}

// What error messages echo is visible and short: control and non-ASCII bytes escaped, long
// tokens cut with their length.
TEST(NumberParse, EchoedTokensAreVisibleAndShort) {
  EXPECT_EQ(printable_bytes(std::string("1\0"
                                        "2",
                                        3)),
            "1\\x002");
  EXPECT_EQ(printable_bytes("\xef\xbb\xbf"
                            "1\t\\"),
            "\\xef\\xbb\\xbf1\\x09\\\\");
  EXPECT_EQ(echo_token("0x1p-3"), "'0x1p-3'");
  const std::string echoed = echo_token(std::string(1000000, '7'));
  EXPECT_EQ(echoed, "'" + std::string(40, '7') + "...' (1000000 characters)");
  EXPECT_EQ(echo_token(std::string(40, '7')), "'" + std::string(40, '7') + "'");
  // The parser's own errors escape too, and name a byte order mark.
  const auto nul =
      parse_number(std::string("1\0"
                               "2",
                               3));
  EXPECT_EQ(nul.error, "unexpected character '\\x00'");
  for (const char* text : {"\xef\xbb\xbf"
                           "1",
                           "1\xef\xbb\xbf",
                           "0x\xef\xbb\xbf"
                           "1p0"})
    EXPECT_NE(parse_number(text).error.find("byte order mark"), std::string::npos) << printable_bytes(text);
}

// Seeds and counts: every value up to 2^64-1 (20 digits), nothing above, digits only.
TEST(NumberParse, UnsignedSixtyFourBitIntegers) {
  bool too_large = true;
  EXPECT_EQ(parse_u64("0", &too_large), 0u);
  EXPECT_FALSE(too_large);
  EXPECT_EQ(parse_u64("11133737535551991399"), 11133737535551991399ull);
  EXPECT_EQ(parse_u64("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(parse_u64("000018446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  for (const char* text :
       {"18446744073709551616", "18446744073709551620", "99999999999999999999", "100000000000000000000"}) {
    EXPECT_FALSE(parse_u64(text, &too_large)) << text;
    EXPECT_TRUE(too_large) << text;
  }
  for (const char* text : {"", "-1", "+1", "1e3", "0x10", " 1", "1 ", "1.0"}) {
    EXPECT_FALSE(parse_u64(text, &too_large)) << "'" << text << "'";
    EXPECT_FALSE(too_large) << "'" << text << "'";
  }
}

TEST(NumberParse, AbsurdTokensNeitherCrashNorHang) {
  const auto start = std::chrono::steady_clock::now();
  // Huge exponents: parsed (clamped) and decided by magnitude, never expanded.
  for (const std::string text : {"1e999999999", "1e99999999999999999999999999", "-1e999999999", "0x1p999999999999"}) {
    const auto p = parse_number(text);
    if (p.ok()) {
      for (Format f : all_formats) {
        EXPECT_TRUE(std::isinf(round_parsed_to_format(p.number, f))) << text;
        EXPECT_FALSE(exact_value_in(p.number, f)) << text;
      }
    }
  }
  for (const std::string text : {"1e-999999999", "1e-99999999999999999999999", "0x1p-999999999999"}) {
    const auto p = parse_number(text);
    if (p.ok()) {
      for (Format f : all_formats) {
        EXPECT_TRUE(same_bits(round_parsed_to_format(p.number, f), 0.0)) << text;
        EXPECT_FALSE(exact_value_in(p.number, f)) << text;
      }
    }
  }
  // Digit strings beyond the limit are refused; long runs of leading zeros are fine, and so are
  // trailing ones (they are not significant): 10^2500 is a number, far above every format.
  {
    const auto p = parse_number("1" + std::string(2500, '0'));
    ASSERT_TRUE(p.ok()) << p.error;
    EXPECT_EQ(round_parsed_to_format(p.number, Format::f64), kInf);
    EXPECT_FALSE(exact_value_in(p.number, Format::f64));
  }
  EXPECT_FALSE(parse_number("1" + std::string(2500, '0') + "1").ok());
  EXPECT_FALSE(parse_number(std::string(100000, '7')).ok());
  EXPECT_FALSE(parse_number("0x" + std::string(2500, 'f')).ok());
  EXPECT_FALSE(parse_number("0." + std::string(3000, '3')).ok());
  {
    const auto p = parse_number("0." + std::string(5000, '0') + "1");
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(same_bits(round_parsed_to_format(p.number, Format::f64), 0.0));
    EXPECT_FALSE(exact_value_in(p.number, Format::f64));
  }
  {
    const auto p = parse_number(std::string(5000, '0') + "1");
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(exact_value_in(p.number, Format::f16), 1.0);
  }
  {
    // 2000 significant digits with a huge exponent: screened, not expanded.
    const auto p = parse_number(std::string(2000, '9') + "e-999999999");
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(same_bits(round_parsed_to_format(p.number, Format::f64), 0.0));
    const auto q = parse_number(std::string(2000, '9') + "e999999999");
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(round_parsed_to_format(q.number, Format::f64), kInf);
    // An exponent that cancels the digit count exactly: 0.999...9 (2000 nines) rounds to 1.
    const auto r = parse_number(std::string(2000, '9') + "e-2000");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(round_parsed_to_format(r.number, Format::f64), 1.0);
    EXPECT_FALSE(exact_value_in(r.number, Format::f64));
  }
  EXPECT_FALSE(parse_number("1e" + std::string(100000, '9') + "x").ok());
  {
    const auto p = parse_number("1e-" + std::string(100000, '9'));
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(same_bits(round_parsed_to_format(p.number, Format::bf16), 0.0));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20.0);
}

}  // namespace
}  // namespace accucheck
