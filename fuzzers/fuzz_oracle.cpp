// fuzz_oracle: a differential between independent exact paths.
//
//   * BoostExactAccumulator (exact.h): the reference, Boost.Multiprecision fixed-point integers;
//   * MPFR: mpfr_sum of the addends at 2300 bits (exact: every finite double is a multiple of
//     2^-1074 below 2^1024, so any sum of fewer than 2^1100 of them fits), and, for every
//     format, mpfr_sum at the format's precision with its emin/emax and mpfr_subnormalize
//     (correct rounding with gradual underflow and overflow, as IEEE 754 defines it);
//   * FastExactAccumulator (fast_exact.h): Neal-style chunked superaccumulator, fed in spans
//     of drawn sizes, with drawn direct limits (direct path only, large path only, default),
//     and asked for partial results mid-way (it must stay usable);
//   * the side-by-side column sums (column_exact.h) on every SIMD path this CPU has: the
//     addends as one column, and as the D columns of a step-major matrix (D drawn); and the f16
//     grid's 64-bit fixed point (f16_grid_exact_sum) on the whole list, where it accepts it.
//
// Compared: S, A = sum |x|, n, the all-(-0) flag, max |x|, the special value, and RNE(S) in
// f64, f32, f16 and bf16 (zero sign and overflow included). Any disagreement aborts with the
// addends and both answers.
//
// Input (a choice stream): format of the addends draw(3); encoding draw(1) (0: the float
// decoder of float_gen.h, specials and NaN/inf included; 1: raw bit patterns); count draw(255);
// repeat draw(63) (the list is tiled repeat+1 times: long sums reach the large path and the
// chunk flushes cheaply); direct limit draw(2) (default, 0, unlimited); span size draw(255)
// (0: one add per addend); a mid-way check position draw(255); then the addends; then the
// number of columns D - 1 draw(70) (drawn last, so that inputs written before it decode as
// before, with D = 1).
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "checking/choice.h"
#include "checking/float_gen.h"
#include "checking/judge.h"
#include "numerics/column_exact.h"
#include "numerics/exact.h"
#include "numerics/fast_exact.h"
#include "numerics/format.h"

using namespace accucheck;

namespace {

constexpr mpfr_prec_t kExactPrecision = 2300;

[[noreturn]] void disagree(const std::string& what, const std::vector<double>& addends, std::size_t tiled_from) {
  std::fprintf(stderr, "\n==== accucheck fuzz_oracle: DISAGREEMENT ====\n%s\n", what.c_str());
  std::fprintf(stderr, "addends (%zu", addends.size());
  if (tiled_from) std::fprintf(stderr, ", the first %zu repeated", tiled_from);
  std::fprintf(stderr, "):");
  for (std::size_t i = 0; i < std::min<std::size_t>(addends.size(), tiled_from ? tiled_from : 512); ++i)
    std::fprintf(stderr, " %s", hex_float(addends[i]).c_str());
  std::fprintf(stderr, "\n==== end of accucheck report ====\n");
  std::fflush(stderr);
  std::abort();
}

std::string describe(const ExactSum& s) {
  char head[200];
  std::snprintf(head, sizeof head, "special %s, n %llu, all -0 %d, max|x| %s, ", std::string(name(s.special)).c_str(),
                static_cast<unsigned long long>(s.count), s.all_negative_zero ? 1 : 0, hex_float(s.max_abs).c_str());
  return std::string(head) + "S " + fixed_hex(s.sum) + ", A " + fixed_hex(s.abs_sum);
}

void compare_summaries(const char* who, const ExactSum& fast, const ExactSum& boost, const std::vector<double>& addends,
                       std::size_t tiled_from) {
  if (fast.special != boost.special || fast.count != boost.count || fast.all_negative_zero != boost.all_negative_zero ||
      !same_result_bits(fast.max_abs, boost.max_abs) || fast.sum != boost.sum || fast.abs_sum != boost.abs_sum)
    disagree(std::string(who) + " differs from BoostExactAccumulator:\n  " + who + ": " + describe(fast) +
                 "\n  boost: " + describe(boost),
             addends, tiled_from);
}

// An MPFR number holding the fixed-point value N * 2^-1074 exactly.
void set_fixed(mpfr_t out, const FixedInt& value) {
  const std::string hex = fixed_hex(value);  // "-0x1a3p-1074"
  if (mpfr_set_str(out, hex.c_str(), 0, MPFR_RNDN) != 0) std::abort();
}

// RNE of the sum of `ops` into format f, the MPFR way: precision p, exponent range of f,
// mpfr_subnormalize. Restores the exponent range.
double mpfr_rounded_sum(const std::vector<mpfr_ptr>& ops, Format f) {
  const auto& t = traits(f);
  const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
  mpfr_t r;
  mpfr_init2(r, t.precision);
  // MPFR's exponents: x = m 2^e with 1/2 <= m < 1, so IEEE's emin and emax shift by one, and
  // subnormals reach down p-1 more binades.
  mpfr_set_emin(t.emin - t.precision + 2);
  mpfr_set_emax(t.emax + 1);
  int inexact = mpfr_sum(r, const_cast<mpfr_ptr*>(ops.data()), ops.size(), MPFR_RNDN);
  inexact = mpfr_check_range(r, inexact, MPFR_RNDN);
  mpfr_subnormalize(r, inexact, MPFR_RNDN);
  const double d = mpfr_get_d(r, MPFR_RNDN);  // exact: r is a value of f
  mpfr_clear(r);
  mpfr_set_emin(old_emin);
  mpfr_set_emax(old_emax);
  return d;
}

// The MPFR view of the addends (precision 53, exact), cleared at the end of each run (a pool
// kept across runs shows up as a leak: libFuzzer runs LeakSanitizer when a run ends with
// more mallocs than frees).
struct MpfrAddends {
  std::vector<__mpfr_struct> storage, abs_storage;
  std::vector<mpfr_ptr> ops, abs_ops;
  explicit MpfrAddends(const std::vector<double>& xs) : storage(xs.size()), abs_storage(xs.size()) {
    for (std::size_t i = 0; i < xs.size(); ++i) {
      mpfr_init2(&storage[i], 53);
      mpfr_init2(&abs_storage[i], 53);
      mpfr_set_d(&storage[i], xs[i], MPFR_RNDN);
      mpfr_abs(&abs_storage[i], &storage[i], MPFR_RNDN);
      ops.push_back(&storage[i]);
      if (std::isfinite(xs[i])) abs_ops.push_back(&abs_storage[i]);
    }
  }
  ~MpfrAddends() {
    for (auto& x : storage) mpfr_clear(&x);
    for (auto& x : abs_storage) mpfr_clear(&x);
  }
  MpfrAddends(const MpfrAddends&) = delete;
  MpfrAddends& operator=(const MpfrAddends&) = delete;
};

void check_mpfr(const ExactSum& boost, MpfrAddends& m, const std::vector<double>& addends, std::size_t tiled_from) {
  mpfr_t exact, expected;
  mpfr_init2(exact, kExactPrecision);
  mpfr_init2(expected, kExactPrecision);
  // The exact S (only when no special value decides the result).
  const int inexact = mpfr_sum(exact, m.ops.data(), m.ops.size(), MPFR_RNDN);
  std::string problem;
  const Special mpfr_special = mpfr_nan_p(exact)   ? Special::nan
                               : mpfr_inf_p(exact) ? (mpfr_sgn(exact) > 0 ? Special::pos_inf : Special::neg_inf)
                                                   : Special::none;
  if (mpfr_special != boost.special) problem = "special value: mpfr_sum says " + std::string(name(mpfr_special));
  if (problem.empty() && boost.special == Special::none) {
    set_fixed(expected, boost.sum);
    if (inexact != 0)
      problem = "mpfr_sum at 2300 bits was inexact (ternary " + std::to_string(inexact) + ")";
    else if (mpfr_cmp(exact, expected) != 0)
      problem = "S differs from mpfr_sum";
  }
  if (problem.empty()) {
    // A over the finite addends.
    const int inexact_a = mpfr_sum(exact, m.abs_ops.data(), m.abs_ops.size(), MPFR_RNDN);
    set_fixed(expected, boost.abs_sum);
    if (inexact_a != 0 || mpfr_cmp(exact, expected) != 0) problem = "A differs from mpfr_sum of |x|";
  }
  if (!problem.empty()) {
    mpfr_exp_t e;
    char* digits = mpfr_get_str(nullptr, &e, 16, 0, exact, MPFR_RNDN);
    const std::string text =
        problem + "\n  boost: " + describe(boost) + "\n  mpfr:  0." + digits + " * 16^" + std::to_string(e);
    mpfr_free_str(digits);
    mpfr_clear(exact);
    mpfr_clear(expected);
    disagree(text, addends, tiled_from);
  }
  mpfr_clear(exact);
  mpfr_clear(expected);
}

// column_exact_sums on every supported path against Boost: a column it hands back is no
// disagreement (FastExactAccumulator sums those, compared above), a column it sums must agree.
void check_columns(const std::vector<double>& addends, Format f, std::size_t columns, const ExactSum& boost,
                   std::size_t tiled_from) {
  const std::size_t rows = addends.size() / columns;  // the matrix: the first rows * columns addends
  std::vector<ExactSum> reference;
  std::vector<double> column;
  if (rows >= 1 && rows <= kMaxColumnLength)
    for (std::size_t j = 0; j < columns; ++j) {
      column.clear();
      for (std::size_t t = 0; t < rows; ++t) column.push_back(addends[t * columns + j]);
      reference.push_back(boost_exact_sum(column));
    }
  for (SimdPath path : supported_simd_paths()) {
    const std::string who = "column_exact_sums (" + std::string(name(path)) + ")";
    if (!addends.empty() && addends.size() <= kMaxColumnLength) {
      ExactSum one;
      std::uint8_t summed = 0;
      column_exact_sums(addends.data(), addends.data() + 1, 1, addends.size() - 1, 1, f, &one, &summed, path);
      if (summed) compare_summaries((who + ", one column").c_str(), one, boost, addends, tiled_from);
    }
    // The f16 grid (64-bit fixed point) on the whole list, whatever its format: a list it
    // accepts must agree; what it refuses goes to FastExactAccumulator, compared above.
    if (ExactSum grid; f16_grid_exact_sum(addends, grid, path))
      compare_summaries(("f16_grid_exact_sum (" + std::string(name(path)) + ")").c_str(), grid, boost, addends,
                        tiled_from);
    if (reference.empty()) continue;
    std::vector<ExactSum> out(columns);
    std::vector<std::uint8_t> summed(columns);
    column_exact_sums(addends.data(), addends.data() + columns, columns, rows - 1, columns, f, out.data(),
                      summed.data(), path);
    for (std::size_t j = 0; j < columns; ++j)
      if (summed[j])
        compare_summaries((who + ", column " + std::to_string(j) + " of " + std::to_string(columns)).c_str(), out[j],
                          reference[j], addends, tiled_from);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteChoiceStream s(std::span<const std::uint8_t>(data, size));
  const Format f = all_formats[s.draw(3)];
  const bool raw = s.draw(1) != 0;
  const std::size_t count = s.draw(255);
  const std::size_t repeat = 1 + s.draw(63);
  const std::uint64_t limit_choice = s.draw(2);
  const std::size_t span = s.draw(255);
  const std::size_t midway = s.draw(255);
  const std::uint64_t direct_limit =
      limit_choice == 0 ? FastExactAccumulator::kDirectLimit : (limit_choice == 1 ? 0 : ~std::uint64_t{0});
  const int bits = traits(f).storage_bits;
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;

  std::vector<double> addends;
  addends.reserve(count * repeat);
  for (std::size_t i = 0; i < count; ++i) addends.push_back(raw ? decode(s.draw(mask), f) : draw_float(s, f, true));
  for (std::size_t r = 1; r < repeat; ++r)
    for (std::size_t i = 0; i < count; ++i) addends.push_back(addends[i]);
  const std::size_t tiled_from = repeat > 1 ? count : 0;
  const std::size_t columns = 1 + s.draw(70);

  // The reference, and the same addends through boost_exact_sum.
  BoostExactAccumulator boost_acc;
  for (double x : addends) boost_acc.add(x);
  const ExactSum boost = boost_acc.result();
  compare_summaries("boost_exact_sum", boost_exact_sum(addends), boost, addends, tiled_from);

  // The fast accumulator, in spans, with a partial result half-way.
  FastExactAccumulator fast(direct_limit);
  const std::size_t stop = std::min(addends.size(), midway * repeat);
  std::size_t i = 0;
  auto feed = [&](std::size_t end) {
    while (i < end) {
      const std::size_t n = span == 0 ? 1 : std::min(span, end - i);
      if (n == 1)
        fast.add(addends[i]);
      else
        fast.add(std::span<const double>(addends.data() + i, n));
      i += n;
    }
  };
  feed(stop);
  if (stop > 0 && stop < addends.size()) {
    BoostExactAccumulator prefix;
    for (std::size_t k = 0; k < stop; ++k) prefix.add(addends[k]);
    compare_summaries("FastExactAccumulator (partial)", fast.result(), prefix.result(), addends, tiled_from);
  }
  feed(addends.size());
  compare_summaries("FastExactAccumulator", fast.result(), boost, addends, tiled_from);
  compare_summaries("fast_exact_sum", fast_exact_sum(addends), boost, addends, tiled_from);
  check_columns(addends, f, columns, boost, tiled_from);

  // MPFR: exact S and A.
  MpfrAddends m(addends);
  check_mpfr(boost, m, addends, tiled_from);

  // RNE(S) in every format: Boost's ExactSum::rounded, the fast accumulator's rounded, MPFR.
  for (Format g : all_formats) {
    const double from_boost = boost.rounded(g);
    const double from_fast = fast.rounded(g);
    const double from_mpfr = mpfr_rounded_sum(m.ops, g);
    if (!same_result_bits(from_boost, from_mpfr) || !same_result_bits(from_fast, from_mpfr)) {
      char text[512];
      std::snprintf(
          text, sizeof text,
          "RNE(S) in %s: ExactSum::rounded %s, FastExactAccumulator::rounded %s, MPFR (mpfr_sum + subnormalize) %s\n"
          "  boost: %s",
          std::string(name(g)).c_str(), hex_float(from_boost).c_str(), hex_float(from_fast).c_str(),
          hex_float(from_mpfr).c_str(), describe(boost).c_str());
      disagree(text, addends, tiled_from);
    }
  }
  return 0;
}
