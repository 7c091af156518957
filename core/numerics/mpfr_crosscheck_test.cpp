// The exact oracle against an independent exact path: MPFR's mpfr_sum. At 2300 bits the
// sum of any f64 values (2^-1074 .. 2^1024, with carries) is exact, and is compared with the
// oracle's FixedInt; at each format's precision and exponent range (with mpfr_subnormalize)
// mpfr_sum gives the correctly rounded sum, compared with ExactSum::rounded bit for bit.
#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "accucheck/testing/bits.h"
#include "accucheck/testing/mpfr.h"
#include "accucheck/testing/seed.h"
#include "checking/workload.h"
#include "numerics/column_exact.h"
#include "numerics/exact.h"
#include "numerics/format.h"

namespace accucheck {
namespace {

using test::mpfr_round_to_format;
using test::MpfrValues;
using test::same_bits;
using test::set_mpfr;
using test::test_seed;

constexpr mpfr_prec_t kExactBits = 2300;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The exact sum by MPFR, compared with the oracle's sum and abs_sum.
void expect_exact_agrees(const std::vector<double>& xs, const ExactSum& oracle) {
  mpfr_t mpfr_sum_value, fixed_value;
  mpfr_init2(mpfr_sum_value, kExactBits);
  mpfr_init2(fixed_value, kExactBits);
  {
    MpfrValues v(xs);
    const int inexact = mpfr_sum(mpfr_sum_value, v.data(), v.size(), MPFR_RNDN);
    ASSERT_EQ(inexact, 0) << "mpfr_sum at " << kExactBits << " bits is not exact";
    ASSERT_EQ(set_mpfr(fixed_value, oracle.sum), 0);
    ASSERT_TRUE(mpfr_equal_p(mpfr_sum_value, fixed_value) || (mpfr_zero_p(mpfr_sum_value) && oracle.sum == 0))
        << "sum differs: oracle " << fixed_hex(oracle.sum);
  }
  {
    MpfrValues v(xs, {.magnitudes = true});
    ASSERT_EQ(mpfr_sum(mpfr_sum_value, v.data(), v.size(), MPFR_RNDN), 0);
    ASSERT_EQ(set_mpfr(fixed_value, oracle.abs_sum), 0);
    ASSERT_TRUE(mpfr_equal_p(mpfr_sum_value, fixed_value) || (mpfr_zero_p(mpfr_sum_value) && oracle.abs_sum == 0))
        << "abs_sum differs: oracle " << fixed_hex(oracle.abs_sum);
  }
  mpfr_clear(mpfr_sum_value);
  mpfr_clear(fixed_value);
}

// The correctly rounded sum in f by mpfr_sum with f's precision and exponent range.
double mpfr_rounded_sum(const std::vector<double>& xs, Format f) {
  MpfrValues v(xs);
  return mpfr_round_to_format(f, [&](mpfr_ptr r) { return mpfr_sum(r, v.data(), v.size(), MPFR_RNDN); });
}

void check_vector(const std::vector<double>& xs, Format f) {
  const ExactSum oracle = boost_exact_sum(xs);
  bool finite = true;
  for (double x : xs) finite = finite && std::isfinite(x);
  if (finite) {
    ASSERT_EQ(oracle.special, Special::none);
    expect_exact_agrees(xs, oracle);
  }
  for (Format g : all_formats) {
    // Rounding into the format of the data, and into every narrower format whose exponent
    // range holds every addend (MPFR wants its inputs inside the current exponent range).
    if (g != f) {
      if (traits(g).precision > traits(f).precision) continue;
      bool in_range = true;
      for (double x : xs)
        in_range = in_range && (!std::isfinite(x) || x == 0 ||
                                (std::fabs(x) >= smallest_subnormal(g) && std::fabs(x) <= largest_finite(g)));
      if (!in_range) continue;
    }
    const double expected = mpfr_rounded_sum(xs, g);
    const double got = oracle.rounded(g);
    ASSERT_TRUE(same_bits(got, expected))
        << "data " << name(f) << " rounded to " << name(g) << ": oracle " << hex_float(got) << " mpfr "
        << hex_float(expected) << " exact " << fixed_hex(oracle.sum);
  }
}

// Random values of f: any bit pattern (subnormals, extremes), or drawn by exponent band.
double random_value(std::mt19937_64& rng, Format f, int band_lo, int band_hi) {
  if (rng() % 3 == 0) {
    for (;;) {
      double x;
      if (f == Format::f64)
        x = std::bit_cast<double>(rng());
      else if (f == Format::f32)
        x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
      else
        x = decode(rng() & 0xffff, f);
      if (std::isfinite(x)) return x;
    }
  }
  const int e = band_lo + static_cast<int>(rng() % static_cast<std::uint64_t>(band_hi - band_lo + 1));
  double x = round_to_format(std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53), e), f);
  if (!std::isfinite(x)) x = largest_finite(f);
  return (rng() & 1) ? -x : x;
}

TEST(MpfrCrossCheck, RandomVectorsEveryFormat) {
  std::mt19937_64 rng(test_seed(1234));
  for (Format f : all_formats) {
    const auto& t = traits(f);
    for (int trial = 0; trial < 700; ++trial) {
      // A random exponent window: narrow (heavy carries), wide (huge spreads) or the whole range.
      const int span = trial % 3 == 0 ? 4 : (trial % 3 == 1 ? 60 : t.emax - t.emin + t.precision);
      const int lo = t.emin - t.precision + 1 +
                     static_cast<int>(rng() % static_cast<std::uint64_t>(t.emax - t.emin + t.precision));
      const int hi = std::min(lo + span, t.emax);
      const int n = 1 + static_cast<int>(rng() % (trial % 10 == 0 ? 2000 : 40));
      std::vector<double> xs;
      for (int i = 0; i < n; ++i) xs.push_back(random_value(rng, f, std::min(lo, hi), hi));
      check_vector(xs, f);
    }
  }
}

TEST(MpfrCrossCheck, AdversarialVectors) {
  std::mt19937_64 rng(test_seed(99));
  std::vector<std::pair<std::vector<double>, Format>> cases = {
      {{DBL_MAX, DBL_MAX, -DBL_MAX, 0x1p-1074}, Format::f64},
      {{DBL_MAX, 0x1p970}, Format::f64},
      {{DBL_MAX, 0x1p970, -0x1p-1074}, Format::f64},
      {{-DBL_MAX, -0x1p970, 0x1p-1074}, Format::f64},
      {{0x1p53, 1.0}, Format::f64},
      {{0x1p53, 1.0, 0x1p-1074}, Format::f64},
      {{1e308, -1e308, 1e-308, -1e-308, 0x1p-1074}, Format::f64},
      {{0x1p-1074, 0x1p-1074, 0x1p-1074}, Format::f64},
      {{-0.0, -0.0}, Format::f64},
      {{-0.0, 0.0}, Format::f64},
      {{1.0, -1.0}, Format::f64},
      {{-0x1p-1074}, Format::f64},
      {{-0x1p-149, 0x1p-149, -0x1p-149}, Format::f32},
      {{0x1p-150}, Format::f64},
      {{0x1.8p-150}, Format::f64},
      {{FLT_MAX, 0x1p103}, Format::f32},
      {{FLT_MAX, 0x1p103, -0x1p-149}, Format::f32},
      {{65504, 16}, Format::f16},
      {{65504, 8, 8, -0x1p-24}, Format::f16},
      {{2048, 1}, Format::f16},
      {{256, 1, 0x1p-133}, Format::bf16},
      {{0x1.fep127, 0x1p119}, Format::bf16},
      {{kInf, 1.0}, Format::f64},
      {{kInf, -kInf}, Format::f32},
      {{-kInf, -kInf, 5.0}, Format::f16},
      {{std::nan(""), kInf}, Format::bf16},
  };
  // Powers of two across the whole range, then minus the largest value.
  std::vector<double> powers;
  for (int e = -1074; e <= 1023; ++e) powers.push_back(std::ldexp(1.0, e));
  cases.push_back({powers, Format::f64});
  powers.push_back(-DBL_MAX);
  cases.push_back({powers, Format::f64});
  // Massive cancellation: random values and their negatives, plus a small residual.
  for (Format f : all_formats) {
    const auto& t = traits(f);
    for (int trial = 0; trial < 100; ++trial) {
      std::vector<double> xs;
      for (int i = 0; i < 30; ++i) {
        const double x = random_value(rng, f, t.emin - t.precision, t.emax);
        xs.push_back(x);
        xs.push_back(-x);
      }
      xs.push_back(random_value(rng, f, t.emin - t.precision, t.emin + 3));  // a subnormal-ish residual
      if (trial % 2) xs.push_back(largest_finite(f));
      std::shuffle(xs.begin(), xs.end(), rng);
      cases.push_back({xs, f});
      // Subnormals only.
      std::vector<double> tiny;
      for (int i = 0; i < 50; ++i) {
        const double x = static_cast<double>(1 + rng() % 1000) * smallest_subnormal(f);
        tiny.push_back(round_to_format((rng() & 1) ? -x : x, f));
      }
      cases.push_back({tiny, f});
      // Near-ties: a value of f plus half an ulp built from two addends, plus a tiny nudge.
      const double v = random_value(rng, f, t.emin, t.emax - 2);
      const double half_ulp = ulp(v, f) / 2;
      if (representable(half_ulp, f) && half_ulp > 0) {
        cases.push_back({{v, std::copysign(half_ulp, v)}, f});
        cases.push_back({{v, std::copysign(half_ulp, v), smallest_subnormal(f)}, f});
        cases.push_back({{v, std::copysign(half_ulp, v), -smallest_subnormal(f)}, f});
      }
    }
  }
  for (const auto& [xs, f] : cases) {
    SCOPED_TRACE(std::string(name(f)) + " case of " + std::to_string(xs.size()) + " addends");
    check_vector(xs, f);
  }
}

// The oracle the backends test through (exact_element, and exact_elements on every SIMD path
// over a dense workload) agrees with MPFR too: initial values over the format's whole range
// (columns the side-by-side kernel mostly hands back) and within 2^-20..2^20 (columns it sums).
TEST(MpfrCrossCheck, ExactElementOfDenseWorkloads) {
  std::mt19937_64 rng(test_seed(7));
  for (Format f : all_formats)
    for (bool whole_range : {true, false}) {
      const auto& t = traits(f);
      DenseWorkload w;
      w.format = f;
      w.elements = 16;
      w.steps = 200;
      for (std::size_t j = 0; j < w.elements; ++j)
        w.initial.push_back(whole_range ? random_value(rng, f, t.emin - t.precision, t.emax)
                                        : random_value(rng, f, -20, 20));
      for (std::size_t i = 0; i < w.elements * w.steps; ++i) w.addends.push_back(random_value(rng, f, -20, 20));
      ASSERT_EQ(w.validate(), "");
      for (SimdPath path : supported_simd_paths()) {
        SCOPED_TRACE(std::string(name(path)) + (whole_range ? ", whole range" : ", narrow"));
        std::vector<ExactSum> side_by_side;
        exact_elements(w, 0, w.elements, side_by_side, path);
        std::vector<double> column;
        for (std::size_t j = 0; j < w.elements; ++j) {
          w.column(j, column);
          expect_exact_agrees(column, side_by_side[j]);
          ASSERT_TRUE(same_bits(side_by_side[j].rounded(f), mpfr_rounded_sum(column, f)));
        }
      }
      std::vector<double> column;
      for (std::size_t j = 0; j < w.elements; ++j) {
        w.column(j, column);
        const ExactSum e = exact_element(w, j);
        const ExactSum reference = boost_exact_sum(column);
        ASSERT_EQ(e.sum, reference.sum);
        ASSERT_EQ(e.abs_sum, reference.abs_sum);
        ASSERT_EQ(e.count, reference.count);
        ASSERT_EQ(e.count, w.steps + 1);
        expect_exact_agrees(column, e);
        ASSERT_TRUE(same_bits(e.rounded(f), mpfr_rounded_sum(column, f)));
      }
    }
}

}  // namespace
}  // namespace accucheck
