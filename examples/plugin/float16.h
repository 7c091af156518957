/* Conversions between double and the 16-bit storage formats (IEEE binary16 and bfloat16)
 * for the example plugins: round to nearest, ties to even; gradual underflow; overflow to
 * infinity; NaN stays NaN. Plain C99, no compiler extensions. */
#ifndef ACCUCHECK_EXAMPLE_FLOAT16_H
#define ACCUCHECK_EXAMPLE_FLOAT16_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static double example_f16_to_double(uint16_t h) {
  const int exponent = (h >> 10) & 31, mantissa = h & 1023;
  double v;
  if (exponent == 0)
    v = ldexp((double)mantissa, -24);
  else if (exponent == 31)
    v = mantissa ? NAN : INFINITY;
  else
    v = ldexp((double)(mantissa + 1024), exponent - 25);
  return (h & 0x8000) ? -v : v;
}

/* rint() rounds to nearest even in the default rounding mode; every scaling is by a power of
 * two and exact. */
static uint16_t example_f16_from_double(double x) {
  const uint16_t sign = signbit(x) ? 0x8000 : 0;
  const double a = fabs(x);
  int e;
  double q;
  if (isnan(x)) return sign | 0x7e00;
  if (a >= 65520.0) return sign | 0x7c00; /* 65504 is the largest finite; 65520 ties to infinity */
  if (a < ldexp(1.0, -14)) {              /* subnormal range: quantum 2^-24 */
    q = rint(ldexp(a, 24));               /* q == 1024 is the smallest normal, bits 0x0400 */
    return sign | (uint16_t)q;
  }
  frexp(a, &e);               /* a = m * 2^e, m in [0.5, 1): the binade is 2^(e-1) */
  q = rint(ldexp(a, 11 - e)); /* 11 significant bits: q in [1024, 2048] */
  if (q == 2048.0) {
    q = 1024.0;
    ++e;
  }
  if (e - 1 + 15 >= 31) return sign | 0x7c00;
  return sign | (uint16_t)(((e - 1 + 15) << 10) | ((int)q - 1024));
}

static double example_bf16_to_double(uint16_t b) {
  const uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, 4);
  return (double)f;
}

/* From a float: the classic bias trick rounds the top 16 bits to nearest even. */
static uint16_t example_bf16_from_float(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if (isnan(f)) return (uint16_t)((bits >> 16) | 0x0040);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

#endif
