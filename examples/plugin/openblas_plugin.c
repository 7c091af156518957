/* OpenBLAS's dot and axpy as accumulators, through the plugin ABI (built when OpenBLAS is found;
 * docs/characterize.md characterizes them):
 *
 *   openblas.sdot_f32, openblas.ddot_f64   each element's terms (the initial value, then its
 *       addends) gathered into one contiguous vector x, and cblas_?dot(x, ones): the library's
 *       dot kernel decides the order (SIMD lanes, unrolling, FMA). States anyorder(F): the BLAS
 *       contract names no order.
 *   openblas.saxpy_f32, openblas.daxpy_f64  per step, cblas_?axpy(D, 1, g_t, buffer): the buffer
 *       accumulates the steps in order, element by element (what `acc += grad` does with a BLAS).
 *       States recursive(F).
 *
 * One thread (openblas_set_num_threads(1) on load) and 64-byte aligned vectors, so that the
 * kernels' head and tail loops do not depend on where the allocator put a vector.
 *
 *   cc -std=c99 -O2 -ffp-contract=off -shared -fPIC -I core/include examples/plugin/openblas_plugin.c -lopenblas
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdlib.h>
#include <string.h>

#include "accucheck/plugin.h"

/* The CBLAS entry points used, declared here so that no particular cblas.h is needed. */
float cblas_sdot(int n, const float *x, int incx, const float *y, int incy);
double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
void cblas_saxpy(int n, float alpha, const float *x, int incx, float *y, int incy);
void cblas_daxpy(int n, double alpha, const double *x, int incx, double *y, int incy);
void openblas_set_num_threads(int num_threads);

static void *aligned(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) return NULL;
  return p;
}

/* One element at a time: x = (initial, addends), buffer = dot(x, ones). */
#define DOT_DENSE(NAME, T, DOT)                                         \
  static int NAME(const accucheck_dense_problem *p) {                   \
    const size_t n = p->steps + 1;                                      \
    const T *g = (const T *)p->addends;                                 \
    T *buffer = (T *)p->buffer;                                         \
    T *x = aligned(n * sizeof *x), *ones = aligned(n * sizeof *ones);   \
    size_t j, t;                                                        \
    if (!x || !ones) {                                                  \
      free(x);                                                          \
      free(ones);                                                       \
      return 1;                                                         \
    }                                                                   \
    for (t = 0; t < n; ++t) ones[t] = 1;                                \
    for (j = 0; j < p->elements; ++j) {                                 \
      x[0] = buffer[j];                                                 \
      for (t = 0; t < p->steps; ++t) x[t + 1] = g[t * p->elements + j]; \
      buffer[j] = DOT((int)n, x, 1, ones, 1);                           \
    }                                                                   \
    free(x);                                                            \
    free(ones);                                                         \
    return 0;                                                           \
  }

/* One step at a time: buffer += 1 * g_t over the elements. */
#define AXPY_DENSE(NAME, T, AXPY)                                                   \
  static int NAME(const accucheck_dense_problem *p) {                               \
    T *y = aligned(p->elements * sizeof *y), *x = aligned(p->elements * sizeof *x); \
    size_t t;                                                                       \
    if (!x || !y) {                                                                 \
      free(x);                                                                      \
      free(y);                                                                      \
      return 1;                                                                     \
    }                                                                               \
    memcpy(y, p->buffer, p->elements * sizeof *y);                                  \
    for (t = 0; t < p->steps; ++t) {                                                \
      memcpy(x, (const T *)p->addends + t * p->elements, p->elements * sizeof *x);  \
      AXPY((int)p->elements, 1, x, 1, y, 1);                                        \
    }                                                                               \
    memcpy(p->buffer, y, p->elements * sizeof *y);                                  \
    free(x);                                                                        \
    free(y);                                                                        \
    return 0;                                                                       \
  }

DOT_DENSE(sdot_dense, float, cblas_sdot)
DOT_DENSE(ddot_dense, double, cblas_ddot)
AXPY_DENSE(saxpy_dense, float, cblas_saxpy)
AXPY_DENSE(daxpy_dense, double, cblas_daxpy)

static const accucheck_backend backends[] = {
    {"openblas.sdot_f32", ACCUCHECK_F32, ACCUCHECK_F32, "anyorder(f32)", ACCUCHECK_DETERMINISTIC, sdot_dense, NULL, 0,
     NULL},
    {"openblas.ddot_f64", ACCUCHECK_F64, ACCUCHECK_F64, "anyorder(f64)", ACCUCHECK_DETERMINISTIC, ddot_dense, NULL, 0,
     NULL},
    {"openblas.saxpy_f32", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, saxpy_dense, NULL,
     0, NULL},
    {"openblas.daxpy_f64", ACCUCHECK_F64, ACCUCHECK_F64, "recursive(f64)", ACCUCHECK_DETERMINISTIC, daxpy_dense, NULL,
     0, NULL},
};

const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != ACCUCHECK_PLUGIN_ABI) return NULL;
  openblas_set_num_threads(1);
  *count = sizeof backends / sizeof backends[0];
  return backends;
}
