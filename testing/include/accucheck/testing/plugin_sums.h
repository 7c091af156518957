/* What the test plugins share (core/tests/plugins, tools/tests/plugins): the plain
 * sums their correct backends compute, and accucheck_backend's fields as ABI version 1 declared
 * them (the older-ABI plugins declare their own structs from them). The test plugins only;
 * examples/plugin stays self-contained, one file a user can copy.
 *
 * C99, built the way every plugin is (-std=c99 -pedantic); accucheck_test_plugins() adds
 * testing/include to the test plugins' include path. */
#ifndef ACCUCHECK_TESTING_PLUGIN_SUMS_H
#define ACCUCHECK_TESTING_PLUGIN_SUMS_H

#include <stddef.h>

#include "accucheck/plugin.h"

/* static int NAME(const accucheck_dense_problem *): buffer[j] += addends[t][j] for t in order,
 * in TYPE (float or double), the addends contiguous (steps x elements). */
#define TEST_PLUGIN_NAIVE_DENSE(NAME, TYPE)                                  \
  static int NAME(const accucheck_dense_problem* p) {                        \
    const TYPE* g = (const TYPE*)p->addends;                                 \
    TYPE* buffer = (TYPE*)p->buffer;                                         \
    size_t t, j;                                                             \
    for (t = 0; t < p->steps; ++t)                                           \
      for (j = 0; j < p->elements; ++j) buffer[j] += g[t * p->elements + j]; \
    return 0;                                                                \
  }

/* static int NAME(const accucheck_sparse_problem *): table[row_index[q]][d] += row_values[q][d]
 * for every pair q in order, in f32, contiguous. */
#define TEST_PLUGIN_NAIVE_F32_SPARSE(NAME)                                                                \
  static int NAME(const accucheck_sparse_problem* p) {                                                    \
    const float* values = (const float*)p->row_values;                                                    \
    float* table = (float*)p->table;                                                                      \
    size_t q, d;                                                                                          \
    for (q = 0; q < p->step_offsets[p->steps]; ++q)                                                       \
      for (d = 0; d < p->dim; ++d) table[(size_t)p->row_index[q] * p->dim + d] += values[q * p->dim + d]; \
    return 0;                                                                                             \
  }

/* accucheck_backend's fields as ABI version 1 declared them, in order; version 2 appended
 * `unsigned layouts` (version 3 no field), version 4 accumulate_product. */
#define TEST_PLUGIN_ABI1_FIELDS                            \
  const char* name;                                        \
  accucheck_format storage, accumulation;                  \
  const char* stated_bound;                                \
  accucheck_determinism determinism;                       \
  int (*accumulate_dense)(const accucheck_dense_problem*); \
  int (*accumulate_sparse)(const accucheck_sparse_problem*);

#endif
