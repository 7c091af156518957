/* An accucheck plugin with correct backends: what a user's own accumulator library looks
 * like when it is checked without rebuilding accucheck.
 *
 *   cc -std=c99 -O2 -shared -fPIC -I<accucheck>/core/include good_plugin.c -o libgood_plugin.so -lm
 *   accucheck check --plugin ./libgood_plugin.so --backend 'example.*'
 *
 * Every backend states the bound that its arithmetic really satisfies (BOUNDS.md):
 *   example.naive_f64      acc += g in f64, in order               recursive(f64)
 *   example.kahan_f32      Kahan's compensated sum in f32          kahan(f32)
 *   example.widened_bf16   bf16 values summed in f32, rounded once  widened(recursive(f32),bf16)
 *   example.widened_f16    f16 values summed in f64, rounded once   widened(recursive(f64),f16)
 * Every backend also runs sparse (embedding) workloads, accumulated pair by pair in step
 * order, which gives every table element the same sequential sum as the dense path.
 *
 * naive_f64 and kahan_f32 accept strides (ABI 2, ACCUCHECK_ACCEPTS_STRIDES): they index the
 * addends, the buffer, the table and the pair vectors through the problem's strides, so
 * accucheck also gives them transposed, sliced and padded layouts. The widened ones do not set
 * the flag and are always given contiguous memory, the layout of ABI 1.
 *
 * Kahan's loop drops its compensation once the sum is infinite: without that, a sum that
 * meets -inf returns NaN instead of -inf, which accucheck reports as special-value-mismatch
 * (it found exactly that in the first version of this file).
 *
 * Build with -ffp-contract=off (or a compiler that does not contract a*b+c into FMA across
 * statements): Kahan's compensation depends on each operation being rounded separately. */
#include <stdlib.h>

#include "accucheck/plugin.h"
#include "float16.h"

/* ---- example.naive_f64 ------------------------------------------------------------------ */

static int naive_f64_dense(const accucheck_dense_problem *p) {
  const double *g = (const double *)p->addends;
  double *buffer = (double *)p->buffer;
  size_t t, j;
  for (t = 0; t < p->steps; ++t)
    for (j = 0; j < p->elements; ++j)
      buffer[(ptrdiff_t)j * p->buffer_stride] +=
          g[(ptrdiff_t)t * p->addend_step_stride + (ptrdiff_t)j * p->addend_element_stride];
  return 0;
}

static int naive_f64_sparse(const accucheck_sparse_problem *p) {
  const double *values = (const double *)p->row_values;
  double *table = (double *)p->table;
  size_t q, d;
  for (q = 0; q < p->step_offsets[p->steps]; ++q) {
    double *row;
    if (p->row_index[q] >= p->rows) return 1; /* an index outside the table: report it */
    row = table + (ptrdiff_t)p->row_index[q] * p->table_row_stride;
    for (d = 0; d < p->dim; ++d) row[d] += values[(ptrdiff_t)q * p->value_pair_stride + (ptrdiff_t)d];
  }
  return 0;
}

/* ---- example.kahan_f32 ------------------------------------------------------------------ */

static int kahan_f32_dense(const accucheck_dense_problem *p) {
  const float *g = (const float *)p->addends;
  float *buffer = (float *)p->buffer;
  size_t t, j;
  for (j = 0; j < p->elements; ++j) {
    float sum = buffer[(ptrdiff_t)j * p->buffer_stride], c = 0.0f;
    for (t = 0; t < p->steps; ++t) {
      const float y = g[(ptrdiff_t)t * p->addend_step_stride + (ptrdiff_t)j * p->addend_element_stride] - c;
      const float s = sum + y;
      /* Once the sum is infinite or NaN the compensation is dropped: (s - sum) would be
       * inf - inf = NaN and turn a correct infinite sum into NaN (accucheck's special-value
       * rules catch exactly that: special-value-mismatch). */
      c = isfinite(s) ? (s - sum) - y : 0.0f;
      sum = s;
    }
    buffer[(ptrdiff_t)j * p->buffer_stride] = sum;
  }
  return 0;
}

/* Sparse: one running sum and one compensation per table element, pairs in step order. */
static int kahan_f32_sparse(const accucheck_sparse_problem *p) {
  const float *values = (const float *)p->row_values;
  float *table = (float *)p->table;
  const size_t n = p->rows * p->dim;
  size_t q, d;
  float *c = (float *)calloc(n ? n : 1, sizeof(float)); /* contiguous: our own array */
  if (!c) return 2;
  for (q = 0; q < p->step_offsets[p->steps]; ++q) {
    float *row;
    if (p->row_index[q] >= p->rows) {
      free(c);
      return 1;
    }
    row = table + (ptrdiff_t)p->row_index[q] * p->table_row_stride;
    for (d = 0; d < p->dim; ++d) {
      const size_t i = (size_t)p->row_index[q] * p->dim + d;
      const float y = values[(ptrdiff_t)q * p->value_pair_stride + (ptrdiff_t)d] - c[i];
      const float s = row[d] + y;
      c[i] = isfinite(s) ? (s - row[d]) - y : 0.0f;
      row[d] = s;
    }
  }
  free(c);
  return 0;
}

/* ---- example.widened_bf16 --------------------------------------------------------------- */

static int widened_bf16_dense(const accucheck_dense_problem *p) {
  const uint16_t *g = (const uint16_t *)p->addends;
  uint16_t *buffer = (uint16_t *)p->buffer;
  size_t t, j;
  for (j = 0; j < p->elements; ++j) {
    float acc = (float)example_bf16_to_double(buffer[j]); /* exact: bf16 values are floats */
    for (t = 0; t < p->steps; ++t) acc += (float)example_bf16_to_double(g[t * p->elements + j]);
    buffer[j] = example_bf16_from_float(acc);
  }
  return 0;
}

static int widened_bf16_sparse(const accucheck_sparse_problem *p) {
  const uint16_t *values = (const uint16_t *)p->row_values;
  uint16_t *table = (uint16_t *)p->table;
  const size_t n = p->rows * p->dim;
  size_t i, q, d;
  float *acc = (float *)malloc((n ? n : 1) * sizeof(float));
  if (!acc) return 2;
  for (i = 0; i < n; ++i) acc[i] = (float)example_bf16_to_double(table[i]);
  for (q = 0; q < p->step_offsets[p->steps]; ++q) {
    if (p->row_index[q] >= p->rows) {
      free(acc);
      return 1;
    }
    for (d = 0; d < p->dim; ++d)
      acc[(size_t)p->row_index[q] * p->dim + d] += (float)example_bf16_to_double(values[q * p->dim + d]);
  }
  for (i = 0; i < n; ++i) table[i] = example_bf16_from_float(acc[i]);
  free(acc);
  return 0;
}

/* ---- example.widened_f16 ---------------------------------------------------------------- */

static int widened_f16_dense(const accucheck_dense_problem *p) {
  const uint16_t *g = (const uint16_t *)p->addends;
  uint16_t *buffer = (uint16_t *)p->buffer;
  size_t t, j;
  for (j = 0; j < p->elements; ++j) {
    double acc = example_f16_to_double(buffer[j]);
    for (t = 0; t < p->steps; ++t) acc += example_f16_to_double(g[t * p->elements + j]);
    buffer[j] = example_f16_from_double(acc);
  }
  return 0;
}

static int widened_f16_sparse(const accucheck_sparse_problem *p) {
  const uint16_t *values = (const uint16_t *)p->row_values;
  uint16_t *table = (uint16_t *)p->table;
  const size_t n = p->rows * p->dim;
  size_t i, q, d;
  double *acc = (double *)malloc((n ? n : 1) * sizeof(double));
  if (!acc) return 2;
  for (i = 0; i < n; ++i) acc[i] = example_f16_to_double(table[i]);
  for (q = 0; q < p->step_offsets[p->steps]; ++q) {
    if (p->row_index[q] >= p->rows) {
      free(acc);
      return 1;
    }
    for (d = 0; d < p->dim; ++d)
      acc[(size_t)p->row_index[q] * p->dim + d] += example_f16_to_double(values[q * p->dim + d]);
  }
  for (i = 0; i < n; ++i) table[i] = example_f16_from_double(acc[i]);
  free(acc);
  return 0;
}

static const accucheck_backend backends[] = {
    /* name, storage, accumulation, stated bound, determinism, dense, sparse, layouts (ABI 2), product (ABI 4) */
    {"example.naive_f64", ACCUCHECK_F64, ACCUCHECK_F64, "recursive(f64)", ACCUCHECK_DETERMINISTIC, naive_f64_dense,
     naive_f64_sparse, ACCUCHECK_ACCEPTS_STRIDES, NULL},
    {"example.kahan_f32", ACCUCHECK_F32, ACCUCHECK_F32, "kahan(f32)", ACCUCHECK_DETERMINISTIC, kahan_f32_dense,
     kahan_f32_sparse, ACCUCHECK_ACCEPTS_STRIDES, NULL},
    {"example.widened_bf16", ACCUCHECK_BF16, ACCUCHECK_F32, "widened(recursive(f32),bf16)", ACCUCHECK_DETERMINISTIC,
     widened_bf16_dense, widened_bf16_sparse, 0, NULL},
    {"example.widened_f16", ACCUCHECK_F16, ACCUCHECK_F64, "widened(recursive(f64),f16)", ACCUCHECK_DETERMINISTIC,
     widened_f16_dense, widened_f16_sparse, 0, NULL},
};

const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != ACCUCHECK_PLUGIN_ABI) return NULL;
  *count = sizeof backends / sizeof backends[0];
  return backends;
}
