#include "numerics/number_parse.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <string>

namespace accucheck {
namespace {

using boost::multiprecision::cpp_int;
namespace mp = boost::multiprecision;

// Tokens with more significant digits than this are refused rather than parsed: no format
// needs them to be written exactly (the longest exact f64 decimal has 767 significant digits).
constexpr std::size_t kMaxDigits = 2000;
// Exponents beyond this are clamped while reading; the magnitude checks below decide.
constexpr std::int64_t kExponentClamp = 1'000'000;

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

int digit_value(char c, int base) {
  int v = -1;
  if (c >= '0' && c <= '9')
    v = c - '0';
  else if (c >= 'a' && c <= 'f')
    v = c - 'a' + 10;
  else if (c >= 'A' && c <= 'F')
    v = c - 'A' + 10;
  return v < base ? v : -1;
}

// Reads [sign] digits for an exponent; clamps the magnitude.
bool read_exponent(std::string_view text, std::int64_t& out) {
  if (text.empty()) return false;
  bool negative = false;
  std::size_t i = 0;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++i;
  }
  if (i == text.size()) return false;
  std::int64_t value = 0;
  for (; i < text.size(); ++i) {
    int d = digit_value(text[i], 10);
    if (d < 0) return false;
    if (value < kExponentClamp) value = value * 10 + d;
  }
  out = negative ? -value : value;
  return true;
}

// floor(log2 |value|) estimate range in bits, from digit counts: cheap magnitude screening
// so that absurd tokens (1e999999) never build enormous integers.
struct Magnitude {
  double log2_low, log2_high;
};

Magnitude magnitude_of(const ExactNumber& n) {
  const double mantissa_bits = static_cast<double>(mp::msb(n.mantissa));
  const double scale = static_cast<double>(n.exponent2) + static_cast<double>(n.exponent10) * std::log2(10.0);
  return {mantissa_bits + scale - 1.0, mantissa_bits + 1.0 + scale + 1.0};
}

// Exact rational numerator / denominator (both positive) of a finite nonzero number.
void to_rational(const ExactNumber& n, cpp_int& numerator, cpp_int& denominator) {
  numerator = n.mantissa;
  denominator = 1;
  if (n.exponent2 >= 0)
    numerator <<= static_cast<unsigned>(n.exponent2);
  else
    denominator <<= static_cast<unsigned>(-n.exponent2);
  if (n.exponent10 >= 0)
    numerator *= mp::pow(cpp_int(10), static_cast<unsigned>(n.exponent10));
  else
    denominator *= mp::pow(cpp_int(10), static_cast<unsigned>(-n.exponent10));
}

// RNE of numerator/denominator (> 0) into f.
double round_rational(const cpp_int& numerator, const cpp_int& denominator, Format f) {
  const auto& t = traits(f);
  // exponent = floor(log2(numerator / denominator))
  int exponent = static_cast<int>(mp::msb(numerator)) - static_cast<int>(mp::msb(denominator));
  const bool below = exponent >= 0 ? numerator < (denominator << exponent) : (numerator << -exponent) < denominator;
  if (below) --exponent;
  if (exponent > t.emax + 1) return overflow_value(f, false);
  const int quantum_exponent = std::max(exponent, t.emin) - t.precision + 1;
  if (exponent < quantum_exponent - 2) return 0.0;  // below half the smallest subnormal
  cpp_int quotient, remainder, divisor = denominator;
  cpp_int scaled = numerator;
  if (quantum_exponent >= 0)
    divisor <<= quantum_exponent;
  else
    scaled <<= -quantum_exponent;
  mp::divide_qr(scaled, divisor, quotient, remainder);
  const int comparison = cpp_int(remainder * 2).compare(divisor);
  if (comparison > 0 || (comparison == 0 && mp::bit_test(quotient, 0))) ++quotient;
  const double result = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(quotient)), quantum_exponent);
  return result > largest_finite(f) ? overflow_value(f, false) : result;
}

}  // namespace

ParseResult parse_number(std::string_view token) {
  ParseResult result;
  ExactNumber& n = result.number;
  if (token.empty()) {
    result.error = "empty number";
    return result;
  }
  if (token.find(kUtf8ByteOrderMark) != std::string_view::npos) {
    result.error = "a UTF-8 byte order mark (U+FEFF, bytes EF BB BF) inside the number";
    return result;
  }
  std::string_view body = token;
  if (body[0] == '+' || body[0] == '-') {
    n.negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    n.kind = ExactNumber::Kind::infinity;
    return result;
  }
  if (iequals(body, "nan")) {
    n.kind = ExactNumber::Kind::nan;
    return result;
  }
  const bool hex = body.size() >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
  if (hex) body.remove_prefix(2);
  const int base = hex ? 16 : 10;
  const char exponent_marker = hex ? 'p' : 'e';
  std::size_t i = 0, digits = 0, significant = 0;
  // Zeros after a nonzero digit, held back until a nonzero digit follows: only then are they
  // significant. Trailing zeros (0x1.000...0p0) cost no arithmetic and count for nothing.
  std::size_t pending_zeros = 0;
  bool seen_point = false;
  std::int64_t fraction_digits = 0;
  for (; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '.') {
      if (seen_point) {
        result.error = "more than one decimal point";
        return result;
      }
      seen_point = true;
      continue;
    }
    const int d = digit_value(c, base);
    if (d < 0) break;
    ++digits;
    if (seen_point) ++fraction_digits;
    if (d == 0) {
      if (n.mantissa != 0) ++pending_zeros;
      continue;
    }
    significant += pending_zeros + 1;
    if (significant > kMaxDigits) {
      result.error = "too many significant digits (at most " + std::to_string(kMaxDigits) + ")";
      return result;
    }
    n.mantissa = n.mantissa * mp::pow(cpp_int(base), static_cast<unsigned>(pending_zeros + 1)) + d;
    pending_zeros = 0;
  }
  // The mantissa lacks the trailing zeros: value = mantissa * base^(pending_zeros - fraction_digits).
  const std::int64_t scale_digits = static_cast<std::int64_t>(pending_zeros) - fraction_digits;
  if (digits == 0) {
    result.error = hex ? "hex float without digits" : "not a number";
    return result;
  }
  std::int64_t exponent = 0;
  if (i < body.size()) {
    if (std::tolower(static_cast<unsigned char>(body[i])) != exponent_marker) {
      result.error = "unexpected character '" + printable_bytes(body.substr(i, 1)) + "'";
      return result;
    }
    if (!read_exponent(body.substr(i + 1), exponent)) {
      result.error = "malformed exponent";
      return result;
    }
  } else if (hex) {
    // C99 allows hex floats without a binary exponent only for integers in source; accept it.
  }
  if (hex) {
    n.exponent2 = exponent + 4 * scale_digits;
  } else {
    n.exponent10 = exponent + scale_digits;
  }
  return result;
}

std::string printable_bytes(std::string_view text) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += "\\x";
      out += digits[byte >> 4];
      out += digits[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

std::string echo_token(std::string_view token) {
  constexpr std::size_t kShown = 40;
  if (token.size() <= kShown) return "'" + printable_bytes(token) + "'";
  return "'" + printable_bytes(token.substr(0, kShown)) + "...' (" + std::to_string(token.size()) + " characters)";
}

std::optional<std::uint64_t> parse_u64(std::string_view text, bool* too_large) {
  if (too_large) *too_large = false;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
      if (too_large) *too_large = true;
      return std::nullopt;
    }
    value = value * 10 + digit;
  }
  return value;
}

std::optional<double> exact_value_in(const ExactNumber& number, Format f) {
  if (number.kind == ExactNumber::Kind::nan) return std::numeric_limits<double>::quiet_NaN();
  if (number.kind == ExactNumber::Kind::infinity) {
    const double infinity = overflow_value(f, number.negative);  // NaN where f has no infinity (e4m3)
    return std::isinf(infinity) ? std::optional<double>(infinity) : std::nullopt;
  }
  const double rounded = round_parsed_to_format(number, f);
  if (!std::isfinite(rounded)) return std::nullopt;  // beyond the range: infinity, or e4m3's NaN
  if (number.mantissa == 0) return rounded;
  if (rounded == 0.0) return std::nullopt;
  // Exact iff rounding lost nothing: compare rounded (a dyadic) with the rational exactly.
  cpp_int numerator, denominator;
  to_rational(number, numerator, denominator);
  int exponent;
  const double fraction = std::frexp(std::fabs(rounded), &exponent);
  cpp_int significand = static_cast<std::uint64_t>(std::ldexp(fraction, 64));
  const int scale = exponent - 64;  // |rounded| = significand * 2^scale
  cpp_int left = numerator, right = denominator * significand;
  if (scale >= 0)
    right <<= scale;
  else
    left <<= -scale;
  if (left != right) return std::nullopt;
  return rounded;
}

double round_parsed_to_format(const ExactNumber& number, Format f) {
  const double sign = number.negative ? -1.0 : 1.0;
  if (number.kind == ExactNumber::Kind::nan) return std::numeric_limits<double>::quiet_NaN();
  if (number.kind == ExactNumber::Kind::infinity) return overflow_value(f, number.negative);
  if (number.mantissa == 0) return sign * 0.0;
  const Magnitude m = magnitude_of(number);
  const auto& t = traits(f);
  if (m.log2_low > t.emax + 2) return overflow_value(f, number.negative);
  if (m.log2_high < t.emin - t.precision - 2) return sign * 0.0;
  cpp_int numerator, denominator;
  to_rational(number, numerator, denominator);
  return sign * round_rational(numerator, denominator, f);
}

}  // namespace accucheck
