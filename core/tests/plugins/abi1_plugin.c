/* A plugin as it was written against ABI version 1, before strides: its backend struct is
 * version 1's (declared here, as version 1's plugin.h declared it: no `layouts` field), it
 * accepts only ABI 1, and it indexes its inputs contiguously. accucheck must load it with
 * version 1's struct size (three entries: a loader reading version 2's size misreads the
 * second and third) and give it contiguous memory whatever the workload's layout.
 * core/tests/plugin_test.cpp loads it. */
#include <stddef.h>

#include "accucheck/plugin.h" /* the enums and the problems, whose version 1 fields come first */

typedef struct {
  const char *name;
  accucheck_format storage;
  accucheck_format accumulation;
  const char *stated_bound;
  accucheck_determinism determinism;
  int (*accumulate_dense)(const accucheck_dense_problem *);
  int (*accumulate_sparse)(const accucheck_sparse_problem *);
} abi1_backend;

static int naive_f32(const accucheck_dense_problem *p) {
  const float *g = (const float *)p->addends;
  float *buffer = (float *)p->buffer;
  size_t t, j;
  for (t = 0; t < p->steps; ++t)
    for (j = 0; j < p->elements; ++j) buffer[j] += g[t * p->elements + j];
  return 0;
}

static int naive_f64(const accucheck_dense_problem *p) {
  const double *g = (const double *)p->addends;
  double *buffer = (double *)p->buffer;
  size_t t, j;
  for (t = 0; t < p->steps; ++t)
    for (j = 0; j < p->elements; ++j) buffer[j] += g[t * p->elements + j];
  return 0;
}

static int naive_f32_sparse(const accucheck_sparse_problem *p) {
  const float *values = (const float *)p->row_values;
  float *table = (float *)p->table;
  size_t q, d;
  for (q = 0; q < p->step_offsets[p->steps]; ++q)
    for (d = 0; d < p->dim; ++d) table[(size_t)p->row_index[q] * p->dim + d] += values[q * p->dim + d];
  return 0;
}

static const abi1_backend backends[] = {
    {"abi1.naive_f32", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, naive_f32, naive_f32_sparse},
    {"abi1.naive_f64", ACCUCHECK_F64, ACCUCHECK_F64, "recursive(f64)", ACCUCHECK_DETERMINISTIC, naive_f64, NULL},
    {"abi1.sparse_f32", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_ORDER_INDEPENDENT, NULL, naive_f32_sparse},
};

/* The pointer type is the header's; what it points to is version 1's array. */
const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != 1) return NULL;
  *count = sizeof backends / sizeof backends[0];
  return (const accucheck_backend *)(const void *)backends;
}
