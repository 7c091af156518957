#include "accucheck/testing/bits.h"

#include <gtest/gtest.h>

#include "numerics/format.h"

namespace accucheck::test {

void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(same_bits(a[i], b[i])) << what << " element " << i << ": " << hex_float(a[i]) << " vs "
                                       << hex_float(b[i]);
}

}  // namespace accucheck::test
