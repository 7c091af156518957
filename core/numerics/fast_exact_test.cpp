// The fast exact accumulator (fast_exact.h) against two independent references: the Boost
// oracle (BoostExactAccumulator, field for field, and rounded() in every format) and MPFR's
// mpfr_sum (exact at 2300 bits). Every input runs through three paths of the fast accumulator:
// the default one, the direct path only and the chunk (large superaccumulator) path only, and
// also added in pieces, one value at a time, and with result()/rounded() taken midway.
#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "accucheck/testing/bits.h"
#include "accucheck/testing/exact_sums.h"
#include "accucheck/testing/mpfr.h"
#include "accucheck/testing/seed.h"
#include "checking/judge.h"
#include "numerics/exact.h"
#include "numerics/fast_exact.h"
#include "numerics/format.h"

namespace accucheck {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMax = std::numeric_limits<double>::max();
constexpr double kMinSub = std::numeric_limits<double>::denorm_min();
constexpr double kMinNormal = std::numeric_limits<double>::min();

using test::same_bits;
using test::test_seed;

std::string describe(const std::vector<double>& xs) {
  std::string s = std::to_string(xs.size()) + " addends:";
  for (std::size_t i = 0; i < std::min<std::size_t>(xs.size(), 12); ++i) s += " " + hex_float(xs[i]);
  if (xs.size() > 12) s += " ...";
  return s;
}

// Field-for-field equality with the reference, and rounded() in every format.
void expect_same(const ExactSum& fast, const ExactSum& ref, const std::string& context) {
  test::expect_same_exact_sum(fast, ref, context);
  for (Format f : all_formats) {
    EXPECT_TRUE(same_bits(fast.rounded(f), ref.rounded(f)))
        << context << "\n rounded(" << name(f) << ") " << hex_float(fast.rounded(f)) << " vs "
        << hex_float(ref.rounded(f));
    // The limb rounding on the FixedInts against exact.h's round_fixed.
    for (const FixedInt* v : {&ref.sum, &ref.abs_sum}) {
      bool inexact = false;
      const double r = round_fixed_fast(*v, f, &inexact);
      EXPECT_TRUE(same_bits(r, round_fixed(*v, f)))
          << context << "\n round_fixed_fast(" << fixed_hex(*v) << ", " << name(f) << ")";
      const FixedInt magnitude = *v < 0 ? FixedInt(-*v) : *v;
      EXPECT_EQ(inexact, !std::isfinite(r) || to_fixed(std::fabs(r)) != magnitude)
          << context << " inexact flag " << name(f);
    }
  }
  // |x - S| on the limbs against the FixedInt arithmetic, for x near S (the verdict's case),
  // far from it and of either sign.
  if (ref.special == Special::none) {
    const double s = ref.rounded(Format::f64);
    std::vector<double> xs = {0.0, -0.0, ref.max_abs, -ref.max_abs, 1.0, -0x1p-1074, 0x1.fffffffffffffp1023};
    if (std::isfinite(s))
      for (double x : {s, std::nextafter(s, INFINITY), std::nextafter(s, -INFINITY), -s,
                       static_cast<double>(static_cast<float>(s))})
        xs.push_back(x);
    for (double x : xs) {
      if (!std::isfinite(x)) continue;
      FixedInt difference = to_fixed(x) - ref.sum;
      if (difference < 0) difference = -difference;
      bool inexact = false;
      const double got = nearest_abs_difference(x, ref.sum, &inexact);
      EXPECT_TRUE(same_bits(got, round_fixed(difference, Format::f64)))
          << context << "\n nearest_abs_difference(" << hex_float(x) << ") " << hex_float(got) << " vs "
          << hex_float(round_fixed(difference, Format::f64));
      EXPECT_EQ(inexact, !std::isfinite(got) || to_fixed(got) != difference) << context << " x " << hex_float(x);
    }
  }
}

// The limb rounding of the accumulator against the reference rounding from the FixedInt.
void expect_rounding(FastExactAccumulator& acc, const ExactSum& ref, const std::string& context) {
  for (Format f : all_formats)
    EXPECT_TRUE(same_bits(acc.rounded(f), ref.rounded(f)))
        << context << "\n direct rounded(" << name(f) << ") " << hex_float(acc.rounded(f)) << " vs "
        << hex_float(ref.rounded(f));
}

std::uint64_t g_checked = 0;  // inputs checked against Boost, for the summary line

// Runs xs through every path of the fast accumulator and compares each with Boost.
void check(const std::vector<double>& xs, const std::string& label = "") {
  ++g_checked;
  const ExactSum ref = boost_exact_sum(xs);
  const std::string context = label + " " + describe(xs);
  expect_same(fast_exact_sum(xs), ref, context + " [default]");
  for (std::uint64_t limit : {std::uint64_t{0}, std::numeric_limits<std::uint64_t>::max()}) {
    FastExactAccumulator acc(limit);
    acc.add(xs);
    const std::string path = limit == 0 ? " [large path]" : " [direct path]";
    expect_same(acc.result(), ref, context + path);
    expect_rounding(acc, ref, context + path);
  }
  // Pieces of varying size, with a result() and a rounded() midway that must not disturb the sum.
  FastExactAccumulator acc(64);
  std::size_t at = 0, piece = 1;
  BoostExactAccumulator partial_ref;
  while (at < xs.size()) {
    const std::size_t take = std::min(piece, xs.size() - at);
    acc.add(std::span<const double>(xs.data() + at, take));
    partial_ref.add(std::span<const double>(xs.data() + at, take));
    at += take;
    piece = piece * 3 + 1;
    if (at < xs.size()) {
      expect_same(acc.result(), partial_ref.result(), context + " [midway at " + std::to_string(at) + "]");
      (void)acc.rounded(Format::f32);
    }
  }
  expect_same(acc.result(), ref, context + " [pieces]");
  expect_rounding(acc, ref, context + " [pieces]");
  // One value at a time, across the switch from the direct path to the chunks.
  if (xs.size() < 20000) {
    FastExactAccumulator one(16);
    for (double x : xs) one.add(x);
    expect_same(one.result(), ref, context + " [one at a time]");
  }
}

// ---------------------------------------------------------------- MPFR, the second reference

struct MpfrSums {
  bool sum_matches = false, abs_matches = false;
  double nearest_f64 = 0;  // mpfr_get_d of the exact sum, round to nearest
  float nearest_f32 = 0;   // mpfr_get_flt
};

// mpfr_sum of the finite addends (and of their magnitudes) at 2300 bits, which holds every
// sum of fewer than 2^100 doubles exactly; compared as integers in units of 2^-1074.
MpfrSums mpfr_check(const std::vector<double>& xs, const ExactSum& fast) {
  constexpr mpfr_prec_t kPrec = 2300;
  test::MpfrValues values(xs, {.finite_only = true}), magnitudes(xs, {.magnitudes = true, .finite_only = true});
  mpfr_t sum, abs_sum;
  mpfr_init2(sum, kPrec);
  mpfr_init2(abs_sum, kPrec);
  const int inexact_sum = mpfr_sum(sum, values.data(), values.size(), MPFR_RNDN);
  const int inexact_abs = mpfr_sum(abs_sum, magnitudes.data(), magnitudes.size(), MPFR_RNDN);
  EXPECT_EQ(inexact_sum, 0) << "mpfr_sum not exact";
  EXPECT_EQ(inexact_abs, 0) << "mpfr_sum not exact";
  MpfrSums out;
  out.nearest_f64 = mpfr_get_d(sum, MPFR_RNDN);
  out.nearest_f32 = mpfr_get_flt(sum, MPFR_RNDN);
  mpz_t expected, got;
  mpz_init(expected);
  mpz_init(got);
  mpfr_mul_2si(sum, sum, fixed_scale, MPFR_RNDN);  // exact: a power of two
  mpfr_get_z(expected, sum, MPFR_RNDN);            // exact: an integer
  test::set_mpz(got, fast.sum);
  out.sum_matches = mpz_cmp(expected, got) == 0;
  mpfr_mul_2si(abs_sum, abs_sum, fixed_scale, MPFR_RNDN);
  mpfr_get_z(expected, abs_sum, MPFR_RNDN);
  test::set_mpz(got, fast.abs_sum);
  out.abs_matches = mpz_cmp(expected, got) == 0;
  mpz_clear(expected);
  mpz_clear(got);
  mpfr_clear(sum);
  mpfr_clear(abs_sum);
  return out;
}

std::uint64_t g_mpfr_checked = 0;

void check_mpfr(const std::vector<double>& xs, const std::string& label = "") {
  ++g_mpfr_checked;
  FastExactAccumulator acc;
  acc.add(xs);
  const ExactSum fast = acc.result();
  const MpfrSums m = mpfr_check(xs, fast);
  const std::string context = label + " " + describe(xs);
  EXPECT_TRUE(m.sum_matches) << context << "\n fast sum " << fixed_hex(fast.sum);
  EXPECT_TRUE(m.abs_matches) << context << "\n fast abs_sum " << fixed_hex(fast.abs_sum);
  if (fast.special == Special::none && fast.sum != 0) {
    EXPECT_TRUE(same_bits(acc.rounded(Format::f64), m.nearest_f64))
        << context << "\n f64 " << hex_float(acc.rounded(Format::f64)) << " vs mpfr " << hex_float(m.nearest_f64);
    EXPECT_TRUE(same_bits(acc.rounded(Format::f32), static_cast<double>(m.nearest_f32)))
        << context << "\n f32 " << hex_float(acc.rounded(Format::f32)) << " vs mpfr "
        << hex_float(static_cast<double>(m.nearest_f32));
  }
}

// ---------------------------------------------------------------- hand cases

TEST(FastExact, EmptyZerosAndSigns) {
  check({});
  check({0.0});
  check({-0.0});
  check({-0.0, -0.0, -0.0});
  check({-0.0, 0.0});
  check({0.0, -0.0});
  check({-0.0, kNaN});
  check({-0.0, -kInf});
  check({-0.0, -kMinSub, kMinSub});  // exact zero, not every addend -0: +0
  check({1.0, -1.0});
  check({-1.0, 1.0, -0.0});
  check(std::vector<double>(5000, -0.0));  // all -0 through the chunk path
  std::vector<double> mostly(5000, -0.0);
  mostly[4321] = 0.0;
  check(mostly);
  mostly[4321] = -kMinSub;
  check(mostly);
}

// fast_exact_sum's shortcut for columns of zeros gives the reference's summary.
TEST(FastExact, ColumnsOfZerosMatchTheReference) {
  std::vector<double> mixed(3000, -0.0);
  mixed[1234] = 0.0;
  for (const std::vector<double>& zeros :
       {std::vector<double>{}, std::vector<double>{0.0}, std::vector<double>{-0.0}, std::vector<double>(3000, -0.0),
        std::vector<double>(3000, 0.0), mixed, std::vector<double>{-0.0, 0.0, kNaN},
        std::vector<double>{0.0, -0.0, kMinSub}})
    expect_same(fast_exact_sum(zeros), boost_exact_sum(zeros), describe(zeros));
}

TEST(FastExact, SpecialValues) {
  check({kNaN});
  check({-kNaN, 1.0});
  check({kInf});
  check({-kInf});
  check({kInf, -kInf});
  check({kInf, 1.0, kInf, -3.0});
  check({-kInf, kMax, kMax});
  check({kInf, kNaN});
  check({std::bit_cast<double>(std::uint64_t{0x7ff0000000000001}), 1.0});  // signalling NaN pattern
  check({std::bit_cast<double>(std::uint64_t{0xffffffffffffffff}), 2.0});
  check({1.0, 2.0, kInf, 3.0, -kInf});
  std::vector<double> many(10000, 1.5);
  many[7777] = -kInf;
  check(many);
  many[123] = kNaN;
  check(many);
  many.assign(10000, kInf);  // infinities only, through the chunk path
  check(many);
}

TEST(FastExact, TiesInEveryFormat) {
  for (Format f : all_formats) {
    const int p = traits(f).precision;
    const double half_ulp = std::ldexp(1.0, -p);  // half an ulp of 1
    check({1.0, half_ulp}, "tie down to even");
    check({1.0, half_ulp, kMinSub}, "just above the tie");
    check({1.0, half_ulp, -kMinSub}, "just below the tie");
    check({1.0, 3 * half_ulp}, "tie up to even");
    check({1.0 + 2 * half_ulp, half_ulp}, "tie from odd");
    check({-1.0, -half_ulp}, "negative tie");
    check({std::ldexp(1.0, 40), half_ulp * std::ldexp(1.0, 40), std::ldexp(1.0, -1074)});
    // Ties at the smallest normal / subnormal spacing of the format.
    const double sub = smallest_subnormal(f);
    check({sub, sub / 2}, "subnormal tie");
    check({3 * sub, sub / 2}, "subnormal tie up");
    check({smallest_normal(f), sub / 2, kMinSub});
  }
}

TEST(FastExact, Subnormals) {
  check({kMinSub});
  check({kMinSub, kMinSub, -kMinSub});
  check({kMinNormal, -kMinSub});           // largest subnormal
  check({kMinNormal - kMinSub, kMinSub});  // largest subnormal + smallest = smallest normal
  const double largest_sub = kMinNormal - kMinSub;
  for (int copies : {4095, 4096, 4097, 8191, 8192, 8193, 20000}) {
    check(std::vector<double>(copies, largest_sub), "largest subnormal x" + std::to_string(copies));
    check(std::vector<double>(copies, -largest_sub), "-largest subnormal x" + std::to_string(copies));
    check(std::vector<double>(copies, kMinSub), "smallest subnormal x" + std::to_string(copies));
  }
  std::vector<double> mixed;
  for (int i = 1; i < 3000; ++i) mixed.push_back((i % 3 ? 1 : -1) * kMinSub * i);
  check(mixed);
}

TEST(FastExact, CancellationToZero) {
  check({kMax, -kMax});
  check({kMax, kMinSub, -kMax, -kMinSub});
  check({1e300, 1.0, -1e300}, "big + small - big");
  check({1e300, 1.0, -1e300, -1.0});
  std::mt19937_64 rng(test_seed(7));
  std::vector<double> xs;
  for (int i = 0; i < 3000; ++i) {
    const double x = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 2000) - 1100);
    xs.push_back(x);
    xs.push_back(-x);
  }
  std::shuffle(xs.begin(), xs.end(), rng);
  check(xs, "pairs that cancel exactly");
  xs.push_back(-0.0);
  check(xs);
}

TEST(FastExact, OverflowEdges) {
  const double half_ulp_at_max = std::ldexp(1.0, 970);  // 2^1024 - kMax = 2^971
  check({kMax, kMax}, "2 * max");
  check({kMax, half_ulp_at_max}, "max + half ulp: tie to 2^1024 -> inf");
  check({kMax, half_ulp_at_max, -kMinSub}, "just below the overflow tie");
  check({kMax, half_ulp_at_max, -kMax});
  check({-kMax, -half_ulp_at_max});
  check({kMax, kMax, -kMax});
  check({kMax, std::ldexp(1.0, 1023), -std::ldexp(1.0, 1023)});
  // The same edges for the narrow formats (values exact in each).
  for (Format f : all_formats) {
    const double big = largest_finite(f);
    const double half = std::ldexp(1.0, traits(f).emax - traits(f).precision);
    check({big, half}, std::string(name(f)) + " overflow tie");
    check({big, half, -kMinSub}, std::string(name(f)) + " below the overflow tie");
    check({big, -half, half}, std::string(name(f)) + " max");
    check({-big, -half}, std::string(name(f)) + " negative overflow tie");
  }
}

TEST(FastExact, HugeExponentSpreads) {
  check({std::ldexp(1.0, 1023), kMinSub, -std::ldexp(1.0, 1023)});
  check({kMinSub, kMax, -kMax});
  std::vector<double> ladder;
  for (int e = -1074; e <= 1023; ++e) ladder.push_back(std::ldexp(1.0, e));
  check(ladder, "every power of two");
  std::reverse(ladder.begin(), ladder.end());
  check(ladder, "every power of two, descending");
  for (double& x : ladder) x = -x;
  ladder.push_back(kMax);
  check(ladder);
  // A run of ones across many limbs, then the carry that ripples through it.
  std::vector<double> ripple;
  for (int e = -1074; e < -1074 + 300; ++e) ripple.push_back(std::ldexp(1.0, e));
  ripple.push_back(kMinSub);
  check(ripple, "carry ripple through 300 bits");
  ripple.push_back(-kMinSub);
  ripple.push_back(-kMinSub);
  check(ripple, "borrow back");
}

TEST(FastExact, ChunkCapacityBoundaries) {
  // Mantissa all ones: the largest contribution a chunk can get, around the flush points.
  const double all_ones = std::bit_cast<double>(std::uint64_t{0x3fffffffffffffff});
  for (int copies : {2047, 2048, 2049, 4095, 4096, 4097, 8192, 8193, 12289}) {
    check(std::vector<double>(copies, all_ones), "all-ones mantissa x" + std::to_string(copies));
    check(std::vector<double>(copies, -kMax), "-max x" + std::to_string(copies));
    check(std::vector<double>(copies, std::bit_cast<double>(std::uint64_t{0xffefffffffffffff})));
  }
}

TEST(FastExact, EveryExponentAtItsLargest) {
  // k copies of the largest mantissa of each exponent put the sum's top bit on every limb
  // boundary: the limb and cell ranges derived from max |x| and n must reach it.
  for (unsigned biased = 0; biased < 0x7ff; ++biased) {
    const double x = std::bit_cast<double>((std::uint64_t{biased} << 52) | ((std::uint64_t{1} << 52) - 1));
    for (int copies : {1, 2, 3, 7})
      check(std::vector<double>(copies, (biased & 1) ? -x : x), "biased " + std::to_string(biased));
    if (biased % 61 == 0)
      for (int copies : {2047, 2048, 4095}) check(std::vector<double>(copies, x), "biased " + std::to_string(biased));
    if (HasFailure()) return;
  }
}

TEST(FastExact, MillionsOfLargestDouble) {
  // Far more addends than a chunk holds (4096) and than the direct path takes, at the top of
  // the range: 3 million copies of max, then 3 million of -max, then 1; and max alone.
  std::vector<double> xs(3'000'000, kMax);
  xs.resize(6'000'000, -kMax);
  xs.push_back(1.0);
  const ExactSum ref = boost_exact_sum(xs);
  expect_same(fast_exact_sum(xs), ref, "3M max, 3M -max, 1");
  EXPECT_EQ(ref.rounded(Format::f64), 1.0);
  std::vector<double> same(2'500'000, kMax);
  same.push_back(kMinSub);
  const ExactSum ref_same = boost_exact_sum(same);
  FastExactAccumulator acc;
  acc.add(same);
  expect_same(acc.result(), ref_same, "2.5M max + min subnormal");
  expect_rounding(acc, ref_same, "2.5M max + min subnormal");
  check_mpfr(same, "2.5M max + min subnormal");
  // Interleaved signs: the positive and negative chunk of the top exponent both flush often.
  std::vector<double> alternating;
  for (int i = 0; i < 1'000'000; ++i) alternating.push_back(i % 2 ? -kMax : std::ldexp(1.0, 1023));
  expect_same(fast_exact_sum(alternating), boost_exact_sum(alternating), "alternating");
}

TEST(FastExact, RoundLimbsReadsOnlyItsLimbs) {
  // A tiny value in a short limb array followed by set bits: rounding it into a narrow format
  // (quantum far above the array) must give 0, never look past `count` limbs.
  std::uint64_t buffer[FastExactAccumulator::kLimbs];
  std::fill(std::begin(buffer), std::end(buffer), ~std::uint64_t{0});
  buffer[0] = 1;  // 2^-1074
  for (Format f : all_formats) {
    const double expected = f == Format::f64 ? kMinSub : 0.0;
    EXPECT_TRUE(same_bits(round_limbs(buffer, 1, f), expected)) << name(f);
  }
  buffer[1] = 0;  // 2^-1074 in two limbs: the top limb is zero
  for (Format f : all_formats)
    EXPECT_TRUE(same_bits(round_limbs(buffer, 2, f), f == Format::f64 ? kMinSub : 0.0)) << name(f);
  // Tiny sums through the accumulator, in every format (half the smallest subnormal and below).
  for (Format f : all_formats) {
    const double half = smallest_subnormal(f) / 2;
    check({half}, "half the smallest subnormal of " + std::string(name(f)));
    check({half, kMinSub}, "just above half");
    check({-half / 4, kMinSub});
  }
}

// ---------------------------------------------------------------- random and adversarial

// Values from several families, exact in `f`.
class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  double value(Format f, int family) {
    double x = 0;
    switch (family) {
      case 0: x = std::bit_cast<double>(rng_()); break;  // any pattern, NaN and inf included
      case 1: {                                          // any exponent band, uniform over the exponents of f
        const auto& t = traits(f);
        const int e = t.emin - t.precision + static_cast<int>(rng_() % (t.emax - t.emin + t.precision + 1));
        x = std::ldexp(1.0 + static_cast<double>(rng_() >> 12) * 0x1p-52, e);
        break;
      }
      case 2:  // narrow band: chunk reuse
        x = std::ldexp(1.0 + static_cast<double>(rng_() >> 12) * 0x1p-52, static_cast<int>(rng_() % 4));
        break;
      case 3: {  // specials and edges of f
        const double edges[] = {0.0,
                                smallest_subnormal(f),
                                smallest_normal(f),
                                smallest_normal(f) - smallest_subnormal(f),
                                largest_finite(f),
                                1.0,
                                next_up(1.0, f),
                                std::ldexp(1.0, traits(f).emax),
                                kInf,
                                kNaN};
        x = edges[rng_() % (rng_() % 8 == 0 ? 10 : 8)];
        break;
      }
      default: {  // gradient-like: mixed magnitudes from 2^-40 to 2^20, some zeros
        if (rng_() % 10 == 0) return (rng_() & 1) ? 0.0 : -0.0;
        x = std::ldexp(static_cast<double>(rng_() >> 11) * 0x1p-53, static_cast<int>(rng_() % 60) - 40);
        break;
      }
    }
    if (rng_() & 1) x = -x;
    return round_to_format(x, f);
  }

  std::vector<double> vector(Format f, std::size_t n, int family) {
    std::vector<double> xs(n);
    for (double& x : xs) x = value(f, family < 0 ? static_cast<int>(rng_() % 5) : family);
    switch (rng_() % 4) {
      case 0: {  // append the negations (shuffled) and a small perturbation: heavy cancellation
        const std::size_t m = xs.size();
        for (std::size_t i = 0; i < m; ++i) xs.push_back(-xs[i]);
        if (!xs.empty()) xs[rng_() % xs.size()] = value(f, 3);
        std::shuffle(xs.begin(), xs.end(), rng_);
        break;
      }
      case 1: {  // drop NaN and infinities, so that the finite sum is what is compared
        for (double& x : xs)
          if (!std::isfinite(x)) x = 0.0;
        break;
      }
      default: break;
    }
    return xs;
  }

  std::size_t length() {
    const std::uint64_t r = rng_() % 100;
    if (r < 70) return rng_() % 70;
    if (r < 95) return rng_() % 600;
    return 1000 + rng_() % 9000;
  }

 private:
  std::mt19937_64 rng_;
};

TEST(FastExact, RandomAgainstBoost) {
  Generator gen(test_seed(20240917));
  int inputs = 0;
  for (Format f : all_formats)
    for (int family = -1; family < 5; ++family)
      for (int i = 0; i < 600; ++i) {
        check(gen.vector(f, gen.length(), family), std::string(name(f)) + " family " + std::to_string(family));
        ++inputs;
        if (HasFailure()) return;
      }
  // A few long ones, beyond the direct path and across many chunk flushes.
  for (Format f : all_formats)
    for (int family : {1, 2, 4}) {
      check(gen.vector(f, 60000 + family * 1000, family), "long " + std::string(name(f)));
      ++inputs;
    }
  RecordProperty("inputs", inputs);
  std::printf("checked %llu inputs against Boost so far\n", static_cast<unsigned long long>(g_checked));
}

TEST(FastExact, HandAndRandomAgainstMpfr) {
  check_mpfr({});
  check_mpfr({kMinSub});
  check_mpfr({kMax, kMax});
  check_mpfr({kMax, std::ldexp(1.0, 970)});
  check_mpfr({1.0, 0x1p-53});
  check_mpfr({1.0, 0x1p-53, kMinSub});
  check_mpfr({std::ldexp(1.0, 1023), kMinSub, -std::ldexp(1.0, 1023)});
  check_mpfr({kMinNormal, -kMinSub, kMinSub / 1});
  check_mpfr({kInf, 1.0, 2.0});
  std::vector<double> ladder;
  for (int e = -1074; e <= 1023; ++e) ladder.push_back(std::ldexp(e % 2 ? -1.0 : 1.0, e));
  check_mpfr(ladder);
  Generator gen(test_seed(99));
  for (Format f : all_formats)
    for (int family = -1; family < 5; ++family)
      for (int i = 0; i < 120; ++i) {
        check_mpfr(gen.vector(f, gen.length(), family), std::string(name(f)));
        if (HasFailure()) return;
      }
  for (int family : {1, 4}) check_mpfr(gen.vector(Format::f64, 200000, family), "long");
  std::printf("checked %llu inputs against MPFR\n", static_cast<unsigned long long>(g_mpfr_checked));
}

// rounded() after more addends arrive: the accumulator keeps working after result(), after a
// move and after reset().
TEST(FastExact, ContinuesAfterResult) {
  FastExactAccumulator acc(0);
  BoostExactAccumulator ref;
  std::mt19937_64 rng(test_seed(3));
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 500; ++i) {
      const double x =
          std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 200) - 100) * ((rng() & 1) ? 1 : -1);
      acc.add(x);
      ref.add(x);
    }
    expect_same(acc.result(), ref.result(), "round " + std::to_string(round));
    expect_rounding(acc, ref.result(), "round " + std::to_string(round));
  }
  // Moved: the target carries on, the source is empty and usable.
  FastExactAccumulator moved(std::move(acc));
  expect_same(moved.result(), ref.result(), "moved");
  EXPECT_EQ(acc.count(), 0u);  // NOLINT(bugprone-use-after-move): specified as empty
  acc.add(3.0);
  EXPECT_EQ(acc.rounded(Format::f64), 3.0);
  acc = std::move(moved);
  expect_same(acc.result(), ref.result(), "move-assigned");
  acc.reset();
  EXPECT_EQ(acc.count(), 0u);
  expect_same(acc.result(), BoostExactAccumulator().result(), "after reset");
  // Many long sums on one thread reuse the spare tables; their counts must come back clean.
  for (int round = 0; round < 5; ++round) {
    std::vector<double> xs(5000 + round, std::ldexp(1.0, round * 100 - 300));
    xs[round] = -kMax;
    expect_same(fast_exact_sum(xs), boost_exact_sum(xs), "reused tables " + std::to_string(round));
  }
}

}  // namespace
}  // namespace accucheck

// exact_sums_disagreement (judge.h), the per-case cross-check of the property suite and the
// sparse and product fuzzers: silent on agreeing sums of every workload kind, and it names the
// element and the field when one summary is off by the least amount.
namespace accucheck {
TEST(FastExact, DisagreementWithBoostIsReportedPerElementAndField) {
  DenseWorkload d;
  d.format = Format::f32;
  d.elements = 2;
  d.steps = 2;
  d.initial = {1.0, -0.0};
  d.addends = {0x1p-149, -0.0, -1.0, -0.0};
  const Workload w = d;
  std::vector<ExactSum> sums = exact_sums(w);
  EXPECT_EQ(exact_sums_disagreement(w, sums), "");
  sums[1].all_negative_zero = false;  // element 1 is all -0: the sign of its zero would change
  EXPECT_NE(exact_sums_disagreement(w, sums).find("element 1: "), std::string::npos);
  EXPECT_NE(exact_sums_disagreement(w, sums).find("all_negative_zero"), std::string::npos);
  sums = exact_sums(w);
  sums[0].sum += 1;  // one unit of 2^-1074
  EXPECT_NE(exact_sums_disagreement(w, sums).find("element 0: "), std::string::npos);
  EXPECT_NE(exact_sums_disagreement(w, sums).find(" in S "), std::string::npos);
  sums.pop_back();
  EXPECT_NE(exact_sums_disagreement(w, sums), "");
}
}  // namespace accucheck
