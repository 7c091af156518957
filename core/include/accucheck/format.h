// Floating-point formats: f64, f32, f16 (IEEE binary16) and bf16.
//
// Every value of every format is exactly a double, so the harness carries values as
// doubles and a Format tag; these functions give the bit-level view, classification,
// spacing and round-to-nearest-even into each format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace accucheck {

enum class Format : std::uint8_t { f64 = 0, f32 = 1, f16 = 2, bf16 = 3 };

inline constexpr Format all_formats[] = {Format::f64, Format::f32, Format::f16, Format::bf16};

struct FormatTraits {
  std::string_view name;
  int precision;       // p, with the implicit bit
  int exponent_bits;
  int emin;            // exponent of the smallest normal: 2^emin
  int emax;            // exponent of the largest finite binade
  int storage_bits;
};

const FormatTraits& traits(Format f);
std::string_view name(Format f);
std::optional<Format> parse_format(std::string_view text);

// Unit roundoff u = 2^-p as an exponent: u = 2^(unit_roundoff_exponent).
inline int unit_roundoff_exponent(Format f) { return -traits(f).precision; }

double largest_finite(Format f);
double smallest_normal(Format f);
double smallest_subnormal(Format f);

enum class FloatClass { zero, subnormal, normal, infinite, nan };
FloatClass classify(double value, Format f);  // value must be representable in f

// True if the double is exactly a value of f (NaN and infinities included).
bool representable(double value, Format f);

// Round-to-nearest-even of any double into f (overflow to infinity, gradual underflow,
// signed zero preserved). For f64 this is the identity.
double round_to_format(double value, Format f);

// Raw bit patterns of the storage format (the low storage_bits bits are used).
// encode requires a representable value; NaN encodes as the default quiet NaN with its sign.
std::uint64_t encode(double value, Format f);
double decode(std::uint64_t bits, Format f);

// Spacing of f at value: 2^(max(exponent(value), emin) - p + 1); for 0 the smallest subnormal.
double ulp(double value, Format f);
// Neighbours in f (next_up(largest_finite) is +inf, next_up(-0) is the smallest subnormal).
double next_up(double value, Format f);
double next_down(double value, Format f);

// Monotone integer ordinal of a finite value of f: ordinal(next_up(x)) == ordinal(x)+1,
// with +0 and -0 both 0. Differences of ordinals count representable steps ("ulps").
std::int64_t ordinal(double value, Format f);

// C99 hex float of the double value (e.g. 0x1.8p-3), "inf", "-inf", "nan".
std::string hex_float(double value);
// Shortest decimal that rounds (to nearest even) back to the same value of f.
std::string shortest_decimal(double value, Format f);

}  // namespace accucheck
