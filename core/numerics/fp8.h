// The OCP 8-bit floating-point formats E4M3 and E5M2: exact decoding and round-to-nearest-even
// encoding with either overflow rule.
//
// Source: Open Compute Project, "OCP 8-bit Floating Point Specification (OFP8)", revision 1.0
// (2023): section 4 (the encodings) and section 5 (conversion into them: round to nearest, ties
// to even; overflow either saturates to the largest finite value or gives the format's
// infinity or NaN).
//   E4M3: bias 7, 3 fraction bits. No infinities; NaN is S.1111.111 (two codes). The largest
//         finite value is S.1111.110 = 1.75 * 2^8 = 448; smallest normal 2^-6, smallest
//         subnormal 2^-9.
//   E5M2: bias 15, 2 fraction bits, IEEE 754 conventions: infinity S.11111.00, NaN
//         S.11111.{01,10,11}. Largest finite 1.75 * 2^15 = 57344; smallest normal 2^-14,
//         smallest subnormal 2^-16.
// Every value of both is exactly a double, as for the other formats; both are values of Format
// (format.h), whose functions call these for them.
#pragma once

#include <cstdint>

#include "numerics/format.h"

namespace accucheck {

// What the two encodings have beyond FormatTraits (format.h: precision, exponent bits, emin,
// emax, storage bits).
struct Fp8Encoding {
  int bias;                          // 7, 15
  bool has_infinity;                 // E5M2 only
  std::uint8_t largest_finite_code;  // 0x7e (448), 0x7b (57344)
  std::uint8_t nan_code;             // the NaN fp8_encode writes, sign bit clear: 0x7f, 0x7e (quiet)
};

// f must be Format::e4m3 or Format::e5m2 (is_fp8).
const Fp8Encoding& fp8_encoding(Format f);

// What happens to a value beyond the largest finite one after rounding (OFP8 section 5):
// non_saturating gives infinity (E5M2) or NaN (E4M3, which has no infinity), and an infinite
// input stays infinite (E5M2) or becomes NaN (E4M3); saturating gives the largest finite value
// of the same sign, for infinite inputs too (as PTX's cvt .satfinite does). NaN stays NaN.
// format.h's round_to_format, encode and decode are the non-saturating rule.
enum class Fp8Overflow : std::uint8_t { non_saturating, saturating };

// The exact value of a code (NaN for NaN codes, signed zeros and infinities kept).
double fp8_decode(std::uint8_t code, Format f);

// Round-to-nearest-even of any double into f (one rounding, gradual underflow, the sign of a
// zero kept), with the overflow rule; NaN becomes the format's nan_code with the input's sign.
// Independent of the dynamic rounding mode.
std::uint8_t fp8_encode(double value, Format f, Fp8Overflow overflow = Fp8Overflow::non_saturating);

// fp8_decode(fp8_encode(value, f, overflow), f).
double fp8_round(double value, Format f, Fp8Overflow overflow = Fp8Overflow::non_saturating);

}  // namespace accucheck
