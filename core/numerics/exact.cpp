#include "numerics/exact.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace accucheck {

FixedInt to_fixed(double finite_value) {
  // x = mantissa * 2^(exponent - 53) with a 53-bit integer mantissa; ilogb-free decomposition
  // through the bits keeps subnormals exact.
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(finite_value);
  const bool negative = bits >> 63;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
  int shift;  // position of the mantissa's unit bit in the 2^-1074 grid
  if (biased == 0) {
    shift = 0;  // subnormal: mantissa * 2^-1074
  } else {
    mantissa |= std::uint64_t{1} << 52;
    shift = biased - 1;  // (biased - 1023 - 52) + 1074
  }
  FixedInt result = mantissa;
  result <<= shift;
  return negative ? FixedInt(-result) : result;
}

double round_fixed(const FixedInt& value, Format f) {
  if (value == 0) return 0.0;
  const auto& t = traits(f);
  const bool negative = value < 0;
  const FixedInt magnitude = negative ? FixedInt(-value) : value;
  const int top_bit = static_cast<int>(mp::msb(magnitude));
  const int exponent = top_bit - fixed_scale;  // floor(log2 |value|)
  if (exponent > t.emax + 1) return overflow_value(f, negative);
  const int quantum_exponent = std::max(exponent, t.emin) - t.precision + 1;
  const int quantum_bit = quantum_exponent + fixed_scale;  // >= 0 for every format
  std::uint64_t units;
  if (quantum_bit <= 0) {
    units = static_cast<std::uint64_t>(magnitude);
  } else {
    units = static_cast<std::uint64_t>(FixedInt(magnitude >> quantum_bit));
    const bool round_bit = mp::bit_test(magnitude, quantum_bit - 1);
    bool sticky = false;
    if (round_bit) {
      // Any set bit below the round bit? lsb of the magnitude tells at once.
      sticky = static_cast<int>(mp::lsb(magnitude)) < quantum_bit - 1;
    }
    if (round_bit && (sticky || (units & 1))) ++units;  // nearest, ties to even
  }
  double result = std::ldexp(static_cast<double>(units), std::max(quantum_exponent, -fixed_scale));
  if (std::fabs(result) > largest_finite(f)) return overflow_value(f, negative);
  return negative ? -result : result;
}

std::string fixed_hex(const FixedInt& value) {
  if (value == 0) return "0x0p+0";
  const bool negative = value < 0;
  FixedInt magnitude = negative ? FixedInt(-value) : value;
  const int trailing = static_cast<int>(mp::lsb(magnitude));
  magnitude >>= trailing;
  const int exponent = trailing - fixed_scale;
  std::string digits;
  while (magnitude != 0) {
    const unsigned nibble = static_cast<unsigned>(magnitude & 0xf);
    digits.push_back("0123456789abcdef"[nibble]);
    magnitude >>= 4;
  }
  std::reverse(digits.begin(), digits.end());
  return std::string(negative ? "-" : "") + "0x" + digits + "p" + (exponent >= 0 ? "+" : "") + std::to_string(exponent);
}

std::string_view name(Special s) {
  switch (s) {
    case Special::none: return "finite";
    case Special::nan: return "nan";
    case Special::pos_inf: return "+inf";
    case Special::neg_inf: return "-inf";
  }
  return "?";
}

double ExactSum::rounded(Format f) const {
  switch (special) {
    case Special::nan: return std::numeric_limits<double>::quiet_NaN();
    case Special::pos_inf: return overflow_value(f, false);  // NaN in e4m3, which has no infinity
    case Special::neg_inf: return overflow_value(f, true);
    case Special::none: break;
  }
  if (sum == 0) return (count > 0 && all_negative_zero) ? -0.0 : 0.0;
  return round_fixed(sum, f);
}

double ExactSum::condition_number() const {
  if (special != Special::none) return std::numeric_limits<double>::quiet_NaN();
  if (abs_sum == 0) return 1.0;
  if (sum == 0) return std::numeric_limits<double>::infinity();
  // A / |S| to nearest: both exact, their quotient through long division in BigInt.
  const BigInt numerator(abs_sum), denominator(mp::abs(BigInt(sum)));
  // Scale so that the integer quotient carries 64 significant bits, then convert.
  int shift = 64 - (static_cast<int>(mp::msb(numerator)) - static_cast<int>(mp::msb(denominator)));
  BigInt scaled_numerator = numerator, scaled_denominator = denominator;
  if (shift >= 0)
    scaled_numerator <<= shift;
  else
    scaled_denominator <<= -shift;
  BigInt quotient, remainder;
  mp::divide_qr(scaled_numerator, scaled_denominator, quotient, remainder);
  // The quotient has 64 or 65 bits. Keep 63 of them and a sticky bit for everything below,
  // then convert through uint64_t, which rounds to nearest even. (A bare truncated quotient
  // can land on a tie that the exact one is above; and Boost 1.74's cpp_int -> double
  // conversion does not round correctly beyond 64 bits.)
  bool sticky = remainder != 0;
  const int extra = static_cast<int>(mp::msb(quotient)) - 62;
  if (extra > 0) {
    sticky = sticky || static_cast<int>(mp::lsb(quotient)) < extra;
    quotient >>= extra;
    shift -= extra;
  }
  std::uint64_t bits = static_cast<std::uint64_t>(quotient);
  if (sticky) bits |= 1;
  return std::ldexp(static_cast<double>(bits), -shift);
}

void BoostExactAccumulator::add(double x) {
  ++state_.count;
  if (!(std::signbit(x) && x == 0.0)) state_.all_negative_zero = false;
  if (std::isnan(x)) {
    has_nan_ = true;
    return;
  }
  if (std::isinf(x)) {
    (x > 0 ? has_pos_inf_ : has_neg_inf_) = true;
    return;
  }
  if (x == 0.0) return;
  const FixedInt scaled = to_fixed(x);
  state_.sum += scaled;
  state_.abs_sum += mp::abs(scaled);
  state_.max_abs = std::max(state_.max_abs, std::fabs(x));
}

const ExactSum& BoostExactAccumulator::result() {
  if (has_nan_ || (has_pos_inf_ && has_neg_inf_))
    state_.special = Special::nan;
  else if (has_pos_inf_)
    state_.special = Special::pos_inf;
  else if (has_neg_inf_)
    state_.special = Special::neg_inf;
  else
    state_.special = Special::none;
  return state_;
}

ExactSum boost_exact_sum(std::span<const double> addends) {
  BoostExactAccumulator accumulator;
  accumulator.add(addends);
  return accumulator.result();
}

}  // namespace accucheck
