// Correctly rounded summation: a Kulisch-style long accumulator of signed 64-bit digits, each
// holding 32 bits of the fixed-point sum (unit 2^-1074), carries resolved at the end, then one
// round-to-nearest-even into the storage format. Written independently of core's oracle (it
// shares no code with it), so that the harness checks it rather than comparing the oracle
// with itself. Order-independent: the exact sum does not depend on the order of the addends.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/per_element.h"

namespace accucheck::impls {
namespace {

class LongAccumulator {
 public:
  void add(double x) {
    if (std::isnan(x)) {
      nan_ = true;
      return;
    }
    if (std::isinf(x)) {
      (x > 0 ? positive_infinity_ : negative_infinity_) = true;
      return;
    }
    if (!(x == 0.0 && std::signbit(x))) all_negative_zero_ = false;
    if (x == 0.0) return;
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
    int position = 0;  // bit position of the mantissa's unit in units of 2^-1074
    if (biased != 0) {
      mantissa |= std::uint64_t{1} << 52;
      position = biased - 1;
    }
    const unsigned __int128 shifted = static_cast<unsigned __int128>(mantissa) << (position % 32);
    const int digit = position / 32;
    lowest_digit_ = std::min(lowest_digit_, digit);
    const std::int64_t sign = (bits >> 63) ? -1 : 1;
    for (int k = 0; k < 3; ++k)
      digits_[digit + k] += sign * static_cast<std::int64_t>(static_cast<std::uint32_t>(shifted >> (32 * k)));
    if (++pending_ == kNormalizeEvery) normalize();
  }

  double round(Format f) {
    if (nan_ || (positive_infinity_ && negative_infinity_)) return std::numeric_limits<double>::quiet_NaN();
    if (positive_infinity_) return std::numeric_limits<double>::infinity();
    if (negative_infinity_) return -std::numeric_limits<double>::infinity();
    normalize();
    // After normalize every digit but the top one is in [0, 2^32); the top one carries the sign.
    int top = kDigits - 1;
    while (top > 0 && digits_[top] == 0) --top;
    if (top == 0 && digits_[0] == 0) return all_negative_zero_ ? -0.0 : 0.0;
    const bool negative = digits_[top] < 0;
    std::uint32_t magnitude[kDigits] = {};
    // Two's complement negation of the whole number, digit by digit.
    std::int64_t borrow = 0;
    for (int i = 0; i < kDigits; ++i) {
      std::int64_t d = negative ? -digits_[i] - borrow : digits_[i];
      borrow = 0;
      if (negative && d < 0) {
        d += std::int64_t{1} << 32;
        borrow = 1;
      }
      magnitude[i] = static_cast<std::uint32_t>(d);
    }
    return (negative ? -1.0 : 1.0) * round_magnitude(magnitude, f);
  }

 private:
  static constexpr int kDigits = 72;               // 72*32 = 2304 bits >= 1074 + 1024 + carries
  static constexpr int kNormalizeEvery = 1 << 29;  // digits stay below 2^62 in magnitude

  void normalize() {
    std::int64_t carry = 0;
    // The digits below the lowest one an addend reached are zero and carry nothing.
    for (int i = std::min(lowest_digit_, kDigits - 1); i < kDigits - 1; ++i) {
      const std::int64_t d = digits_[i] + carry;
      carry = d >> 32;  // floor division by 2^32 (arithmetic shift)
      digits_[i] = d - (carry << 32);
    }
    digits_[kDigits - 1] += carry;
    pending_ = 0;
  }

  static bool bit(const std::uint32_t* m, int i) { return (m[i / 32] >> (i % 32)) & 1; }

  // Whether any of bits 0 .. end-1 is set (whole digits at a time: the sum of addends near
  // 1.0 has a thousand zero bits below it).
  static bool any_bit_below(const std::uint32_t* m, int end) {
    if (end <= 0) return false;
    for (int i = 0; i < end / 32; ++i)
      if (m[i] != 0) return true;
    return end % 32 != 0 && (m[end / 32] & ((std::uint32_t{1} << (end % 32)) - 1)) != 0;
  }

  static double round_magnitude(const std::uint32_t* m, Format f) {
    const int p = traits(f).precision, emin = traits(f).emin, emax = traits(f).emax;
    int top_digit = kDigits - 1;
    while (m[top_digit] == 0) --top_digit;  // the magnitude is not zero (round() checked)
    const int top_bit = top_digit * 32 + 31 - std::countl_zero(m[top_digit]);
    const int exponent = top_bit - 1074;
    if (exponent > emax + 1) return std::numeric_limits<double>::infinity();
    const int quantum = std::max(exponent, emin) - p + 1;  // exponent of the last kept bit
    const int quantum_bit = quantum + 1074;
    std::uint64_t units = 0;
    for (int i = top_bit; i >= std::max(quantum_bit, 0); --i) units = (units << 1) | bit(m, i);
    if (quantum_bit > 0) {
      const bool round_bit = bit(m, quantum_bit - 1);
      const bool sticky = any_bit_below(m, quantum_bit - 1);
      if (round_bit && (sticky || (units & 1))) ++units;
    }
    const double value = std::ldexp(static_cast<double>(units), std::max(quantum, -1074));
    const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - p), emax);
    return value > largest ? std::numeric_limits<double>::infinity() : value;
  }

  std::int64_t digits_[kDigits] = {};
  int pending_ = 0;
  int lowest_digit_ = kDigits;
  bool nan_ = false, positive_infinity_ = false, negative_infinity_ = false;
  bool all_negative_zero_ = true;
};

void correctly_rounded_run(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    LongAccumulator acc;
    acc.add(w.initial[j]);
    for (std::size_t t = 0; t < w.steps; ++t) acc.add(w.addends[t * w.elements + j]);
    result[j] = acc.round(w.format);
  }
}

Backend correctly_rounded(Format f) {
  return dense_backend(with_format("correctly_rounded_{F}", f), f, f, "correctly_rounded",
                       Determinism::order_independent, "long accumulator, one rounding to nearest even",
                       &correctly_rounded_run);
}

ACCUCHECK_REGISTER_BACKEND(correctly_rounded(Format::f64));
ACCUCHECK_REGISTER_BACKEND(correctly_rounded(Format::f32));
ACCUCHECK_REGISTER_BACKEND(correctly_rounded(Format::f16));
ACCUCHECK_REGISTER_BACKEND(correctly_rounded(Format::bf16));

}  // namespace
}  // namespace accucheck::impls
