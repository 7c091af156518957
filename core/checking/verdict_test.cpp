// Tests of judge(): every verdict class reachable through it, from hand-built exact sums and
// computed values, with the error, bound, ratio, ulps and kappa fields worked out by hand.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "checking/bound.h"
#include "checking/verdict.h"
#include "numerics/exact.h"

namespace accucheck {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

BoundExpr bound(const char* text) {
  std::string error;
  auto b = parse_bound(text, &error);
  EXPECT_TRUE(b.has_value()) << error;
  return *b;
}

ExactSum sum_of(const std::vector<double>& xs) { return boost_exact_sum(xs); }

TEST(Verdict, NamesAndViolations) {
  EXPECT_EQ(name(Verdict::ok), "ok");
  EXPECT_EQ(name(Verdict::bound_exceeded), "bound-exceeded");
  EXPECT_EQ(name(Verdict::not_correctly_rounded), "not-correctly-rounded");
  EXPECT_FALSE(is_violation(Verdict::ok));
  EXPECT_FALSE(is_violation(Verdict::bound_vacuous));
  EXPECT_FALSE(is_violation(Verdict::precondition_not_met));
  for (Verdict v : {Verdict::bound_exceeded, Verdict::not_correctly_rounded, Verdict::overflow,
                    Verdict::special_value_mismatch, Verdict::not_representable, Verdict::nondeterministic})
    EXPECT_TRUE(is_violation(v)) << name(v);
}

// recursive(f32) with addends (1, 3 * 2^-25): S = A = 1 + 3 * 2^-25, n = 2, bound
// u A = 2^-24 (1 + 3 * 2^-25); RNE(S) = 1 + 2^-23 (S - 1 is 3/4 of the f32 spacing 2^-23).
TEST(Verdict, OkWithFieldsByHand) {
  const ExactSum e = sum_of({1.0, 3 * 0x1p-25});
  const double exact_bound = 0x1p-24 * (1 + 3 * 0x1p-25);  // exact in double
  const ElementVerdict v = judge(bound("recursive(f32)"), Format::f32, e, 1 + 0x1p-23);
  EXPECT_EQ(v.verdict, Verdict::ok);
  EXPECT_EQ(v.computed, 1 + 0x1p-23);
  EXPECT_EQ(v.correctly_rounded, 1 + 0x1p-23);
  EXPECT_EQ(v.exact, 1 + 3 * 0x1p-25);
  EXPECT_EQ(v.error, 0x1p-25);  // (1 + 4 * 2^-25) - (1 + 3 * 2^-25)
  EXPECT_GE(v.bound, exact_bound);
  EXPECT_LE(v.bound, exact_bound * (1 + 0x1p-48));
  EXPECT_NEAR(v.ratio, 0x1p-25 / exact_bound, 1e-12);
  EXPECT_EQ(v.ulps, 0);
  EXPECT_EQ(v.kappa, 1.0);
  EXPECT_FALSE(v.vacuous);
  EXPECT_TRUE(v.precondition_met);
}

TEST(Verdict, BoundExceeded) {
  const ExactSum e = sum_of({1.0, 3 * 0x1p-25});
  // Computed 1: error 3 * 2^-25 > 2^-24 (1 + 3 * 2^-25); one step below RNE(S).
  const ElementVerdict low = judge(bound("recursive(f32)"), Format::f32, e, 1.0);
  EXPECT_EQ(low.verdict, Verdict::bound_exceeded);
  EXPECT_EQ(low.error, 3 * 0x1p-25);
  EXPECT_EQ(low.ulps, -1);
  EXPECT_GT(low.ratio, 1.0);
  EXPECT_NEAR(low.ratio, 1.5 / (1 + 3 * 0x1p-25), 1e-12);
  // Computed 1 + 2^-22: error 5 * 2^-25, one step above.
  const ElementVerdict high = judge(bound("recursive(f32)"), Format::f32, e, 1 + 0x1p-22);
  EXPECT_EQ(high.verdict, Verdict::bound_exceeded);
  EXPECT_EQ(high.error, 5 * 0x1p-25);
  EXPECT_EQ(high.ulps, 1);
  // (1, 2^-53) in f64: bound u A = 2^-53 + 2^-106; computed 1: error 2^-53: ok.
  EXPECT_EQ(judge(bound("recursive(f64)"), Format::f64, sum_of({1.0, 0x1p-53}), 1.0).verdict, Verdict::ok);
  // Exactly at the bound: (1, -1) in f64, bound u A = 2^-52, computed 2^-52 (error = bound) is
  // within; the next double above is not.
  const ExactSum cancel = sum_of({1.0, -1.0});
  const ElementVerdict at = judge(bound("recursive(f64)"), Format::f64, cancel, 0x1p-52);
  EXPECT_EQ(at.verdict, Verdict::ok);
  EXPECT_EQ(at.kappa, INFINITY);
  EXPECT_EQ(judge(bound("recursive(f64)"), Format::f64, cancel, -0x1p-52).verdict, Verdict::ok);
  EXPECT_EQ(judge(bound("recursive(f64)"), Format::f64, cancel, 0x1p-52 + 0x1p-104).verdict, Verdict::bound_exceeded);
  // A wrong result the size of the sum itself.
  const ExactSum big = sum_of({1e10, -1e10, 5.0});
  const ElementVerdict far = judge(bound("recursive(f64)"), Format::f64, big, 6.0);
  EXPECT_EQ(far.verdict, Verdict::bound_exceeded);
  EXPECT_EQ(far.error, 1.0);
  EXPECT_EQ(far.kappa, (2e10 + 5.0) / 5.0);
  EXPECT_EQ(far.ulps, std::int64_t{1} << 50);  // 6 - 5 in units of 2^-50 (the spacing in [4, 8))
}

TEST(Verdict, BoundVacuous) {
  // recursive(bf16) over 257 ones: (n-1) u A = A: vacuous, even for a result far off.
  std::vector<double> ones(257, 1.0);
  const ExactSum e = sum_of(ones);
  const ElementVerdict v = judge(bound("recursive(bf16)"), Format::bf16, e, 256.0);  // stagnated at 256
  EXPECT_EQ(v.verdict, Verdict::bound_vacuous);
  EXPECT_TRUE(v.vacuous);
  EXPECT_EQ(v.error, 1.0);
  EXPECT_GE(v.bound, 257.0);  // 256 * 2^-8 * 257, rounded upward
  EXPECT_LE(v.bound, 257.0 * (1 + 0x1p-48));
  EXPECT_FALSE(is_violation(v.verdict));
  // One fewer addend: not vacuous.
  const ExactSum e256 = sum_of(std::vector<double>(256, 1.0));
  EXPECT_EQ(judge(bound("recursive(bf16)"), Format::bf16, e256, 256.0).verdict, Verdict::ok);
  // A vacuous bound does not hide an error larger than itself.
  EXPECT_EQ(judge(bound("recursive(bf16)"), Format::bf16, e, 1024.0).verdict, Verdict::bound_exceeded);
  // Undefined bounds (Kahan beyond n u <= 1/2): vacuous with an infinite bound.
  const ElementVerdict k = judge(bound("kahan(bf16)"), Format::bf16, sum_of(std::vector<double>(129, 1.0)), 128.0);
  EXPECT_EQ(k.verdict, Verdict::bound_vacuous);
  EXPECT_EQ(k.bound, kInf);
  EXPECT_TRUE(k.vacuous);
}

TEST(Verdict, PreconditionNotMet) {
  // recursive(f16): A (1 + 2^-11) >= 65504 for A = 65504.
  const ExactSum e = sum_of({32768.0, 32736.0});
  const ElementVerdict v = judge(bound("recursive(f16)"), Format::f16, e, 65504.0);
  EXPECT_EQ(v.verdict, Verdict::precondition_not_met);
  EXPECT_FALSE(v.precondition_met);
  EXPECT_FALSE(is_violation(v.verdict));
  // Outside the precondition an infinite result is not an overflow verdict.
  EXPECT_EQ(judge(bound("recursive(f16)"), Format::f16, sum_of({65504.0, 16.0}), kInf).verdict,
            Verdict::precondition_not_met);
  // Inside it (A = 65472 - 32, far enough), it is checked as usual.
  EXPECT_EQ(judge(bound("recursive(f16)"), Format::f16, sum_of({32768.0, 32672.0}), 65440.0).verdict, Verdict::ok);
}

TEST(Verdict, Overflow) {
  // Finite S well inside the precondition, non-finite result.
  const ExactSum e = sum_of({1.0, 1.0});
  EXPECT_EQ(judge(bound("recursive(f16)"), Format::f16, e, kInf).verdict, Verdict::overflow);
  EXPECT_EQ(judge(bound("recursive(f16)"), Format::f16, e, -kInf).verdict, Verdict::overflow);
  const ElementVerdict nan = judge(bound("recursive(f32)"), Format::f32, e, kNaN);
  EXPECT_EQ(nan.verdict, Verdict::overflow);
  EXPECT_EQ(nan.error, kInf);
  EXPECT_EQ(nan.ulps, 0);
  EXPECT_TRUE(is_violation(Verdict::overflow));
  // A correctly rounded backend: an infinity for a sum that rounds to a finite value.
  EXPECT_EQ(judge(bound("correctly_rounded"), Format::f16, sum_of({65504.0, 15.0}), kInf).verdict, Verdict::overflow);
  // ... but infinity is right when S itself rounds beyond the largest finite value.
  EXPECT_EQ(judge(bound("correctly_rounded"), Format::f16, sum_of({65504.0, 16.0}), kInf).verdict, Verdict::ok);
  EXPECT_EQ(judge(bound("correctly_rounded"), Format::f16, sum_of({65504.0, 16.0}), 65504.0).verdict,
            Verdict::not_correctly_rounded);
}

TEST(Verdict, NotCorrectlyRoundedIncludingZeroSign) {
  const BoundExpr cr = bound("correctly_rounded");
  const ExactSum e = sum_of({1.0, 3 * 0x1p-25});
  EXPECT_EQ(judge(cr, Format::f32, e, 1 + 0x1p-23).verdict, Verdict::ok);
  const ElementVerdict off = judge(cr, Format::f32, e, 1.0);
  EXPECT_EQ(off.verdict, Verdict::not_correctly_rounded);
  EXPECT_EQ(off.ulps, -1);
  EXPECT_TRUE(std::isnan(off.bound));
  // Ties to even: 2^24 + 1 in f32 is 2^24, not 2^24 + 2.
  EXPECT_EQ(judge(cr, Format::f32, sum_of({0x1p24, 1.0}), 0x1p24).verdict, Verdict::ok);
  EXPECT_EQ(judge(cr, Format::f32, sum_of({0x1p24, 1.0}), 0x1p24 + 2).verdict, Verdict::not_correctly_rounded);
  // Exact cancellation gives +0: -0 is wrong.
  const ExactSum cancel = sum_of({1.5, -1.5});
  EXPECT_EQ(judge(cr, Format::f64, cancel, 0.0).verdict, Verdict::ok);
  const ElementVerdict minus = judge(cr, Format::f64, cancel, -0.0);
  EXPECT_EQ(minus.verdict, Verdict::not_correctly_rounded);
  EXPECT_EQ(minus.error, 0.0);
  EXPECT_EQ(minus.ulps, 0);
  // Every addend -0: the sum is -0, +0 is wrong.
  const ExactSum negative_zeros = sum_of({-0.0, -0.0, -0.0});
  EXPECT_EQ(judge(cr, Format::bf16, negative_zeros, -0.0).verdict, Verdict::ok);
  EXPECT_EQ(judge(cr, Format::bf16, negative_zeros, 0.0).verdict, Verdict::not_correctly_rounded);
  // A tiny negative sum rounds to -0 in f16.
  EXPECT_EQ(judge(cr, Format::f16, sum_of({-0x1p-30}), -0.0).verdict, Verdict::ok);
  EXPECT_EQ(judge(cr, Format::f16, sum_of({-0x1p-30}), 0.0).verdict, Verdict::not_correctly_rounded);
  // Error bounds do not care about the zero's sign.
  EXPECT_EQ(judge(bound("recursive(f64)"), Format::f64, cancel, -0.0).verdict, Verdict::ok);
}

TEST(Verdict, SpecialValueMismatch) {
  const BoundExpr b = bound("recursive(f32)");
  const ExactSum nan = sum_of({1.0, kNaN});
  const ExactSum both = sum_of({kInf, -kInf, 2.0});
  const ExactSum plus = sum_of({kInf, -3.0});
  const ExactSum minus = sum_of({-kInf, 3.0});
  EXPECT_EQ(judge(b, Format::f32, nan, kNaN).verdict, Verdict::ok);
  EXPECT_EQ(judge(b, Format::f32, nan, -kNaN).verdict, Verdict::ok);
  EXPECT_EQ(judge(b, Format::f32, nan, 1.0).verdict, Verdict::special_value_mismatch);
  EXPECT_EQ(judge(b, Format::f32, nan, kInf).verdict, Verdict::special_value_mismatch);
  EXPECT_EQ(judge(b, Format::f32, both, kNaN).verdict, Verdict::ok);
  EXPECT_EQ(judge(b, Format::f32, both, kInf).verdict, Verdict::special_value_mismatch);
  EXPECT_EQ(judge(b, Format::f32, plus, kInf).verdict, Verdict::ok);
  EXPECT_EQ(judge(b, Format::f32, plus, kNaN).verdict, Verdict::special_value_mismatch);
  EXPECT_EQ(judge(b, Format::f32, plus, -kInf).verdict, Verdict::special_value_mismatch);
  EXPECT_EQ(judge(b, Format::f32, plus, FLT_MAX).verdict, Verdict::special_value_mismatch);
  EXPECT_EQ(judge(b, Format::f32, minus, -kInf).verdict, Verdict::ok);
  EXPECT_EQ(judge(bound("correctly_rounded"), Format::f16, minus, kInf).verdict, Verdict::special_value_mismatch);
  const ElementVerdict v = judge(b, Format::f32, plus, kNaN);
  EXPECT_EQ(v.exact, kInf);
  EXPECT_FALSE(v.precondition_met);
  EXPECT_TRUE(std::isnan(v.error));
  EXPECT_TRUE(std::isnan(v.bound));
  EXPECT_TRUE(std::isnan(v.kappa));
  EXPECT_EQ(judge(b, Format::f32, plus, kInf).error, 0.0);
}

TEST(Verdict, NotRepresentable) {
  const ExactSum e = sum_of({0.5, 0.25});
  EXPECT_EQ(judge(bound("recursive(f32)"), Format::f32, e, 0.1).verdict, Verdict::not_representable);
  EXPECT_EQ(judge(bound("recursive(f16)"), Format::f16, e, 0.75 + 0x1p-30).verdict, Verdict::not_representable);
  EXPECT_EQ(judge(bound("correctly_rounded"), Format::bf16, e, 0.75 + 0x1p-12).verdict, Verdict::not_representable);
  EXPECT_EQ(judge(bound("recursive(f16)"), Format::f16, e, 0x1p-25).verdict, Verdict::not_representable);
  EXPECT_EQ(judge(bound("recursive(f16)"), Format::f16, e, 0.75).verdict, Verdict::ok);
  // A wide accumulator that forgot to round its result into the storage format.
  const ExactSum w = sum_of({1.0, 0x1p-30});
  EXPECT_EQ(judge(bound("widened(recursive(f64),f32)"), Format::f32, w, 1 + 0x1p-30).verdict,
            Verdict::not_representable);
  EXPECT_EQ(judge(bound("widened(recursive(f64),f32)"), Format::f32, w, 1.0).verdict, Verdict::ok);
}

TEST(Verdict, FaithfulAndUlps) {
  const BoundExpr faithful = bound("faithful");
  const ExactSum e = sum_of({1.0, 3 * 0x1p-25});  // between 1 and 1 + 2^-23 in f32
  EXPECT_EQ(judge(faithful, Format::f32, e, 1.0).verdict, Verdict::ok);
  EXPECT_EQ(judge(faithful, Format::f32, e, 1 + 0x1p-23).verdict, Verdict::ok);
  EXPECT_EQ(judge(faithful, Format::f32, e, 1 + 0x1p-22).verdict, Verdict::bound_exceeded);
  EXPECT_EQ(judge(faithful, Format::f32, e, 1 - 0x1p-24).verdict, Verdict::bound_exceeded);
  const ExactSum below = sum_of({1.0, 0x1p-25});  // RNE = 1 = RD, RU = 1 + 2^-23
  EXPECT_EQ(judge(faithful, Format::f32, below, 1 + 0x1p-23).verdict, Verdict::ok);
  EXPECT_EQ(judge(faithful, Format::f32, below, 1 - 0x1p-24).verdict, Verdict::bound_exceeded);
  const ExactSum exact = sum_of({1.0, 0x1p-23});  // a value of f32: only itself
  EXPECT_EQ(judge(faithful, Format::f32, exact, 1 + 0x1p-23).verdict, Verdict::ok);
  EXPECT_EQ(judge(faithful, Format::f32, exact, 1.0).verdict, Verdict::bound_exceeded);
  const ExactSum negative = sum_of({-1.0, -3 * 0x1p-25});
  EXPECT_EQ(judge(faithful, Format::f32, negative, -1.0).verdict, Verdict::ok);
  EXPECT_EQ(judge(faithful, Format::f32, negative, -1 - 0x1p-23).verdict, Verdict::ok);
  EXPECT_EQ(judge(faithful, Format::f32, negative, -1 - 0x1p-22).verdict, Verdict::bound_exceeded);
  // S between the largest f32 (2^128 - 2^104) and the overflow threshold 2^128 - 2^103:
  // RD(S) is the largest finite value, RU(S) is +inf, so both are faithful; beyond the largest
  // finite value by less than that, an infinite result is no overflow.
  const double largest = 0x1.fffffep+127;
  const ExactSum above_largest = sum_of({largest, 0x1p+102});
  EXPECT_EQ(judge(faithful, Format::f32, above_largest, largest).verdict, Verdict::ok);
  EXPECT_EQ(judge(faithful, Format::f32, above_largest, INFINITY).verdict, Verdict::ok);
  EXPECT_EQ(judge(faithful, Format::f32, above_largest, -INFINITY).verdict, Verdict::overflow);
  // Below the largest finite value, infinity is not a faithful rounding: overflow.
  const ExactSum under_largest = sum_of({largest, -0x1p+102});
  EXPECT_EQ(judge(faithful, Format::f32, under_largest, INFINITY).verdict, Verdict::overflow);

  const BoundExpr two = bound("ulps(2)");
  const ElementVerdict at = judge(two, Format::f32, e, 1 + 3 * 0x1p-23);
  EXPECT_EQ(at.verdict, Verdict::ok);
  EXPECT_EQ(at.ulps, 2);
  EXPECT_EQ(at.bound, 2.0);
  EXPECT_EQ(at.ratio, 1.0);
  const ElementVerdict beyond = judge(two, Format::f32, e, 1 - 0x1p-24);  // 1 + 2^-23 -> 1 -> 1 - 2^-24
  EXPECT_EQ(beyond.ulps, -2);
  EXPECT_EQ(beyond.verdict, Verdict::ok);
  EXPECT_EQ(judge(two, Format::f32, e, 1 - 0x1p-23).verdict, Verdict::bound_exceeded);
  // ulps across zero: RNE = 2^-149, computed -2^-149: two steps (through +-0).
  const ElementVerdict across = judge(two, Format::f32, sum_of({0x1p-149}), -0x1p-149);
  EXPECT_EQ(across.ulps, -2);
  EXPECT_EQ(across.verdict, Verdict::ok);
  // The claim needs a finite RNE(S).
  EXPECT_EQ(judge(two, Format::f16, sum_of({65504.0, 16.0}), kInf).verdict, Verdict::precondition_not_met);
}

TEST(Verdict, ExtremeUlpsDoNotOverflow) {
  // RNE(S) = -DBL_MAX, computed +DBL_MAX: about 2^64 steps apart, more than int64 holds.
  const ExactSum e = sum_of({-DBL_MAX});
  const ElementVerdict v = judge(bound("correctly_rounded"), Format::f64, e, DBL_MAX);
  EXPECT_EQ(v.verdict, Verdict::not_correctly_rounded);
  EXPECT_EQ(v.ulps, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(v.error, kInf);  // 2 DBL_MAX rounds to infinity
  const ElementVerdict w = judge(bound("ulps(3)"), Format::f64, sum_of({DBL_MAX}), -DBL_MAX);
  EXPECT_EQ(w.verdict, Verdict::bound_exceeded);
  EXPECT_EQ(w.ulps, -std::numeric_limits<std::int64_t>::max());
  EXPECT_GT(w.ratio, 1e18);
  // Still exact when it fits.
  const ElementVerdict x = judge(bound("correctly_rounded"), Format::f64, sum_of({-0x1p-1074}), DBL_MAX);
  EXPECT_EQ(x.ulps, 0x7fefffffffffffffLL + 1);
}

TEST(Verdict, KappaField) {
  EXPECT_EQ(judge(bound("recursive(f64)"), Format::f64, sum_of({3.0, -1.0}), 2.0).kappa, 2.0);
  EXPECT_EQ(judge(bound("recursive(f64)"), Format::f64, sum_of({1.0, -1.0}), 0.0).kappa, kInf);
  EXPECT_EQ(judge(bound("recursive(f64)"), Format::f64, sum_of({0.0}), 0.0).kappa, 1.0);
  EXPECT_EQ(judge(bound("recursive(f64)"), Format::f64, sum_of({4.0, -1.0}), 3.0).kappa, 5.0 / 3.0);
  // Infinite kappa: S = 0, A = 2, bound u A = 2^-52; an error of 2^-51 exceeds it.
  const ElementVerdict v = judge(bound("recursive(f64)"), Format::f64, sum_of({1.0, -1.0}), 0x1p-51);
  EXPECT_EQ(v.verdict, Verdict::bound_exceeded);
  EXPECT_EQ(v.kappa, kInf);
  EXPECT_EQ(v.error, 0x1p-51);
}

}  // namespace
}  // namespace accucheck
