#include "numerics/fp8.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace accucheck {
namespace {

constexpr Fp8Encoding kE4m3{7, false, 0x7e, 0x7f};
constexpr Fp8Encoding kE5m2{15, true, 0x7b, 0x7e};

constexpr std::uint8_t kSignBit = 0x80;
constexpr std::uint8_t kE5m2Infinity = 0x7c;

// The code of a finite non-negative value of f (already rounded, at most the largest finite).
std::uint8_t code_of(double a, const FormatTraits& t, const Fp8Encoding& e) {
  const int fraction_bits = t.precision - 1;
  if (a < std::ldexp(1.0, t.emin))  // subnormal or zero: the multiple of 2^(emin - p + 1)
    return static_cast<std::uint8_t>(std::ldexp(a, fraction_bits - t.emin));
  const int exponent = std::ilogb(a);
  const auto fraction = static_cast<std::uint8_t>((std::ldexp(a, -exponent) - 1.0) * (1 << fraction_bits));
  return static_cast<std::uint8_t>(((exponent + e.bias) << fraction_bits) | fraction);
}

}  // namespace

const Fp8Encoding& fp8_encoding(Format f) { return f == Format::e4m3 ? kE4m3 : kE5m2; }

double fp8_decode(std::uint8_t code, Format f) {
  const FormatTraits& t = traits(f);
  const Fp8Encoding& e = fp8_encoding(f);
  const int fraction_bits = t.precision - 1;
  const bool negative = (code & kSignBit) != 0;
  const int exponent_field = (code & 0x7f) >> fraction_bits;
  const int fraction = code & ((1 << fraction_bits) - 1);
  double magnitude;
  if (!e.has_infinity && (code & 0x7f) == 0x7f) {
    magnitude = std::numeric_limits<double>::quiet_NaN();
  } else if (e.has_infinity && exponent_field == (1 << t.exponent_bits) - 1) {
    magnitude = fraction == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent_field == 0) {
    magnitude = std::ldexp(fraction, t.emin - fraction_bits);
  } else {
    magnitude = std::ldexp((1 << fraction_bits) + fraction, exponent_field - e.bias - fraction_bits);
  }
  return negative ? -magnitude : magnitude;
}

std::uint8_t fp8_encode(double value, Format f, Fp8Overflow overflow) {
  const FormatTraits& t = traits(f);
  const Fp8Encoding& e = fp8_encoding(f);
  const std::uint8_t sign = std::signbit(value) ? kSignBit : 0;
  const std::uint8_t on_overflow = overflow == Fp8Overflow::saturating ? e.largest_finite_code
                                   : e.has_infinity                    ? kE5m2Infinity
                                                                       : e.nan_code;
  if (std::isnan(value)) return sign | e.nan_code;
  const double a = std::fabs(value);
  if (std::isinf(a)) return sign | on_overflow;
  // At most half the smallest subnormal (double subnormals included): zero of the same sign.
  if (a <= std::ldexp(1.0, t.emin - t.precision)) return sign;
  // The quantum of a's binade in f, and a in units of it: below 2^p, exact (a power-of-two
  // scaling of a normal double that stays normal).
  const int quantum_exponent = std::max(std::ilogb(a), t.emin) - t.precision + 1;
  const double units = std::ldexp(a, -quantum_exponent);
  // Nearest integer, ties to even, without the dynamic rounding mode: the fraction of a value
  // below 2^p is exact.
  double whole = static_cast<double>(static_cast<std::uint32_t>(units));
  const double rest = units - whole;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(whole, 2.0) != 0)) whole += 1;
  const double rounded = std::ldexp(whole, quantum_exponent);
  if (rounded > largest_finite(f)) return sign | on_overflow;
  return sign | code_of(rounded, t, e);
}

double fp8_round(double value, Format f, Fp8Overflow overflow) { return fp8_decode(fp8_encode(value, f, overflow), f); }

}  // namespace accucheck
