// The binned accumulator of cub::DeviceReduce::Sum with gpu_to_gpu determinism
// (cub/binned_accumulator.h), on the CPU:
//   - the design flavour gives the same bits under any order and any split into merged partial
//     accumulators (what makes one sequential pass the model of every grid of threads);
//   - values worked out by hand from the bins' grids (W = 13 / 40, K = 3);
//   - each departure of CCCL 3.5.0's code from the design, on the minimal input that shows it,
//     with the value worked out by hand (the harness must also find them unaided: the mutants
//     cub_rfa_3_5_{f32,f64} in properties/mutants_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "accucheck/testing/seed.h"
#include "cuda/cub/binned_accumulator.h"

namespace accucheck {
namespace {

using cuda_models::Binned;
using cuda_models::BinnedAccumulator;
using test::test_seed;

template <class T>
T binned_sum(const std::vector<T>& x) {
  return cuda_models::binned_sum<T>(x);
}

template <class T>
T cub35(const std::vector<T>& x) {
  return cuda_models::binned_sum<T, Binned::cub_3_5>(x);
}

// Addends over a wide exponent range with cancellation: the order matters to a plain loop.
template <class T>
std::vector<T> wide_addends(std::mt19937_64& rng, std::size_t n, int max_exponent) {
  std::uniform_int_distribution<int> exponent(-max_exponent, max_exponent);
  std::uniform_real_distribution<double> significand(1.0, 2.0);
  std::vector<T> x;
  for (std::size_t i = 0; i < n; ++i) {
    const T v = static_cast<T>(std::ldexp(significand(rng), exponent(rng)));
    x.push_back(i % 2 ? -v : v);
    if (i % 7 == 3) x.push_back(-x[rng() % x.size()]);  // exact cancellations
  }
  return x;
}

template <class T>
auto bits(T x) {
  return std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(x);
}

template <class T>
void expect_order_independent(std::uint64_t seed, int max_exponent) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 200; ++round) {
    auto x = wide_addends<T>(rng, 1 + rng() % 300, max_exponent);
    const T sequential = binned_sum(x);
    std::shuffle(x.begin(), x.end(), rng);
    EXPECT_EQ(bits(binned_sum(x)), bits(sequential)) << "permutation, round " << round;
    // Random split into partial accumulators, merged in a random order (CUB's threads and blocks).
    std::vector<BinnedAccumulator<T>> parts(1 + rng() % 9);
    for (T v : x) parts[rng() % parts.size()].add(v);
    std::shuffle(parts.begin(), parts.end(), rng);
    BinnedAccumulator<T> total;
    for (const auto& p : parts) total.merge(p);
    EXPECT_EQ(bits(total.value()), bits(sequential)) << "split into " << parts.size() << ", round " << round;
  }
}

TEST(BinnedAccumulator, DesignIsOrderAndSplitIndependent) {
  expect_order_independent<float>(test_seed(1), 60);
  expect_order_independent<float>(test_seed(2), 126);
  expect_order_independent<double>(test_seed(3), 200);
  expect_order_independent<double>(test_seed(4), 1000);
}

// f32: 1 needs bin 9 = 1.5 * 2^22, so the three folds hold multiples of 2^-1, 2^-14 and 2^-27:
// 2^-20 is kept, 2^-29 (below half of 2^-27) is not. f64: bin 25 = 1.5 * 2^37, folds of 2^-15,
// 2^-55, 2^-95: 2^-90 is kept, 2^-100 is not. Both losses are within n 2^(W(1-K)) max|x|.
TEST(BinnedAccumulator, FoldGridsByHand) {
  EXPECT_EQ(binned_sum<float>({1.0f, std::ldexp(1.0f, -20), -1.0f}), std::ldexp(1.0f, -20));
  EXPECT_EQ(binned_sum<float>({1.0f, std::ldexp(1.0f, -29), -1.0f}), 0.0f);
  EXPECT_EQ(binned_sum<double>({1.0, std::ldexp(1.0, -90), -1.0}), std::ldexp(1.0, -90));
  EXPECT_EQ(binned_sum<double>({1.0, std::ldexp(1.0, -100), -1.0}), 0.0);
  EXPECT_EQ(binned_sum<float>({3.0f, 5.0f, -0.25f}), 7.75f);
  EXPECT_EQ(binned_sum<double>({std::ldexp(1.0, 1000), std::ldexp(1.0, 1000)}), std::ldexp(1.0, 1001));
}

TEST(BinnedAccumulator, DesignHandlesZeroInfinityAndSubnormals) {
  EXPECT_EQ(binned_sum<float>({0.0f}), 0.0f);
  EXPECT_EQ(binned_sum<double>({0.0, 0.0}), 0.0);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(binned_sum<float>({inf, 1.0f}), inf);
  EXPECT_TRUE(std::isnan(binned_sum<float>({inf, -inf})));
  EXPECT_EQ(binned_sum<double>({std::ldexp(1.0, -1030)}), std::ldexp(1.0, -1030));
  EXPECT_EQ(binned_sum<float>({std::ldexp(1.0f, -140), std::ldexp(1.0f, -140)}), std::ldexp(1.0f, -139));
}

// CCCL 3.5.0 as shipped (cub/binned_accumulator.h lists the four departures).
TEST(BinnedAccumulator, Cub35DeparturesOnTheirMinimalInputs) {
  // A zero maximum keeps the empty accumulator's index (max_index) and its folds at 0: the deposit
  // of 0 with its last bit set leaves +-2^-149 in them, renormalisation turns those into carries of
  // -2 and the conversion returns a multiple of the finest bin, not 0.
  EXPECT_NE(cub35<float>({0.0f}), 0.0f);
  EXPECT_NE(cub35<double>({0.0}), 0.0);
  // An infinity is deposited in bin 0 scaled by 2^-12 with its last bit set: a NaN.
  EXPECT_TRUE(std::isnan(cub35<float>({std::numeric_limits<float>::infinity(), 1.0f})));
  // f64: frexpf of a subnormal double sees 0, so the bins start at index 25 (1.5 * 2^37) and the
  // finest fold's grid is 2^-95: the addend vanishes.
  EXPECT_EQ(cub35<double>({std::ldexp(1.0, -1030)}), 0.0);
  // f64, bin index 0 (|x| >= 2^984): the conversion scales by 2^-66 and "back up" by 2^-66 again.
  EXPECT_EQ(cub35<double>({std::ldexp(1.0, 1000)}), std::ldexp(1.0, 868));
  // Where the bins are set and the values finite and below 2^984, both flavours agree.
  EXPECT_EQ(cub35<float>({3.0f, 5.0f, -0.25f}), 7.75f);
  EXPECT_EQ(cub35<double>({1.0, std::ldexp(1.0, -90), -1.0}), std::ldexp(1.0, -90));
}

}  // namespace
}  // namespace accucheck
