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

static int sdot_dense(const accucheck_dense_problem *p) {
  const size_t n = p->steps + 1;
  const float *g = (const float *)p->addends;
  float *buffer = (float *)p->buffer;
  float *x = aligned(n * sizeof *x), *ones = aligned(n * sizeof *ones);
  size_t j, t;
  if (!x || !ones) {
    free(x);
    free(ones);
    return 1;
  }
  for (t = 0; t < n; ++t) ones[t] = 1.0f;
  for (j = 0; j < p->elements; ++j) {
    x[0] = buffer[j];
    for (t = 0; t < p->steps; ++t) x[t + 1] = g[t * p->elements + j];
    buffer[j] = cblas_sdot((int)n, x, 1, ones, 1);
  }
  free(x);
  free(ones);
  return 0;
}

static int ddot_dense(const accucheck_dense_problem *p) {
  const size_t n = p->steps + 1;
  const double *g = (const double *)p->addends;
  double *buffer = (double *)p->buffer;
  double *x = aligned(n * sizeof *x), *ones = aligned(n * sizeof *ones);
  size_t j, t;
  if (!x || !ones) {
    free(x);
    free(ones);
    return 1;
  }
  for (t = 0; t < n; ++t) ones[t] = 1.0;
  for (j = 0; j < p->elements; ++j) {
    x[0] = buffer[j];
    for (t = 0; t < p->steps; ++t) x[t + 1] = g[t * p->elements + j];
    buffer[j] = cblas_ddot((int)n, x, 1, ones, 1);
  }
  free(x);
  free(ones);
  return 0;
}

static int saxpy_dense(const accucheck_dense_problem *p) {
  float *y = aligned(p->elements * sizeof *y), *x = aligned(p->elements * sizeof *x);
  size_t t;
  if (!x || !y) {
    free(x);
    free(y);
    return 1;
  }
  memcpy(y, p->buffer, p->elements * sizeof *y);
  for (t = 0; t < p->steps; ++t) {
    memcpy(x, (const float *)p->addends + t * p->elements, p->elements * sizeof *x);
    cblas_saxpy((int)p->elements, 1.0f, x, 1, y, 1);
  }
  memcpy(p->buffer, y, p->elements * sizeof *y);
  free(x);
  free(y);
  return 0;
}

static int daxpy_dense(const accucheck_dense_problem *p) {
  double *y = aligned(p->elements * sizeof *y), *x = aligned(p->elements * sizeof *x);
  size_t t;
  if (!x || !y) {
    free(x);
    free(y);
    return 1;
  }
  memcpy(y, p->buffer, p->elements * sizeof *y);
  for (t = 0; t < p->steps; ++t) {
    memcpy(x, (const double *)p->addends + t * p->elements, p->elements * sizeof *x);
    cblas_daxpy((int)p->elements, 1.0, x, 1, y, 1);
  }
  memcpy(p->buffer, y, p->elements * sizeof *y);
  free(x);
  free(y);
  return 0;
}

static const accucheck_backend backends[] = {
    {"openblas.sdot_f32", ACCUCHECK_F32, ACCUCHECK_F32, "anyorder(f32)", ACCUCHECK_DETERMINISTIC, sdot_dense, NULL, 0},
    {"openblas.ddot_f64", ACCUCHECK_F64, ACCUCHECK_F64, "anyorder(f64)", ACCUCHECK_DETERMINISTIC, ddot_dense, NULL, 0},
    {"openblas.saxpy_f32", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, saxpy_dense, NULL, 0},
    {"openblas.daxpy_f64", ACCUCHECK_F64, ACCUCHECK_F64, "recursive(f64)", ACCUCHECK_DETERMINISTIC, daxpy_dense, NULL, 0},
};

const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != ACCUCHECK_PLUGIN_ABI) return NULL;
  openblas_set_num_threads(1);
  *count = sizeof backends / sizeof backends[0];
  return backends;
}
