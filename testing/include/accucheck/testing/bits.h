// Bit equality of results, the comparison every test of a claimed value uses: +0 and -0 differ,
// any NaN equals any NaN (a format's NaN payload is not part of any claim). Written here from
// the bit patterns, not through core's same_result_bits, so that tests do not judge core's
// comparisons with core's own.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace accucheck::test {

inline bool same_bits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// Both results the same length and bit for bit the same; a GoogleTest failure per element that
// differs, naming `what`, the element and both values (C99 hex floats).
void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b, const std::string& what);

}  // namespace accucheck::test
