#include "checking/float_gen.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace accucheck {
namespace {

// 1 + (the choice's low `bits` bits reversed) / 2^bits: choice 0 gives 1, then 1.5, 1.25,
// 1.75, ...: a smaller choice is a shorter binary fraction.
double reversed_significand(std::uint64_t choice, int bits) {
  std::uint64_t reversed = 0;
  for (int i = 0; i < bits; ++i)
    if (choice >> i & 1) reversed |= std::uint64_t{1} << (bits - 1 - i);
  return 1.0 + std::ldexp(static_cast<double>(reversed), -bits);
}

}  // namespace

std::vector<double> special_values(Format f, bool with_nonfinite) {
  const auto& t = traits(f);
  const double one_ulp = std::ldexp(1.0, 1 - t.precision);
  std::vector<double> values = {
      0.0,
      -0.0,
      1.0,
      smallest_subnormal(f),
      smallest_normal(f) - smallest_subnormal(f),  // largest subnormal
      smallest_normal(f),
      largest_finite(f),
      0.5,
      2.0,
      1.0 + one_ulp,
      1.0 - one_ulp / 2,
      one_ulp,
      std::ldexp(1.0, -t.precision),  // u
      std::ldexp(1.0, t.precision),   // 2^p: integers stop being exact
      std::ldexp(1.0, t.precision) - 1.0,
      std::ldexp(1.0, t.precision) + 2.0,
      std::ldexp(1.0, t.emax),  // largest power of two
      largest_finite(f) - std::ldexp(1.0, t.emax - t.precision + 1),
      smallest_normal(f) + smallest_subnormal(f),
  };
  if (with_nonfinite) {
    if (representable(std::numeric_limits<double>::infinity(), f)) {  // not E4M3's (OFP8: no infinities)
      values.push_back(std::numeric_limits<double>::infinity());
      values.push_back(-std::numeric_limits<double>::infinity());
    }
    values.push_back(std::numeric_limits<double>::quiet_NaN());
  }
  return values;
}

double draw_simple_float(ChoiceStream& s, Format f) {
  const auto& t = traits(f);
  const bool negative = s.coin();
  double magnitude;
  if (!s.coin()) {
    // Small integers: 0, 1, 2, ... (rounded into f where they are not exact).
    magnitude = static_cast<double>(s.draw(std::uint64_t{1} << std::min(t.precision, 16)));
  } else {
    // Exponents zig-zag out from 0 (0, -1, 1, -2, 2, ...); the mantissa's bits are reversed
    // so that small choices are short binary fractions (1.5, 1.25, 1.75, ...).
    const int lowest = t.emin - t.precision + 1;
    const std::uint64_t spread = static_cast<std::uint64_t>(2 * std::max(t.emax, -lowest));
    const std::uint64_t index = s.draw(spread);
    int exponent = (index % 2 == 0) ? static_cast<int>(index / 2) : -static_cast<int>((index + 1) / 2);
    exponent = std::clamp(exponent, lowest, t.emax);
    const int mantissa_bits = t.precision - 1;
    magnitude =
        std::ldexp(reversed_significand(s.draw((std::uint64_t{1} << mantissa_bits) - 1), mantissa_bits), exponent);
  }
  double value = round_to_format(magnitude, f);
  if (!std::isfinite(value)) value = largest_finite(f);  // E4M3's top binade ends at 448, 1.75 2^8
  return negative ? -value : value;
}

double draw_special_float(ChoiceStream& s, Format f, bool with_nonfinite) {
  const auto values = special_values(f, with_nonfinite);
  const double v = values[s.pick(values.size())];
  return s.coin() ? -v : v;
}

double draw_band_float(ChoiceStream& s, Format f, int exponent_low, int exponent_high, bool positive) {
  const auto& t = traits(f);
  const int exponent =
      static_cast<int>(s.between(0, static_cast<std::uint64_t>(exponent_high - exponent_low))) + exponent_low;
  // Only the format's p-1 fraction bits are drawn (3 bytes for f32, 1 for bf16), bit-reversed
  // as in draw_simple_float: choice 0 is the power of two 2^e, small choices are short binary
  // fractions (1.5, 1.25, 1.75, ...), so shrinking the stream simplifies the value.
  const int mantissa_bits = t.precision - 1;
  const double significand = reversed_significand(s.draw((std::uint64_t{1} << mantissa_bits) - 1), mantissa_bits);
  double value = round_to_format(std::ldexp(significand, exponent), f);
  if (!std::isfinite(value)) value = largest_finite(f);  // the band touched the top binade (E4M3: NaN)
  return (!positive && s.coin()) ? -value : value;
}

double draw_float(ChoiceStream& s, Format f, bool with_nonfinite) {
  switch (s.draw(9)) {
    case 0:
    case 1:
    case 2:
    case 3: return draw_simple_float(s, f);
    case 4:
    case 5: return draw_special_float(s, f, with_nonfinite);
    case 6:
    case 7:
    case 8: {
      const auto& t = traits(f);
      return draw_band_float(s, f, t.emin - t.precision + 1, t.emax);
    }
    default: {
      const auto& t = traits(f);
      const std::uint64_t mask = t.storage_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << t.storage_bits) - 1;
      double v = decode(s.draw(mask), f);
      if (!with_nonfinite && !std::isfinite(v)) v = std::copysign(largest_finite(f), v);
      return v;
    }
  }
}

}  // namespace accucheck
