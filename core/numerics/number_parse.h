// Exact parsing of numbers as users write them: decimal (1.5, -2e-3), C99 hex floats
// (0x1.8p-3), inf, -inf, nan. The parsed value is exact (a rational), so the harness can
// tell whether a token is exactly a value of a format, and round it correctly if asked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/multiprecision/cpp_int.hpp>

#include "numerics/format.h"

namespace accucheck {

struct ExactNumber {
  enum class Kind : std::uint8_t { finite, infinity, nan } kind = Kind::finite;
  bool negative = false;
  boost::multiprecision::cpp_int mantissa = 0;  // value = mantissa * 2^exponent2 * 10^exponent10
  std::int64_t exponent2 = 0;
  std::int64_t exponent10 = 0;
};

struct ParseResult {
  ExactNumber number;
  std::string error;  // empty on success
  bool ok() const { return error.empty(); }
};

// Parses one whole token. Never throws; errors say what is wrong with the token.
ParseResult parse_number(std::string_view token);

// Error messages echo what they refuse so that it can be seen: control bytes, non-ASCII bytes
// and backslashes escaped (a NUL as \x00, a byte order mark as \xef\xbb\xbf), and echo_token
// quotes a token, cut to its first 40 characters with "..." and its length when longer.
std::string printable_bytes(std::string_view text);
std::string echo_token(std::string_view token);
inline constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

// A whole token of decimal digits as an unsigned 64-bit integer (seeds, counts): nullopt when it
// is not digits only or exceeds 2^64-1; *too_large (when given) says which.
std::optional<std::uint64_t> parse_u64(std::string_view text, bool* too_large = nullptr);
inline constexpr const char* kU64MaxText = "2^64-1 = 18446744073709551615";

// The value as a double if it is exactly a value of f, else nullopt.
std::optional<double> exact_value_in(const ExactNumber& number, Format f);

// Round-to-nearest-even of the exact number into f (overflow to infinity, signed zero).
double round_parsed_to_format(const ExactNumber& number, Format f);

}  // namespace accucheck
