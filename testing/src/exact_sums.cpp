#include "accucheck/testing/exact_sums.h"

#include <gtest/gtest.h>

#include "accucheck/testing/bits.h"
#include "numerics/format.h"

namespace accucheck::test {

void expect_same_exact_sum(const ExactSum& got, const ExactSum& ref, const std::string& context) {
  EXPECT_EQ(got.special, ref.special) << context;
  EXPECT_TRUE(got.sum == ref.sum) << context << "\n sum " << fixed_hex(got.sum) << " vs " << fixed_hex(ref.sum);
  EXPECT_TRUE(got.abs_sum == ref.abs_sum)
      << context << "\n abs_sum " << fixed_hex(got.abs_sum) << " vs " << fixed_hex(ref.abs_sum);
  EXPECT_EQ(got.sum.sign(), ref.sum.sign()) << context;
  EXPECT_EQ(got.count, ref.count) << context;
  EXPECT_EQ(got.all_negative_zero, ref.all_negative_zero) << context;
  EXPECT_TRUE(same_bits(got.max_abs, ref.max_abs))
      << context << "\n max_abs " << hex_float(got.max_abs) << " vs " << hex_float(ref.max_abs);
}

}  // namespace accucheck::test
