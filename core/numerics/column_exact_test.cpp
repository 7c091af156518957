// The element-parallel exact column sums (column_exact.h) against the Boost reference, field for
// field, on every SIMD path this CPU runs: widths that leave tails of every size and span blocks
// of 64 columns, columns up to the length limit, every format, the columns the method hands
// back (NaN, infinities, magnitudes near overflow) and those whose remainders below its grids it
// sums apart (spreads wider than its grids, values off the format's grid); and the f16 grid
// path for one list (f16_grid_exact_sum, exact_sum_of_values).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "accucheck/testing/bits.h"
#include "accucheck/testing/exact_sums.h"
#include "accucheck/testing/seed.h"
#include "checking/workload.h"
#include "numerics/column_exact.h"
#include "numerics/exact.h"
#include "numerics/format.h"

namespace accucheck {
namespace {

using test::same_bits;
using test::test_seed;

// A random value of f with its exponent in [low, high] (clamped to f's range), either sign.
double random_value(std::mt19937_64& rng, Format f, int low, int high) {
  const auto& t = traits(f);
  std::uniform_int_distribution<int> exponent(std::max(low, t.emin - t.precision + 1), std::min(high, t.emax));
  const double significand = 1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53);
  const double x = round_to_format(std::ldexp(significand, exponent(rng)), f);
  return (rng() & 1) ? -x : x;
}

struct Shape {
  std::string name;
  int low, high;        // exponent range of the addends
  double zeros = 0.05;  // fraction of zeros (either sign)
  double specials = 0;  // fraction of NaN and infinities
};

DenseWorkload random_workload(std::mt19937_64& rng, Format f, std::size_t elements, std::size_t steps, const Shape& s) {
  DenseWorkload w;
  w.format = f;
  w.elements = elements;
  w.steps = steps;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto value = [&] {
    const double u = unit(rng);
    if (u < s.specials) {
      const double choices[] = {std::numeric_limits<double>::quiet_NaN(), INFINITY, -INFINITY};
      return choices[rng() % 3];
    }
    if (u < s.specials + s.zeros) return (rng() & 1) ? -0.0 : 0.0;
    return random_value(rng, f, s.low, s.high);
  };
  for (std::size_t j = 0; j < elements; ++j) w.initial.push_back(value());
  for (std::size_t i = 0; i < elements * steps; ++i) w.addends.push_back(value());
  return w;
}

// Every element of w through exact_elements on `path` against boost_exact_sum of its column,
// and what column_exact_sums summed itself (also for fewer columns than exact_elements hands it)
// against the same; returns how many columns that was.
std::size_t check_workload(const DenseWorkload& w, SimdPath path, const std::string& label) {
  std::vector<ExactSum> fast;
  exact_elements(w, 0, w.elements, fast, path);
  std::vector<double> column;
  for (std::size_t j = 0; j < w.elements; ++j) {
    w.column(j, column);
    test::expect_same_exact_sum(fast[j], boost_exact_sum(column), label + " element " + std::to_string(j));
  }
  // A range that starts inside the workload (the pipeline judges ranges).
  if (w.elements > 3) {
    std::vector<ExactSum> part;
    exact_elements(w, 3, w.elements, part, path);
    for (std::size_t j = 3; j < w.elements; ++j)
      test::expect_same_exact_sum(part[j - 3], fast[j], label + " range element " + std::to_string(j));
  }
  std::vector<ExactSum> out(w.elements);
  std::vector<std::uint8_t> summed(w.elements);
  column_exact_sums(w.initial.data(), w.addends.data(), w.elements, w.steps, w.elements, w.format, out.data(),
                    summed.data(), path);
  std::size_t count = 0;
  for (std::size_t j = 0; j < w.elements; ++j) {
    if (!summed[j]) continue;
    ++count;
    // Not a repeat of the check above when exact_elements gathered these few columns itself.
    test::expect_same_exact_sum(out[j], fast[j], label + " side by side, element " + std::to_string(j));
  }
  return count;
}

class ColumnExact : public ::testing::TestWithParam<SimdPath> {};

TEST_P(ColumnExact, RandomColumnsInEveryFormatAgainstBoost) {
  const SimdPath path = GetParam();
  std::mt19937_64 rng(test_seed(0xC01u));
  const Shape shapes[] = {
      {"narrow", -3, 3},
      {"one grid", -20, 20},
      {"two grids", -60, 40},
      {"wide", -150, 120},
      {"whole range", -1100, 1023},
      {"tiny", -1074, -1000},
      {"huge", 1000, 1023},
      {"with specials", -10, 10, 0.05, 0.02},
      {"mostly zeros", -10, 10, 0.9},
  };
  for (Format f : all_formats)
    for (const Shape& s : shapes)
      for (std::size_t elements : {1u, 2u, 3u, 5u, 8u, 11u, 16u, 19u, 64u, 67u, 130u})
        for (std::size_t steps : {0u, 1u, 2u, 7u, 64u}) {
          const DenseWorkload w = random_workload(rng, f, elements, steps, s);
          check_workload(w, path,
                         std::string(name(path)) + " " + std::string(name(f)) + " " + s.name +
                             " D=" + std::to_string(elements) + " T=" + std::to_string(steps));
        }
}

// f16 values are multiples of 2^-24 below 2^16: one grid always holds them, so every column
// without a NaN or infinity is summed here (the fallback would hide a kernel that sums nothing).
TEST_P(ColumnExact, EveryFiniteF16ColumnIsSummedSideBySide) {
  const SimdPath path = GetParam();
  std::mt19937_64 rng(test_seed(0xF16u));
  for (std::size_t elements : {1u, 7u, 32u, 33u}) {
    const DenseWorkload w = random_workload(rng, Format::f16, elements, 100, {"f16", -30, 20});
    EXPECT_EQ(check_workload(w, path, "f16 D=" + std::to_string(elements)), elements);
  }
  // f32 within 2^-20..2^20 needs two grids; f64 within one binade of integers one.
  const DenseWorkload f32 = random_workload(rng, Format::f32, 24, 50, {"f32", -20, 20, 0.0});
  EXPECT_EQ(check_workload(f32, path, "f32 two grids"), 24u);
  // Every column without a NaN or an infinity, however wide its spread (remainders included).
  const DenseWorkload wide = random_workload(rng, Format::f64, 40, 30, {"whole range", -1074, 1020, 0.1});
  EXPECT_EQ(check_workload(wide, path, "f64 whole range"), 40u);
}

TEST_P(ColumnExact, LengthLimitAndCancellation) {
  const SimdPath path = GetParam();
  std::mt19937_64 rng(test_seed(0x1E4u));
  for (std::size_t steps : {kMaxColumnLength - 2, kMaxColumnLength - 1, kMaxColumnLength}) {
    // Largest magnitudes of one binade: the integer sums come nearest their 2^62 limit.
    DenseWorkload w = random_workload(rng, Format::f32, 9, steps, {"top", 30, 30, 0.0});
    for (double& x : w.addends) x = std::fabs(x);  // all positive: the sums only grow
    for (double& x : w.initial) x = std::fabs(x);
    const std::size_t summed = check_workload(w, path, "length " + std::to_string(steps));
    EXPECT_EQ(summed, steps + 1 <= kMaxColumnLength ? 9u : 0u) << steps;
  }
  // Exact cancellation to zero, with the zero's sign from the addends.
  DenseWorkload w;
  w.format = Format::f64;
  w.elements = 3;
  w.steps = 3;
  w.initial = {-0.0, 1.0, 0x1p-1074};
  w.addends = {-0.0, 0x1p60, -0x1p-1074, -0.0, -1.0, 0.0, -0.0, -0x1p60, 0.0};
  EXPECT_EQ(check_workload(w, path, "cancellation"), 3u);
}

// Values that are not of the workload's format (a plugin's or a hand-written case's): the sum
// is still exact (the remainder check hands a column back rather than dropping bits).
TEST_P(ColumnExact, ValuesOffTheFormatsGrid) {
  const SimdPath path = GetParam();
  std::mt19937_64 rng(test_seed(0x0FFu));
  for (Format f : {Format::f16, Format::bf16, Format::f32}) {
    DenseWorkload w = random_workload(rng, f, 13, 20, {"off grid", -5, 5, 0.0});
    for (std::size_t i = 0; i < w.addends.size(); i += 3)
      w.addends[i] = random_value(rng, Format::f64, -40, 5);  // 53 significant bits, below f's ulp
    w.initial[4] = 0x1p-30;                                   // below f16's smallest subnormal
    // f16's one grid (unit 2^-45 here) cannot hold bits down to 2^-92: those columns' remainders
    // are summed apart. bf16 and f32 columns here get a second grid, which holds them.
    EXPECT_EQ(check_workload(w, path, "off grid " + std::string(name(f))), 13u) << name(f);
  }
}

// The remainders below the last grid: an f32 column whose spread takes all four grids, and one
// value with 53 significant bits that end below the fourth; f64 columns with a subnormal among
// values near 1 (more than four grids apart), of either sign, in vectors with and without them.
TEST_P(ColumnExact, RemaindersBelowTheLastGridAreSummedExactly) {
  const SimdPath path = GetParam();
  const DenseWorkload w{.format = Format::f32,
                        .elements = 2,
                        .steps = 2,
                        .initial = {0x1.8p50, 0x1.8p50},
                        .addends = {0x1.000002p-100, 0x1.000002p-100, 0x1.0000000000001p-110, 0x1p-110}};
  EXPECT_EQ(check_workload(w, path, "below the fourth grid"), 2u);
  std::mt19937_64 rng(test_seed(0x5B5u));
  for (std::size_t elements : {9u, 24u, 70u}) {
    DenseWorkload sub = random_workload(rng, Format::f64, elements, 40, {"near 1", -3, 3, 0.05});
    for (std::size_t i = 0; i < sub.addends.size(); i += 7)  // some columns get one or more
      sub.addends[i] = (i % 2 ? -1 : 1) *
                       std::ldexp(1.0 + std::ldexp(static_cast<double>(i), -40), -1060 - static_cast<int>(i % 14));
    EXPECT_EQ(check_workload(sub, path, "subnormals among values near 1, D=" + std::to_string(elements)), elements);
  }
}

// f16_grid_exact_sum: lists of every length around the vector widths, over f16's range
// (subnormals, the top binade, zeros of either sign) and FP8 values, against the Boost
// reference field for field.
TEST_P(ColumnExact, F16GridListsAgainstBoost) {
  const SimdPath path = GetParam();
  std::mt19937_64 rng(test_seed(0xF16u));
  const Shape shapes[] = {{"f16 range", -24, 15, 0.05},
                          {"near 1", -2, 2, 0.0},
                          {"subnormals", -24, -15, 0.3},
                          {"mostly zeros", -24, 15, 0.9}};
  for (Format f : {Format::f16, Format::e4m3, Format::e5m2})
    for (const Shape& shape : shapes)
      for (std::size_t n : {1u, 2u, 3u, 7u, 8u, 9u, 15u, 16u, 17u, 100u, 1000u, 5000u}) {
        std::vector<double> list(n);
        // Within f's range, below its largest binade (e4m3 rounds beyond its largest value to NaN).
        Shape below_overflow = shape;
        below_overflow.low = std::max(shape.low, traits(f).emin - traits(f).precision + 1);
        below_overflow.high = std::max(below_overflow.low, std::min(shape.high, traits(f).emax - 1));
        DenseWorkload w = random_workload(rng, f, 1, n - 1, below_overflow);  // n values of f
        list[0] = w.initial[0];
        for (std::size_t i = 1; i < n; ++i) list[i] = w.addends[i - 1];
        ExactSum fast;
        const std::string context = std::string(name(f)) + " " + shape.name + ", n = " + std::to_string(n);
        ASSERT_TRUE(f16_grid_exact_sum(list, fast, path)) << context;
        test::expect_same_exact_sum(fast, boost_exact_sum(list), context);
        test::expect_same_exact_sum(exact_sum_of_values(list, Format::f16), boost_exact_sum(list),
                                    context + " (exact_sum_of_values)");
      }
  for (const std::vector<double>& zeros : {std::vector<double>(19, -0.0), std::vector<double>{-0.0, 0.0, -0.0},
                                           std::vector<double>(9, 0.0), std::vector<double>{65504.0, -65504.0, -0.0}}) {
    ExactSum fast;
    ASSERT_TRUE(f16_grid_exact_sum(zeros, fast, path));
    test::expect_same_exact_sum(fast, boost_exact_sum(zeros), "zeros, n = " + std::to_string(zeros.size()));
  }
  // f16's top binade [2^15, 65504] (the random lists stay below it: rounding there can overflow),
  // and the largest value below 2^16 on the grid, either sign.
  for (std::size_t n : {5u, 64u, 1001u}) {
    std::vector<double> top(n);
    for (auto& x : top) x = ((rng() & 1) ? -1.0 : 1.0) * (32768.0 + 32.0 * static_cast<double>(rng() % 1024));
    top[n / 2] = ((rng() & 1) ? -1.0 : 1.0) * (65536.0 - 0x1p-24);
    ExactSum fast;
    ASSERT_TRUE(f16_grid_exact_sum(top, fast, path));
    test::expect_same_exact_sum(fast, boost_exact_sum(top), "top binade, n = " + std::to_string(n));
  }
}

// A value the grid does not hold, at every place of a list (vector body and tail), is refused
// and leaves the result alone; exact_sum_of_values then sums it another way, still exactly.
TEST_P(ColumnExact, F16GridRefusesWhatItCannotHold) {
  const SimdPath path = GetParam();
  const double refused[] = {std::numeric_limits<double>::quiet_NaN(),
                            INFINITY,
                            -INFINITY,
                            65536.0,
                            -1e300,
                            0x1p-25,
                            -0x1p-25,
                            0x1.000001p-3,
                            0.1,
                            0x1p-1074,
                            -0x1p-1060};
  for (double bad : refused)
    for (std::size_t at = 0; at < 37; ++at) {
      std::vector<double> list(37, 1.5);
      list[at] = bad;
      ExactSum untouched;
      untouched.count = 12345;
      EXPECT_FALSE(f16_grid_exact_sum(list, untouched, path)) << bad << " at " << at;
      EXPECT_EQ(untouched.count, 12345u);
      test::expect_same_exact_sum(exact_sum_of_values(list, Format::f16), boost_exact_sum(list),
                                  "refused " + std::to_string(bad));
    }
  ExactSum empty;
  EXPECT_FALSE(f16_grid_exact_sum({}, empty, path));
  // Lane sums made of infinities and huge values, then a tail: refused, and no overflow on the
  // way (UBSan in the asan preset).
  std::vector<double> garbage(4065, 0.0);
  for (std::size_t i = 0; i < 2009; ++i) garbage[i] = INFINITY;
  for (std::size_t i = 2009; i < 4058; ++i) garbage[i] = 65504.0;
  garbage.back() = 65504.0;
  ExactSum refused_sum;
  EXPECT_FALSE(f16_grid_exact_sum(garbage, refused_sum, path));
  const double huge = std::bit_cast<double>(std::uint64_t{0x6C62AAAAAAAAAAAA});
  std::vector<double> huge_then_tail{huge, huge, std::nextafter(huge, INFINITY), 0, 0, 0, 0, 0, 1.0};
  EXPECT_FALSE(f16_grid_exact_sum(huge_then_tail, refused_sum, path));
}

// 2^23 + 2^14 addends of the largest f16 value (65504 = 0x1.ffcp15) sum beyond 2^63 units of
// 2^-24: one 64-bit sum would wrap, so the list goes in blocks. Expected sums by Boost
// multiplication.
TEST_P(ColumnExact, F16GridLongListsCrossTheBlockLimit) {
  const std::size_t n = (std::size_t{1} << 23) + (std::size_t{1} << 14);
  for (const double sign : {1.0, -1.0}) {  // a total beyond 64 bits of either sign
    std::vector<double> list(n, sign * 65504.0);
    list[3] = -sign * 65504.0;  // S = sign (n - 2) 65504, A = n 65504
    ExactSum fast;
    ASSERT_TRUE(f16_grid_exact_sum(list, fast, GetParam()));
    const FixedInt expected = to_fixed(65504.0) * FixedInt(n - 2);
    EXPECT_TRUE(fast.sum == (sign > 0 ? expected : FixedInt(-expected))) << fixed_hex(fast.sum);
    EXPECT_TRUE(fast.abs_sum == to_fixed(65504.0) * FixedInt(n)) << fixed_hex(fast.abs_sum);
    EXPECT_EQ(fast.count, n);
    EXPECT_EQ(fast.max_abs, 65504.0);
    EXPECT_FALSE(fast.all_negative_zero);
  }
}

std::string path_name(const ::testing::TestParamInfo<SimdPath>& info) { return std::string(name(info.param)); }

INSTANTIATE_TEST_SUITE_P(EverySupportedPath, ColumnExact, ::testing::ValuesIn(supported_simd_paths()), path_name);

TEST(ColumnExactDispatch, PortableAlwaysAndBestIsSupported) {
  const auto paths = supported_simd_paths();
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(paths.front(), SimdPath::portable);
  EXPECT_EQ(paths.back(), best_simd_path());
}

}  // namespace
}  // namespace accucheck
