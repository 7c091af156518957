/* Plugins that are wrong in one way each, for the loader's tests (core/plugins/plugin_loader_test.cpp)
 * and the CLI's bad-input tests (tools/tests). One source, one variant per build:
 * -DVARIANT_<name>. Every variant's backend is otherwise a correct sequential f32 sum. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <fenv.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accucheck/testing/plugin_sums.h" /* and accucheck/plugin.h */

/* An address nothing is mapped at, hidden from the compiler's bounds analysis. */
volatile uintptr_t test_plugin_bad_address = 16;

/* Misbehaviour while the library loads (constructors run inside dlopen). fast_math is the good
 * variant built with -ffast-math: crtfastmath.o's constructor switches on FTZ and DAZ. */
#if defined(VARIANT_exit_on_load)
__attribute__((constructor)) static void leave_on_load(void) { exit(0); }
#elif defined(VARIANT_hang_on_load)
__attribute__((constructor)) static void hang_on_load(void) {
  for (;;) {}
}
#elif defined(VARIANT_print)
__attribute__((constructor)) static void greet_on_load(void) { printf("test plugin: loaded\n"); }
#endif

/* Bytes to allocate in the allocate variant: 3 GiB, more than the tests' memory limit. */
volatile size_t test_plugin_allocation = (size_t)3 << 30;

__attribute__((unused)) static int naive_f32(const accucheck_dense_problem *p) {
  const float *g = (const float *)p->addends;
  float *buffer = (float *)p->buffer;
  size_t t, j;
#if defined(VARIANT_crash)
  /* SIGSEGV on any case with more than 3 steps. Not through NULL: a sanitizer build would
   * report a null store instead of letting the fault happen. */
  if (p->steps > 3) *(volatile int *)test_plugin_bad_address = 1;
#elif defined(VARIANT_error)
  if (p->steps > 3) return 7;
#elif defined(VARIANT_hang)
  if (p->steps > 3)
    for (;;) {}
#elif defined(VARIANT_overrun)
  if (p->steps > 3) buffer[p->elements] = 1.0f; /* one value past the end */
#elif defined(VARIANT_abort)
  if (p->steps > 3) raise(SIGABRT);
#elif defined(VARIANT_slow)
  {
    const struct timespec two_seconds = {2, 0};
    nanosleep(&two_seconds, NULL); /* every call: a slow backend, not a broken one */
  }
#elif defined(VARIANT_exit_in_call)
  if (p->steps > 3) exit(0);
#elif defined(VARIANT_round_up)
  if (p->steps > 3) fesetround(FE_UPWARD); /* and leaves it so */
#elif defined(VARIANT_print)
  /* A forged finding and a JSON breaker: output that must never reach accucheck's own. */
  printf("FINDING naive_f32: bound-exceeded\n{\"not\": json\n");
  fprintf(stderr, "test plugin: %zu steps\n", p->steps);
  if (p->steps == 7) buffer[0] += 1.0f; /* wrong here: its finding shows what it printed */
#elif defined(VARIANT_allocate)
  if (p->steps > 3) {
    char *big = (char *)malloc(test_plugin_allocation);
    memset(big, 1, test_plugin_allocation); /* NULL when the allocation failed: a crash */
    buffer[0] += (float)(big[test_plugin_allocation - 1] - 1);
    free(big);
  }
#endif
  for (t = 0; t < p->steps; ++t)
    for (j = 0; j < p->elements; ++j) buffer[j] += g[t * p->elements + j];
  return 0;
}

__attribute__((unused)) TEST_PLUGIN_NAIVE_F32_SPARSE(naive_f32_sparse)
#if defined(VARIANT_fp8_inputs)
    /* ABI 3: FP8 gradients come as bytes, decoded here independently of accucheck's codec (OCP FP8:
     * E4M3 bias 7, no infinities, NaN S.1111.111; E5M2 bias 15, IEEE-like), then summed in f32
     * as naive_f32 does. A format it does not expect is an error (5). */
    static float fp8_value(uint8_t byte, accucheck_format format) {
  const unsigned e4 = (byte >> 3) & 15u, m3 = byte & 7u, e5 = (byte >> 2) & 31u, m2 = byte & 3u;
  uint32_t bits = 0;
  float magnitude;
  if (format == ACCUCHECK_E4M3 && e4 == 15 && m3 == 7)
    bits = 0x7fc00000u;
  else if (format == ACCUCHECK_E5M2 && e5 == 31)
    bits = m2 ? 0x7fc00000u : 0x7f800000u;
  else if (format == ACCUCHECK_E4M3 && e4 == 0)
    return (byte & 0x80 ? -1.0f : 1.0f) * (float)m3 / 512.0f;
  else if (format == ACCUCHECK_E5M2 && e5 == 0)
    return (byte & 0x80 ? -1.0f : 1.0f) * (float)m2 / 65536.0f;
  else if (format == ACCUCHECK_E4M3)
    bits = ((e4 + 120u) << 23) | (m3 << 20);
  else
    bits = ((e5 + 112u) << 23) | (m2 << 21);
  memcpy(&magnitude, &bits, sizeof magnitude);
  return byte & 0x80 ? -magnitude : magnitude;
}

/* Value i of an input array in `format`: f32, or an FP8 byte. */
static float input_value(const void *values, ptrdiff_t i, accucheck_format format) {
  if (format == ACCUCHECK_F32) return ((const float *)values)[i];
  return fp8_value(((const uint8_t *)values)[i], format);
}

/* Both honour their strides (the variant sets ACCUCHECK_ACCEPTS_STRIDES too). */
static int fp8_dense(const accucheck_dense_problem *p) {
  float *buffer = (float *)p->buffer;
  size_t t, j;
  fprintf(stderr, "addend_format %d\n", (int)p->addend_format); /* the loader's test reads it */
  if (p->addend_format != ACCUCHECK_F32 && p->addend_format != ACCUCHECK_E4M3 && p->addend_format != ACCUCHECK_E5M2)
    return 5;
  for (t = 0; t < p->steps; ++t)
    for (j = 0; j < p->elements; ++j)
      buffer[(ptrdiff_t)j * p->buffer_stride] += input_value(
          p->addends, (ptrdiff_t)t * p->addend_step_stride + (ptrdiff_t)j * p->addend_element_stride, p->addend_format);
  return 0;
}

static int fp8_sparse(const accucheck_sparse_problem *p) {
  float *table = (float *)p->table;
  size_t q, d;
  fprintf(stderr, "value_format %d\n", (int)p->value_format);
  if (p->value_format != ACCUCHECK_F32 && p->value_format != ACCUCHECK_E4M3 && p->value_format != ACCUCHECK_E5M2)
    return 5;
  for (q = 0; q < p->step_offsets[p->steps]; ++q)
    for (d = 0; d < p->dim; ++d)
      table[(ptrdiff_t)p->row_index[q] * p->table_row_stride + (ptrdiff_t)d] +=
          input_value(p->row_values, (ptrdiff_t)q * p->value_pair_stride + (ptrdiff_t)d, p->value_format);
  return 0;
}

static accucheck_backend backends[] = {
    {"test.fp8_inputs", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, fp8_dense, fp8_sparse,
     ACCUCHECK_ACCEPTS_FP8_INPUTS | ACCUCHECK_ACCEPTS_STRIDES},
};
#elif defined(VARIANT_duplicate_name)
    static const accucheck_backend backends[] = {
        {"test.same", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, naive_f32, NULL, 0},
        {"test.same", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, naive_f32,
         naive_f32_sparse, 0},
};
#else
    static accucheck_backend backends[] = {
        {"test.variant", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, naive_f32,
         naive_f32_sparse, 0},
};
#endif

#if defined(VARIANT_missing_symbol)
/* Exports something, but not accucheck_plugin_backends. */
const accucheck_backend *accucheck_plugin_backend(int abi, size_t *count);
const accucheck_backend *accucheck_plugin_backend(int abi, size_t *count) {
  (void)abi;
  *count = 1;
  return backends;
}
#else
const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
#if defined(VARIANT_wrong_abi)
  (void)abi;
  (void)count;
  (void)backends;
  return NULL; /* supports no ABI this accucheck speaks */
#elif defined(VARIANT_load_crash)
  (void)abi;
  (void)backends;
  *count = *(volatile size_t *)test_plugin_bad_address;
  return NULL;
#elif defined(VARIANT_abi2)
  /* A plugin built against version 2 answers only 2 (accucheck asks for 3 first). */
  if (abi != 2) return NULL;
  *count = sizeof backends / sizeof backends[0];
  return backends;
#else
  if (abi != ACCUCHECK_PLUGIN_ABI) return NULL;
  *count = sizeof backends / sizeof backends[0];
#if defined(VARIANT_exit_in_backends)
  exit(0);
#endif
#if defined(VARIANT_zero_count)
  *count = 0;
#elif defined(VARIANT_null_functions)
  backends[0].accumulate_dense = NULL;
  backends[0].accumulate_sparse = NULL;
#elif defined(VARIANT_invalid_name)
  backends[0].name = "bad name!";
#elif defined(VARIANT_null_name)
  backends[0].name = NULL;
#elif defined(VARIANT_builtin_name)
  backends[0].name = "naive_f32";
#elif defined(VARIANT_unknown_bound)
  backends[0].stated_bound = "recursive(f33)";
#elif defined(VARIANT_null_bound)
  backends[0].stated_bound = NULL;
#elif defined(VARIANT_storage_range)
  memset(&backends[0].storage, 0, sizeof backends[0].storage);
  *(int *)&backends[0].storage = 7;
#elif defined(VARIANT_storage_fp8)
  *(int *)&backends[0].storage = ACCUCHECK_E4M3;
#elif defined(VARIANT_accumulation_range)
  *(int *)&backends[0].accumulation = -1;
#elif defined(VARIANT_determinism_range)
  *(int *)&backends[0].determinism = 5;
#endif
  return backends;
#endif
}
#endif
