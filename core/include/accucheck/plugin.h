/* accucheck plugin ABI, version 1.
 *
 * A plugin is a shared library that exports one symbol, accucheck_plugin_backends, returning
 * its backends. accucheck loads it with `--plugin LIB.so` (or the ACCUCHECK_PLUGINS
 * environment variable, colon-separated) and checks every backend it returns exactly as it
 * checks the built-in ones. This header is all a plugin needs: C99 or C++, no other accucheck
 * header, no accucheck library to link. docs/plugins.md explains how to build and load one.
 *
 * Compatibility: later ABI versions only append fields to these structs and values to these
 * enums; accucheck passes the version it speaks to accucheck_plugin_backends, and a plugin
 * that does not support it returns NULL.
 */
#ifndef ACCUCHECK_PLUGIN_H
#define ACCUCHECK_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACCUCHECK_PLUGIN_ABI 1

typedef enum { ACCUCHECK_F64 = 0, ACCUCHECK_F32 = 1, ACCUCHECK_F16 = 2, ACCUCHECK_BF16 = 3 } accucheck_format;

typedef enum {
  ACCUCHECK_DETERMINISTIC = 0,      /* the same bits on every run */
  ACCUCHECK_ORDER_INDEPENDENT = 1,  /* the same bits under any permutation or split of the addends */
  ACCUCHECK_NONDETERMINISTIC = 2    /* only the bound is promised */
} accucheck_determinism;

/* Values are raw bit patterns of the storage format: double, float, or uint16_t for f16 and bf16. */

/* A dense workload: a buffer of D elements and T steps, each adding one addend per element. */
typedef struct {
  size_t elements;      /* D */
  size_t steps;         /* T */
  const void *addends;  /* T*D values, step-major: step t, element j at [t*D + j] */
  void *buffer;         /* D values: the initial gradient on entry, the accumulated result on return */
} accucheck_dense_problem;

/* A sparse (embedding) workload: a table of rows x dim values; each step is a list of
 * (row, vector) pairs; rows repeat within and across steps, many are never touched. */
typedef struct {
  size_t rows, dim, steps;
  const size_t *step_offsets;  /* steps+1 entries; step t owns pairs [step_offsets[t], step_offsets[t+1]) */
  const uint32_t *row_index;   /* one row per pair */
  const void *row_values;      /* one dim-vector per pair, pair-major */
  void *table;                 /* rows*dim values: the initial gradient on entry, the result on return */
} accucheck_sparse_problem;

typedef struct {
  const char *name;                  /* unique; letters, digits, '_', '-', '.' */
  accucheck_format storage;
  accucheck_format accumulation;
  const char *stated_bound;          /* a bound expression, e.g. "recursive(f32)", "kahan(f32)", "correctly_rounded" */
  accucheck_determinism determinism;
  int (*accumulate_dense)(const accucheck_dense_problem *);    /* NULL if unsupported; 0 on success */
  int (*accumulate_sparse)(const accucheck_sparse_problem *);  /* NULL if unsupported; 0 on success */
} accucheck_backend;

/* Keeps the symbol exported when the plugin is built with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define ACCUCHECK_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define ACCUCHECK_PLUGIN_EXPORT
#endif

/* The one symbol a plugin exports: its backends, count in *count; NULL if abi is not supported.
 * The array and the strings it points to must stay valid while the library is loaded. */
ACCUCHECK_PLUGIN_EXPORT const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* ACCUCHECK_PLUGIN_H */
