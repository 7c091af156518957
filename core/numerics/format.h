// Floating-point formats: f64, f32, f16 (IEEE binary16), bf16, and the OCP 8-bit formats
// e4m3 and e5m2 (fp8.h: their encodings and overflow rules).
//
// Every value of every format is exactly a double, so the harness carries values as
// doubles and a Format tag; these functions give the bit-level view, classification,
// spacing and round-to-nearest-even into each format.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace accucheck {

enum class Format : std::uint8_t { f64 = 0, f32 = 1, f16 = 2, bf16 = 3, e4m3 = 4, e5m2 = 5 };

// The formats backends store and accumulate in, and campaigns, generators, case files and
// plugins take. The fp8 formats are not among them: the exact oracle and `accucheck exact` take
// them (parse_any_format), and workloads as input formats (FP8 addends, values and GEMM operands
// into a buffer of one of these), never as storage.
inline constexpr Format all_formats[] = {Format::f64, Format::f32, Format::f16, Format::bf16};
inline constexpr Format fp8_formats[] = {Format::e4m3, Format::e5m2};
inline constexpr bool is_fp8(Format f) { return f == Format::e4m3 || f == Format::e5m2; }

struct FormatTraits {
  std::string_view name;
  int precision;  // p, with the implicit bit
  int exponent_bits;
  int emin;  // exponent of the smallest normal: 2^emin
  int emax;  // exponent of the largest finite binade (e4m3: 8, whose top code is NaN)
  int storage_bits;
};

const FormatTraits& traits(Format f);
std::string_view name(Format f);
std::optional<Format> parse_format(std::string_view text);      // one of all_formats
std::optional<Format> parse_any_format(std::string_view text);  // also e4m3 and e5m2

// Unit roundoff u = 2^-p as an exponent: u = 2^(unit_roundoff_exponent).
inline int unit_roundoff_exponent(Format f) { return -traits(f).precision; }

double largest_finite(Format f);
double smallest_normal(Format f);
double smallest_subnormal(Format f);
// What a value beyond the largest finite one rounds to: +-infinity, or NaN for e4m3, which has
// no infinity (OFP8's non-saturating rule).
double overflow_value(Format f, bool negative);

enum class FloatClass { zero, subnormal, normal, infinite, nan };
FloatClass classify(double value, Format f);  // value must be representable in f

// True if the double is exactly a value of f (NaN and infinities included).
bool representable(double value, Format f);

// Round-to-nearest-even of any double into f (overflow to overflow_value, gradual underflow,
// signed zero preserved). For f64 this is the identity.
double round_to_format(double value, Format f);

// The same rounding into f16 or bf16 on the double's bit pattern (no scalbn, no dependence on
// the dynamic rounding mode): the hot path of SoftFloat arithmetic. round_to_format uses it.
template <Format F>
double round_to_small_format(double value);

// round_to_format's original definition (ldexp, nearbyint), kept as the reference that
// format_test compares round_to_small_format with.
double round_to_format_reference(double value, Format f);

// Raw bit patterns of the storage format (the low storage_bits bits are used).
// encode requires a representable value; NaN encodes as the default quiet NaN with its sign
// (e4m3: S.1111.111).
std::uint64_t encode(double value, Format f);
double decode(std::uint64_t bits, Format f);

// A value in its storage bytes, host byte order: a double, a float, or the uint16 bit pattern
// (what plugins and Python backends are handed). store_value requires a representable value.
std::size_t storage_size(Format f);  // 8, 4, 2 or 1 bytes
void store_value(double value, Format f, unsigned char* out);
double load_value(const unsigned char* in, Format f);

// Spacing of f at value: 2^(max(exponent(value), emin) - p + 1); for 0 the smallest subnormal.
double ulp(double value, Format f);
// Neighbours in f (next_up(largest_finite) is overflow_value, next_up(-0) is the smallest
// subnormal).
double next_up(double value, Format f);
double next_down(double value, Format f);

// Monotone integer ordinal of a finite value of f: ordinal(next_up(x)) == ordinal(x)+1,
// with +0 and -0 both 0. Differences of ordinals count representable steps ("ulps").
std::int64_t ordinal(double value, Format f);

// C99 hex float of the double value (e.g. 0x1.8p-3), "inf", "-inf", "nan".
std::string hex_float(double value);
// Shortest decimal that rounds (to nearest even) back to the same value of f.
std::string shortest_decimal(double value, Format f);

template <Format F>
inline double round_to_small_format(double value) {
  static_assert(F == Format::f16 || F == Format::bf16);
  constexpr int p = F == Format::f16 ? 11 : 8;         // precision, the implicit bit included
  constexpr int emin = F == Format::f16 ? -14 : -126;  // smallest normal 2^emin
  constexpr int emax = F == Format::f16 ? 15 : 127;
  constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;
  constexpr std::uint64_t exponent_field = std::uint64_t{0x7ff} << 52;
  // |x| >= (2 - 2^-p) 2^emax (the midpoint above the largest finite value) rounds to infinity:
  // exponent emax, the top p fraction bits set.
  constexpr std::uint64_t overflow_bits =
      (static_cast<std::uint64_t>(emax + 1023) << 52) | (((std::uint64_t{1} << p) - 1) << (52 - p));
  constexpr std::uint64_t half_smallest_subnormal = static_cast<std::uint64_t>(emin - p + 1023) << 52;
  constexpr std::uint64_t smallest_subnormal = static_cast<std::uint64_t>(emin - p + 1 + 1023) << 52;

  const auto bits = std::bit_cast<std::uint64_t>(value);
  const std::uint64_t sign = bits & sign_bit;
  std::uint64_t magnitude = bits ^ sign;
  if (magnitude >= exponent_field) {  // NaN (quiet, sign kept) or infinity
    if (magnitude > exponent_field) return std::bit_cast<double>(sign | exponent_field | (std::uint64_t{1} << 51));
    return value;
  }
  if (magnitude >= overflow_bits) return std::bit_cast<double>(sign | exponent_field);
  const int exponent = static_cast<int>(magnitude >> 52) - 1023;  // double subnormals: -1023
  // Fraction bits to drop: 52 - (p - 1) in the normal range, more below 2^emin.
  const int drop = 53 - p + (exponent < emin ? emin - exponent : 0);
  if (drop <= 52) {
    // Round the kept bits to nearest even. The carry may enter the exponent field: the next
    // power of two, the right result. At drop == 52 the last kept bit is the implicit 1.
    const std::uint64_t last_kept = drop == 52 ? 1 : (magnitude >> drop) & 1;
    const std::uint64_t dropped_mask = (std::uint64_t{1} << drop) - 1;
    magnitude = (magnitude + (dropped_mask >> 1) + last_kept) & ~dropped_mask;
  } else if (drop == 53) {
    // |x| in [2^(emin-p), 2^(emin-p+1)): zero at the midpoint (even) or the smallest subnormal.
    magnitude = magnitude > half_smallest_subnormal ? smallest_subnormal : 0;
  } else {
    magnitude = 0;  // below half the smallest subnormal (double subnormals included)
  }
  return std::bit_cast<double>(sign | magnitude);
}

}  // namespace accucheck
