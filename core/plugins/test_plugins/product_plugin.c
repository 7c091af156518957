/* Product (GEMM, beta = 1) backends through ABI 4, for the loader's tests (core/plugins/plugin_loader_test.cpp).
 * One source, one variant per build (-DVARIANT_<name>):
 *   gemm_fma    C += A_t B_t as one fmaf chain from C per element: products(f32) holds (correct)
 *   gemm_drops_step  the same, but the last step's products are never added (wrong: bound-exceeded)
 *   gemm_fp8_inputs fma_chain that takes FP8 A and B as bytes (ACCUCHECK_ACCEPTS_FP8_INPUTS), decoded here
 *   abi3        a plugin built against version 3's header: entries of version 3's size (no
 *               accumulate_product), two of them, answering only ABI 3; it must load as before */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "accucheck/testing/plugin_sums.h" /* and accucheck/plugin.h */

/* An OCP FP8 byte as a float (E4M3: bias 7, no infinities, S.1111.111 NaN; E5M2: bias 15, IEEE-like). */
static float fp8_value(uint8_t byte, accucheck_format format) {
  const int e4m3 = format == ACCUCHECK_E4M3;
  const int mantissa_bits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const int sign = byte >> 7, exponent = (byte >> mantissa_bits) & (e4m3 ? 15 : 31);
  const int mantissa = byte & ((1 << mantissa_bits) - 1);
  float v;
  if (e4m3 && exponent == 15 && mantissa == 7) return NAN;
  if (!e4m3 && exponent == 31)
    v = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    v = ldexpf((float)mantissa, 1 - bias - mantissa_bits);
  else
    v = ldexpf((float)((1 << mantissa_bits) + mantissa), exponent - bias - mantissa_bits);
  return sign ? -v : v;
}

static float input(const void *values, size_t i, accucheck_format format) {
  if (format == ACCUCHECK_E4M3 || format == ACCUCHECK_E5M2) return fp8_value(((const uint8_t *)values)[i], format);
  return ((const float *)values)[i];
}

static int gemm_f32(const accucheck_product_problem *p) {
  float *c = (float *)p->c;
  size_t steps = p->steps;
#if defined(VARIANT_gemm_drops_step)
  if (steps > 1) --steps; /* planted: the last micro-batch's gradient is lost */
#endif
  for (size_t m = 0; m < p->rows; ++m)
    for (size_t n = 0; n < p->cols; ++n) {
      float acc = c[m * p->cols + n];
      for (size_t t = 0; t < steps; ++t)
        for (size_t k = 0; k < p->batch; ++k)
          acc = fmaf(input(p->a, (t * p->rows + m) * p->batch + k, p->a_format),
                     input(p->b, (t * p->batch + k) * p->cols + n, p->b_format), acc);
      c[m * p->cols + n] = acc;
    }
  return 0;
}

#if defined(VARIANT_abi3)
/* accucheck_backend as version 3's header declared it: version 1's fields and version 2's layouts. */
typedef struct {
  TEST_PLUGIN_ABI1_FIELDS
  unsigned layouts;
} backend_v3;

TEST_PLUGIN_NAIVE_DENSE(sum_f32, float)

static const backend_v3 backends[] = {
    {"product_test.v3_first", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, sum_f32, NULL,
     0},
    {"product_test.v3_second", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, sum_f32, NULL,
     0},
};

const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != 3) return NULL;
  *count = sizeof backends / sizeof backends[0];
  return (const accucheck_backend *)(const void *)backends;
}
#else
#if defined(VARIANT_gemm_fp8_inputs)
#define LAYOUTS ACCUCHECK_ACCEPTS_FP8_INPUTS
#else
#define LAYOUTS 0
#endif
static const accucheck_backend backends[] = {
    {"product_test.gemm_f32", ACCUCHECK_F32, ACCUCHECK_F32, "products(f32)", ACCUCHECK_DETERMINISTIC, NULL, NULL,
     LAYOUTS, gemm_f32},
};

const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != ACCUCHECK_PLUGIN_ABI) return NULL;
  *count = sizeof backends / sizeof backends[0];
  return backends;
}
#endif
