/* Backends whose structure `accucheck characterize` must reveal through the plugin ABI
 * (tools/tests/characterize_test.py):
 *
 *   structures.fused4_window12_f32     a tensor-core-like accumulator: groups of 4 consecutive
 *                                      terms (the initial value first) are aligned to the largest
 *                                      exponent among them, each cut toward zero to 12 bits below
 *                                      that (the alignment window), added exactly and rounded once
 *                                      to f32; the group sums are added in order in f32. It states
 *                                      anyorder(f32), which its window cannot satisfy.
 *   structures.chain_claims_pairwise_f32  a left-to-right f32 sum stating the pairwise tree's
 *                                      bound, tree(pairwise,f32): wrong from 5 terms on.
 *   structures.lanes4_f64              4 interleaved partial sums, then ((l0 + l1) + (l2 + l3)), in
 *                                      f64, stating tree(lanes:4,f64): right.
 */
#include <math.h>

#include "accucheck/testing/plugin_sums.h" /* and accucheck/plugin.h */

static double term(const accucheck_dense_problem *p, const double *initial, const void *addends, size_t element,
                   size_t i, int is_float) {
  if (i == 0) return initial[element];
  return is_float ? (double)((const float *)addends)[(i - 1) * p->elements + element]
                  : ((const double *)addends)[(i - 1) * p->elements + element];
}

/* x cut toward zero to a multiple of 2^unit. */
static double cut(double x, int unit) { return ldexp(trunc(ldexp(x, -unit)), unit); }

static int fused4_dense(const accucheck_dense_problem *p) {
  float *buffer = (float *)p->buffer;
  size_t j, i, k;
  for (j = 0; j < p->elements; ++j) {
    const size_t n = p->steps + 1;
    float total = 0.0f;
    int started = 0;
    for (i = 0; i < n; i += 4) {
      double group[4] = {0, 0, 0, 0}, largest = 0, sum = 0;
      const size_t m = n - i < 4 ? n - i : 4;
      for (k = 0; k < m; ++k) {
        group[k] = i + k == 0 ? (double)buffer[j] : (double)((const float *)p->addends)[(i + k - 1) * p->elements + j];
        if (fabs(group[k]) > largest) largest = fabs(group[k]);
      }
      if (largest > 0) {
        const int unit = ilogb(largest) - 11;               /* 12 bits: the leading one and 11 below it */
        for (k = 0; k < m; ++k) sum += cut(group[k], unit); /* exact: 4 values on one grid, 12 bits each */
      }
      if (m == 1) sum = group[0];
      total = started ? total + (float)sum : (float)sum;
      started = 1;
    }
    buffer[j] = total;
  }
  return 0;
}

TEST_PLUGIN_NAIVE_DENSE(chain_f32_dense, float)

static int lanes4_f64_dense(const accucheck_dense_problem *p) {
  double *buffer = (double *)p->buffer;
  size_t j, i;
  for (j = 0; j < p->elements; ++j) {
    const size_t n = p->steps + 1;
    double lane[4] = {0, 0, 0, 0};
    int used[4] = {0, 0, 0, 0};
    for (i = 0; i < n; ++i) {
      const double x = term(p, buffer, p->addends, j, i, 0);
      lane[i % 4] = used[i % 4] ? lane[i % 4] + x : x;
      used[i % 4] = 1;
    }
    /* ((l0 + l1) + (l2 + l3)), an unused lane adding nothing */
    {
      const double left = used[1] ? lane[0] + lane[1] : lane[0];
      double right = 0;
      int has_right = used[2];
      if (used[2]) right = used[3] ? lane[2] + lane[3] : lane[2];
      buffer[j] = has_right ? left + right : left;
    }
  }
  return 0;
}

static const accucheck_backend backends[] = {
    {"structures.fused4_window12_f32", ACCUCHECK_F32, ACCUCHECK_F32, "anyorder(f32)", ACCUCHECK_DETERMINISTIC,
     fused4_dense, NULL, 0},
    {"structures.chain_claims_pairwise_f32", ACCUCHECK_F32, ACCUCHECK_F32, "tree(pairwise,f32)",
     ACCUCHECK_DETERMINISTIC, chain_f32_dense, NULL, 0},
    {"structures.lanes4_f64", ACCUCHECK_F64, ACCUCHECK_F64, "tree(lanes:4,f64)", ACCUCHECK_DETERMINISTIC,
     lanes4_f64_dense, NULL, 0},
};

const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != ACCUCHECK_PLUGIN_ABI) return NULL;
  *count = sizeof backends / sizeof backends[0];
  return backends;
}
