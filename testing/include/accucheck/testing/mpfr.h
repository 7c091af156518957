// MPFR as the tests' independent reference: exact sums, correct rounding into a format (its
// precision, exponent range and gradual underflow), and exact conversions between core's
// fixed-point integers (FixedInt, units of 2^-1074) and GMP/MPFR numbers.
#pragma once

#include <gmp.h>
#include <mpfr.h>

#include <functional>
#include <vector>

#include "numerics/exact.h"
#include "numerics/format.h"

namespace accucheck::test {

// Sets MPFR's exponent range to f's for the object's lifetime (restored after). MPFR writes
// x = m * 2^e with 1/2 <= m < 1, so IEEE's emin and emax become emin - p + 2 and emax + 1.
class MpfrExponentRange {
 public:
  explicit MpfrExponentRange(Format f);
  ~MpfrExponentRange();
  MpfrExponentRange(const MpfrExponentRange&) = delete;
  MpfrExponentRange& operator=(const MpfrExponentRange&) = delete;

 private:
  mpfr_exp_t saved_emin_, saved_emax_;
};

// The correctly rounded (to nearest even) value in f of what `compute` writes into its
// argument: an MPFR number of f's precision in f's exponent range; `compute` rounds to nearest
// and returns MPFR's ternary value, so that subnormal results are rounded once, as IEEE 754
// rounds them. E.g. mpfr_round_to_format(f, [&](mpfr_ptr r) { return mpfr_set_d(r, x, MPFR_RNDN); }).
double mpfr_round_to_format(Format f, const std::function<int(mpfr_ptr)>& compute);

// Which MpfrValues to hold: |x| instead of x, and only the finite x (mpfr_sum of what the
// oracle's S and A count) or all of them (NaN and infinities as IEEE sums them).
struct MpfrValuesOf {
  bool magnitudes = false;
  bool finite_only = false;
};

// MPFR numbers holding doubles exactly (53 bits hold any double), as the array of pointers
// mpfr_sum takes.
class MpfrValues {
 public:
  explicit MpfrValues(const std::vector<double>& xs, MpfrValuesOf of = {});
  ~MpfrValues();
  MpfrValues(const MpfrValues&) = delete;
  MpfrValues& operator=(const MpfrValues&) = delete;
  mpfr_ptr* data() { return pointers_.data(); }
  unsigned long size() const { return pointers_.size(); }

 private:
  std::vector<__mpfr_struct> values_;
  std::vector<mpfr_ptr> pointers_;
};

// value as a GMP integer: the count of 2^-1074 units, through the limbs, then the sign.
void set_mpz(mpz_ptr out, const FixedInt& value);
// value * 2^-1074, rounded into out's precision; returns MPFR's ternary value (0: exact).
int set_mpfr(mpfr_ptr out, const FixedInt& value);
// x * 2^1074 rounded to an integer in the direction given: x as a FixedInt.
FixedInt mpfr_to_fixed(mpfr_srcptr x, mpfr_rnd_t rounding);

}  // namespace accucheck::test
