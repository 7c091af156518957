// The out-of-line parts of arithmetic.h: the rational sqrt and exp rounded upward, and the
// integer helpers the formulas share.
#include "checking/bounds/arithmetic.h"

namespace accucheck::bounds {

Rational round_up_dyadic(const Rational& x, unsigned bits) {
  const BigInt scale = BigInt(1) << bits;
  BigInt numerator = mp::numerator(x) * scale, quotient, remainder;
  mp::divide_qr(numerator, mp::denominator(x), quotient, remainder);
  if (remainder != 0) ++quotient;
  return Rational(quotient, scale);
}

Rational Ops<Rational>::exact_double(double x) { return Rational(BigInt(to_fixed(x)), BigInt(1) << fixed_scale); }
Rational Ops<Rational>::fixed(const FixedInt& x) { return Rational(mp::abs(BigInt(x)), BigInt(1) << fixed_scale); }

Rational Ops<Rational>::sqrt_up(const Rational& x) {
  constexpr unsigned m = 128;
  const BigInt& a = mp::numerator(x);
  const BigInt& b = mp::denominator(x);
  const BigInt root = mp::sqrt(BigInt(a * b) << (2 * m)) + 1;
  return Rational(root, b << m);
}

Rational Ops<Rational>::exp_up(const Rational& x) {
  unsigned halvings = 0;
  Rational y = x;
  while (y > Rational(1, 2)) {
    y /= 2;
    ++halvings;
  }
  y = round_up_dyadic(y, 256);
  Rational term = 1, sum = 1;
  constexpr int terms = 40;
  for (int k = 1; k < terms; ++k) {
    term = round_up_dyadic(term * y / k, 256);
    sum += term;
  }
  // Remainder: sum_{k>=terms} y^k/k! <= term * y/terms * 1/(1 - y/(terms+1)).
  sum += term * y / terms / (1 - y / (terms + 1));
  sum = round_up_dyadic(sum, 256);
  for (unsigned i = 0; i < halvings; ++i) sum = round_up_dyadic(sum * sum, 256);
  return sum;
}

std::uint64_t floor_sqrt_power_of_two(int p) {
  std::uint64_t r = static_cast<std::uint64_t>(std::sqrt(std::ldexp(1.0, p)));
  const unsigned __int128 limit = static_cast<unsigned __int128>(1) << p;
  while (static_cast<unsigned __int128>(r) * r > limit) --r;
  while (static_cast<unsigned __int128>(r + 1) * (r + 1) <= limit) ++r;
  return r;
}

int significant_bits(double x) {
  if (x == 0 || !std::isfinite(x)) return 0;
  const auto bits = std::bit_cast<std::uint64_t>(x);
  std::uint64_t significand = bits & ((std::uint64_t{1} << 52) - 1);
  if (((bits >> 52) & 0x7ff) != 0) significand |= std::uint64_t{1} << 52;
  return std::bit_width(significand) - std::countr_zero(significand);
}

}  // namespace accucheck::bounds
