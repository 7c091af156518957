#include "numerics/format.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "numerics/fp8.h"
#include "numerics/number_parse.h"

namespace accucheck {
namespace {

constexpr std::array<FormatTraits, 6> kTraits = {{
    {"f64", 53, 11, -1022, 1023, 64},
    {"f32", 24, 8, -126, 127, 32},
    {"f16", 11, 5, -14, 15, 16},
    {"bf16", 8, 8, -126, 127, 16},
    {"e4m3", 4, 4, -6, 8, 8},
    {"e5m2", 3, 5, -14, 15, 8},
}};

int exponent_of(double magnitude) {  // floor(log2 |x|) for finite nonzero x
  return std::ilogb(magnitude);
}

}  // namespace

const FormatTraits& traits(Format f) { return kTraits[static_cast<int>(f)]; }
std::string_view name(Format f) { return traits(f).name; }

std::optional<Format> parse_format(std::string_view text) {
  for (Format f : all_formats)
    if (name(f) == text) return f;
  if (text == "double" || text == "float64" || text == "binary64") return Format::f64;
  if (text == "float" || text == "float32" || text == "binary32") return Format::f32;
  if (text == "half" || text == "float16" || text == "binary16" || text == "fp16") return Format::f16;
  if (text == "bfloat16") return Format::bf16;
  return std::nullopt;
}

std::optional<Format> parse_any_format(std::string_view text) {
  if (auto f = parse_format(text)) return f;
  // ml-dtypes' and PyTorch's names too (float8_e4m3fn: "finite", no infinity).
  if (text == "e4m3" || text == "float8_e4m3fn" || text == "fp8_e4m3") return Format::e4m3;
  if (text == "e5m2" || text == "float8_e5m2" || text == "fp8_e5m2") return Format::e5m2;
  return std::nullopt;
}

double largest_finite(Format f) {  // (2 - 2^(1-p)) 2^emax
  switch (f) {
    case Format::f64: return 0x1.fffffffffffffp1023;
    case Format::f32: return 0x1.fffffep127;
    case Format::f16: return 0x1.ffcp15;
    case Format::bf16: return 0x1.fep127;
    case Format::e4m3: return 448.0;  // 1.75 * 2^8: S.1111.111 is NaN
    case Format::e5m2: return 57344.0;
  }
  const auto& t = traits(f);
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - t.precision), t.emax);
}
double smallest_normal(Format f) { return std::ldexp(1.0, traits(f).emin); }
double smallest_subnormal(Format f) {
  const auto& t = traits(f);
  return std::ldexp(1.0, t.emin - t.precision + 1);
}

double overflow_value(Format f, bool negative) {
  const double magnitude =
      f == Format::e4m3 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  return negative ? -magnitude : magnitude;
}

double round_to_format(double value, Format f) {
  if (f == Format::f16) return round_to_small_format<Format::f16>(value);
  if (f == Format::bf16) return round_to_small_format<Format::bf16>(value);
  return round_to_format_reference(value, f);  // f64, f32: the identity or one conversion
}

double round_to_format_reference(double value, Format f) {
  if (is_fp8(f)) return fp8_round(value, f);  // one definition; checked against ml-dtypes
  if (f == Format::f64 || std::isnan(value) || std::isinf(value) || value == 0.0) {
    if (std::isnan(value)) return std::copysign(std::numeric_limits<double>::quiet_NaN(), value);
    return value;
  }
  if (f == Format::f32) return static_cast<double>(static_cast<float>(value));  // SSE: RNE
  const auto& t = traits(f);
  const double magnitude = std::fabs(value);
  // Beyond the midpoint between the largest finite value and 2^(emax+1) rounds to infinity;
  // the midpoint itself ties to the even neighbour 2^(emax+1), which is infinity too.
  const double overflow_threshold = std::ldexp(2.0 - std::ldexp(1.0, -t.precision), t.emax);
  if (magnitude >= overflow_threshold) return std::copysign(std::numeric_limits<double>::infinity(), value);
  const int exponent = std::max(exponent_of(magnitude), t.emin);
  const int quantum_exponent = exponent - t.precision + 1;
  // Scaling by powers of two is exact here (no overflow, and scaling up never underflows);
  // nearbyint rounds to nearest even in the default rounding mode.
  const double units = std::nearbyint(std::ldexp(magnitude, -quantum_exponent));
  return std::copysign(std::ldexp(units, quantum_exponent), value);
}

bool representable(double value, Format f) {
  if (std::isnan(value)) return true;
  return round_to_format(value, f) == value;
}

FloatClass classify(double value, Format f) {
  if (std::isnan(value)) return FloatClass::nan;
  if (std::isinf(value)) return FloatClass::infinite;
  if (value == 0.0) return FloatClass::zero;
  if (std::fabs(value) < smallest_normal(f)) return FloatClass::subnormal;
  return FloatClass::normal;
}

std::uint64_t encode(double value, Format f) {
  if (is_fp8(f)) return fp8_encode(value, f);
  if (f == Format::f64) {
    if (std::isnan(value)) value = std::copysign(std::numeric_limits<double>::quiet_NaN(), value);
    return std::bit_cast<std::uint64_t>(value);
  }
  if (f == Format::f32) {
    float narrow = static_cast<float>(value);
    if (std::isnan(value)) narrow = std::copysign(std::numeric_limits<float>::quiet_NaN(), static_cast<float>(value));
    return std::bit_cast<std::uint32_t>(narrow);
  }
  const auto& t = traits(f);
  const int mantissa_bits = t.precision - 1;
  const std::uint64_t sign = std::signbit(value) ? 1 : 0;
  const std::uint64_t exponent_all_ones = (std::uint64_t{1} << t.exponent_bits) - 1;
  std::uint64_t biased = 0, mantissa = 0;
  if (std::isnan(value)) {
    biased = exponent_all_ones;
    mantissa = std::uint64_t{1} << (mantissa_bits - 1);
  } else if (std::isinf(value)) {
    biased = exponent_all_ones;
  } else if (value != 0.0) {
    const double magnitude = std::fabs(value);
    const int bias = t.emax;
    if (magnitude < smallest_normal(f)) {
      mantissa = static_cast<std::uint64_t>(std::ldexp(magnitude, -(t.emin - mantissa_bits)));
    } else {
      const int exponent = exponent_of(magnitude);
      biased = static_cast<std::uint64_t>(exponent + bias);
      mantissa = static_cast<std::uint64_t>(std::ldexp(magnitude, mantissa_bits - exponent)) -
                 (std::uint64_t{1} << mantissa_bits);
    }
  }
  return (sign << (t.storage_bits - 1)) | (biased << mantissa_bits) | mantissa;
}

double decode(std::uint64_t bits, Format f) {
  if (is_fp8(f)) return fp8_decode(static_cast<std::uint8_t>(bits), f);
  if (f == Format::f64) return std::bit_cast<double>(bits);
  if (f == Format::f32) return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  const auto& t = traits(f);
  const int mantissa_bits = t.precision - 1;
  const std::uint64_t exponent_all_ones = (std::uint64_t{1} << t.exponent_bits) - 1;
  const bool negative = (bits >> (t.storage_bits - 1)) & 1;
  const std::uint64_t biased = (bits >> mantissa_bits) & exponent_all_ones;
  const std::uint64_t mantissa = bits & ((std::uint64_t{1} << mantissa_bits) - 1);
  double magnitude;
  if (biased == exponent_all_ones) {
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (biased == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), t.emin - mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (std::uint64_t{1} << mantissa_bits)),
                           static_cast<int>(biased) - t.emax - mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

std::size_t storage_size(Format f) {
  switch (f) {
    case Format::f64: return 8;
    case Format::f32: return 4;
    case Format::f16:
    case Format::bf16: return 2;
    case Format::e4m3:
    case Format::e5m2: return 1;
  }
  return 8;
}

void store_value(double value, Format f, unsigned char* out) {
  if (f == Format::f64) {
    std::memcpy(out, &value, 8);
  } else if (f == Format::f32) {
    const float v = static_cast<float>(value);  // exact: the value is an f32 value
    std::memcpy(out, &v, 4);
  } else if (is_fp8(f)) {
    *out = static_cast<unsigned char>(encode(value, f));
  } else {
    const auto bits = static_cast<std::uint16_t>(encode(value, f));
    std::memcpy(out, &bits, 2);
  }
}

double load_value(const unsigned char* in, Format f) {
  if (f == Format::f64) {
    double x;
    std::memcpy(&x, in, 8);
    return x;
  }
  if (f == Format::f32) {
    float x;
    std::memcpy(&x, in, 4);
    return static_cast<double>(x);
  }
  if (is_fp8(f)) return decode(*in, f);
  std::uint16_t bits;
  std::memcpy(&bits, in, 2);
  return decode(bits, f);
}

double ulp(double value, Format f) {
  const auto& t = traits(f);
  if (value == 0.0 || std::isnan(value) || std::isinf(value)) return smallest_subnormal(f);
  const int exponent = std::max(exponent_of(std::fabs(value)), t.emin);
  return std::ldexp(1.0, exponent - t.precision + 1);
}

std::int64_t ordinal(double value, Format f) {
  // Sign-magnitude bits map monotonically onto integers: magnitude bits for x >= 0,
  // their negation for x < 0 (both zeros map to 0).
  const auto& t = traits(f);
  const std::uint64_t bits = encode(value, f);
  const std::uint64_t magnitude_mask =
      (t.storage_bits == 64) ? ~(std::uint64_t{1} << 63) : ((std::uint64_t{1} << (t.storage_bits - 1)) - 1);
  const auto magnitude = static_cast<std::int64_t>(bits & magnitude_mask);
  return std::signbit(value) ? -magnitude : magnitude;
}

double next_up(double value, Format f) {
  if (std::isnan(value) || value == std::numeric_limits<double>::infinity()) return value;
  if (value == -std::numeric_limits<double>::infinity()) return -largest_finite(f);
  const std::int64_t next = ordinal(value, f) + 1;
  const auto& t = traits(f);
  const std::uint64_t sign_bit = std::uint64_t{1} << (t.storage_bits - 1);
  if (next > 0) return decode(static_cast<std::uint64_t>(next), f);
  if (next == 0) return -0.0;
  return decode(sign_bit | static_cast<std::uint64_t>(-next), f);
}

double next_down(double value, Format f) { return -next_up(-value, f); }

std::string hex_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", value);
  return buffer;
}

std::string shortest_decimal(double value, Format f) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0.0) return std::signbit(value) ? "-0" : "0";
  // The nearest decimal with k significant digits, for growing k, and its two neighbours
  // on the k-digit grid: the first that parses (correctly rounded into f) back to value.
  // Parsing is exact (parse_number), so a candidate is accepted only if it truly round-trips.
  char buffer[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, value);
    std::string best;
    auto try_candidate = [&](const std::string& text) {
      auto parsed = parse_number(text);
      if (!parsed.ok()) return;
      if (round_parsed_to_format(parsed.number, f) != value) return;
      if (best.empty()) best = text;
    };
    try_candidate(buffer);
    if (best.empty()) {
      // Neighbouring k-digit decimals: nudge the last digit by one in each direction.
      for (int direction : {-1, +1}) {
        std::string text = buffer;
        auto e_position = text.find('e');
        std::string mantissa = text.substr(0, e_position), exponent = text.substr(e_position);
        bool negative = mantissa[0] == '-';
        std::string digits_only;
        for (char c : mantissa)
          if (c >= '0' && c <= '9') digits_only += c;
        // Increment or decrement the digit string as an integer.
        long long as_integer = std::stoll(digits_only);
        as_integer += negative ? -direction : direction;
        if (as_integer <= 0) continue;
        std::string renewed = std::to_string(as_integer);
        int exponent_value = std::stoi(exponent.substr(1));
        exponent_value += static_cast<int>(renewed.size()) - static_cast<int>(digits_only.size());
        std::string rebuilt = (negative ? "-" : "") + renewed.substr(0, 1);
        if (renewed.size() > 1) rebuilt += "." + renewed.substr(1);
        rebuilt += "e" + std::to_string(exponent_value);
        try_candidate(rebuilt);
      }
    }
    if (!best.empty()) {
      // Present without exponent when that is as short and still round-trips.
      std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
      std::string plain = buffer;
      auto plain_parsed = parse_number(plain);
      if (plain_parsed.ok() && round_parsed_to_format(plain_parsed.number, f) == value && plain.size() <= best.size())
        return plain;
      return best;
    }
  }
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

}  // namespace accucheck
