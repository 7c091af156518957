/* An accucheck plugin with deliberately wrong backends, to show what a finding looks like:
 *
 *   accucheck check --plugin ./libwrong_plugin.so --backend 'example_wrong.*'   (exits 1)
 *   accucheck replay findings/<file>.json --plugin ./libwrong_plugin.so         (exits 1)
 *
 *   example_wrong.elemwise_sum_f32  MXNet's ElemwiseSum under kAddTo with more than 4 inputs
 *                                   (mxnet-17995): the running sum is counted again on every
 *                                   step, out = out + (out + g). States recursive(f32).
 *   example_wrong.claims_kahan_f32  a plain sequential f32 sum that states Kahan's bound,
 *                                   kahan(f32): true for short sums, false for long ones.
 *   example_wrong.ignores_strides_f32  declares ACCUCHECK_ACCEPTS_STRIDES (ABI 2) but indexes
 *                                   its inputs as if they were contiguous: right on contiguous
 *                                   memory, wrong on a transposed or sliced view (the kernel
 *                                   that assumed .contiguous() had been called).
 */
#include "accucheck/plugin.h"

static int elemwise_sum_dense(const accucheck_dense_problem *p) {
  const float *g = (const float *)p->addends;
  float *out = (float *)p->buffer;
  size_t t, j;
  for (j = 0; j < p->elements; ++j) {
    float acc = out[j];
    for (t = 0; t < p->steps; ++t) {
      if (p->steps > 4)
        acc = acc + (acc + g[t * p->elements + j]); /* the bug */
      else
        acc = acc + g[t * p->elements + j];
    }
    out[j] = acc;
  }
  return 0;
}

static int naive_f32_dense(const accucheck_dense_problem *p) {
  const float *g = (const float *)p->addends;
  float *buffer = (float *)p->buffer;
  size_t t, j;
  for (t = 0; t < p->steps; ++t)
    for (j = 0; j < p->elements; ++j) buffer[j] += g[t * p->elements + j];
  return 0;
}

static const accucheck_backend backends[] = {
    {"example_wrong.elemwise_sum_f32", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC,
     elemwise_sum_dense, NULL, 0, NULL},
    {"example_wrong.claims_kahan_f32", ACCUCHECK_F32, ACCUCHECK_F32, "kahan(f32)", ACCUCHECK_DETERMINISTIC,
     naive_f32_dense, NULL, 0, NULL},
    {"example_wrong.ignores_strides_f32", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC,
     naive_f32_dense, NULL, ACCUCHECK_ACCEPTS_STRIDES, NULL},
};

const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != ACCUCHECK_PLUGIN_ABI) return NULL;
  *count = sizeof backends / sizeof backends[0];
  return backends;
}
