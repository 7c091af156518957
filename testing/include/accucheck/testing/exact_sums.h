// Field-for-field equality of two exact sums (numerics/exact.h's ExactSum), the check every
// test of a fast exact path against the Boost reference makes.
#pragma once

#include <string>

#include "numerics/exact.h"

namespace accucheck::test {

// A GoogleTest failure per field of `got` that differs from `ref` (S and A bit for bit, as
// hexadecimal fixed-point in the message; max |x| bit for bit), each naming `context`.
void expect_same_exact_sum(const ExactSum& got, const ExactSum& ref, const std::string& context);

}  // namespace accucheck::test
