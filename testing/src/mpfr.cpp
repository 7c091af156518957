#include "accucheck/testing/mpfr.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace accucheck::test {

MpfrExponentRange::MpfrExponentRange(Format f) : saved_emin_(mpfr_get_emin()), saved_emax_(mpfr_get_emax()) {
  const auto& t = traits(f);
  mpfr_set_emin(t.emin - t.precision + 2);
  mpfr_set_emax(t.emax + 1);
}

MpfrExponentRange::~MpfrExponentRange() {
  mpfr_set_emin(saved_emin_);
  mpfr_set_emax(saved_emax_);
}

double mpfr_round_to_format(Format f, const std::function<int(mpfr_ptr)>& compute) {
  const MpfrExponentRange range(f);
  mpfr_t r;
  mpfr_init2(r, traits(f).precision);
  const int inexact = compute(r);
  mpfr_subnormalize(r, inexact, MPFR_RNDN);
  const double result = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(r);
  return result;
}

MpfrValues::MpfrValues(const std::vector<double>& xs, MpfrValuesOf of) {
  values_.reserve(xs.size());  // no reallocation: pointers_ points into it
  for (double x : xs) {
    if (of.finite_only && !std::isfinite(x)) continue;
    values_.emplace_back();
    mpfr_init2(&values_.back(), 53);
    mpfr_set_d(&values_.back(), of.magnitudes ? std::fabs(x) : x, MPFR_RNDN);
  }
  for (auto& v : values_) pointers_.push_back(&v);
}

MpfrValues::~MpfrValues() {
  for (auto& v : values_) mpfr_clear(&v);
}

void set_mpz(mpz_ptr out, const FixedInt& value) {
  const auto& limbs = value.backend();
  mpz_import(out, limbs.size(), -1, sizeof(mp::limb_type), 0, 0, limbs.limbs());
  if (value < 0) mpz_neg(out, out);
}

int set_mpfr(mpfr_ptr out, const FixedInt& value) {
  mpz_t z;
  mpz_init(z);
  set_mpz(z, value);
  const int inexact = mpfr_set_z_2exp(out, z, -fixed_scale, MPFR_RNDN);
  mpz_clear(z);
  return inexact;
}

FixedInt mpfr_to_fixed(mpfr_srcptr x, mpfr_rnd_t rounding) {
  mpfr_t scaled;
  mpfr_init2(scaled, mpfr_get_prec(x));
  mpfr_mul_2si(scaled, x, fixed_scale, MPFR_RNDN);  // exact: a power of two
  mpz_t z;
  mpz_init(z);
  mpfr_get_z(z, scaled, rounding);
  char* text = mpz_get_str(nullptr, 10, z);
  const FixedInt result(text);
  std::free(text);
  mpz_clear(z);
  mpfr_clear(scaled);
  return result;
}

}  // namespace accucheck::test
