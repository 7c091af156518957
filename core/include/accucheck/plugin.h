/* accucheck plugin ABI, version 4 (version 1 to 3 plugins still load).
 *
 * A plugin is a shared library that exports one symbol, accucheck_plugin_backends, returning
 * its backends. accucheck loads it with `--plugin LIB.so` (or the ACCUCHECK_PLUGINS
 * environment variable, colon-separated) and checks every backend it returns exactly as it
 * checks the built-in ones. This header is all a plugin needs: C99 or C++, no other accucheck
 * header, no accucheck library to link. docs/plugins.md explains how to build and load one.
 *
 * Compatibility: later ABI versions only append fields to these structs and values to these
 * enums; accucheck passes the version it speaks to accucheck_plugin_backends, and a plugin
 * that does not support it returns NULL. accucheck asks for version 3 first and, given NULL,
 * for 2, then 1, whose backend array it then reads with version 1's struct size (the fields
 * before "ABI 2" below); a plugin reads only the problem fields of its version.
 *
 * Version 2 adds strides: a backend that sets ACCUCHECK_ACCEPTS_STRIDES in `layouts` is given
 * non-contiguous inputs and buffers too (element-major, transposed, sliced, padded), because
 * framework kernels take other code paths for them; every other backend is given the
 * contiguous layout of version 1, whose strides the version 2 fields then state.
 *
 * Version 3 adds FP8 gradients: workloads whose addends (dense) or pair values (sparse) are OCP
 * FP8 values, E4M3 or E5M2, accumulated into a buffer of the storage format (FP8 training keeps
 * its gradients in FP8 and its accumulation buffers in f32 or bf16). A backend that sets
 * ACCUCHECK_ACCEPTS_FP8_INPUTS in `layouts` is given them as FP8 bytes, addend_format or
 * value_format saying which; every other backend (and every version 1 or 2 plugin) is given the
 * same values converted to the storage format, exactly (every FP8 value is an f16, bf16, f32 and
 * f64 value). Storage and accumulation stay f64, f32, f16 or bf16.
 *
 * Version 4 adds product workloads: GEMM with beta = 1, C += A_1 B_1 + ... + A_T B_T, the weight
 * gradient of a dense layer accumulated into its running gradient (grad_req 'add'), where a
 * product may enter the running sum unrounded (an FMA, a tensor core's fused dot product). A
 * backend sets accumulate_product; A and B come in the storage format, or as FP8 bytes (a_format,
 * b_format) to a backend with ACCUCHECK_ACCEPTS_FP8_INPUTS. accucheck asks for version 4 first; a
 * plugin built against an older header returns NULL and is asked for 3, whose entries it reads
 * with version 3's struct size (the fields before "ABI 4").
 */
#ifndef ACCUCHECK_PLUGIN_H
#define ACCUCHECK_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACCUCHECK_PLUGIN_ABI 4

typedef enum {
  ACCUCHECK_F64 = 0,
  ACCUCHECK_F32 = 1,
  ACCUCHECK_F16 = 2,
  ACCUCHECK_BF16 = 3,
  /* ABI 3: input formats only (addend_format, value_format), never storage or accumulation. */
  ACCUCHECK_E4M3 = 4, /* OCP FP8 E4M3: no infinities, NaN = S.1111.111, largest 448 */
  ACCUCHECK_E5M2 = 5  /* OCP FP8 E5M2: IEEE-like, largest 57344 */
} accucheck_format;

typedef enum {
  ACCUCHECK_DETERMINISTIC = 0,     /* the same bits on every run */
  ACCUCHECK_ORDER_INDEPENDENT = 1, /* the same bits under any permutation or split of the addends */
  ACCUCHECK_NONDETERMINISTIC = 2   /* only the bound is promised */
} accucheck_determinism;

/* Values are raw bit patterns of their format: double, float, uint16_t for f16 and bf16, uint8_t
 * for E4M3 and E5M2. */

/* A dense workload: a buffer of D elements and T steps, each adding one addend per element. */
typedef struct {
  size_t elements;     /* D */
  size_t steps;        /* T */
  const void *addends; /* T*D values; contiguous (version 1): step t, element j at [t*D + j] */
  void *buffer;        /* D values: the initial gradient on entry, the accumulated result on return */
  /* ABI 2. Strides count values, not bytes. Step t's addend of element j is at
   * addends[t*addend_step_stride + j*addend_element_stride] and element j of the buffer at
   * buffer[j*buffer_stride]. No two addends share a place; values between the strided places
   * of the buffer must be left as they are (accucheck checks). Contiguous: D, 1, 1. */
  ptrdiff_t addend_step_stride;
  ptrdiff_t addend_element_stride;
  ptrdiff_t buffer_stride;
  /* ABI 3: the format of `addends`: the storage format, or ACCUCHECK_E4M3 / ACCUCHECK_E5M2 (one
   * byte each) for FP8 gradients given to a backend with ACCUCHECK_ACCEPTS_FP8_INPUTS. */
  accucheck_format addend_format;
} accucheck_dense_problem;

/* A sparse (embedding) workload: a table of rows x dim values; each step is a list of
 * (row, vector) pairs; rows repeat within and across steps, many are never touched. */
typedef struct {
  size_t rows, dim, steps;
  const size_t *step_offsets; /* steps+1 entries; step t owns pairs [step_offsets[t], step_offsets[t+1]) */
  const uint32_t *row_index;  /* one row per pair */
  const void *row_values;     /* one dim-vector per pair, pair-major */
  void *table;                /* rows*dim values: the initial gradient on entry, the result on return */
  /* ABI 2, in values: table row r starts at table[r*table_row_stride] and pair q's vector at
   * row_values[q*value_pair_stride] (both >= dim; dim when contiguous). Values between the rows
   * of the table must be left as they are. */
  ptrdiff_t table_row_stride;
  ptrdiff_t value_pair_stride;
  /* ABI 3: the format of `row_values`, as addend_format above. */
  accucheck_format value_format;
} accucheck_sparse_problem;

/* ABI 4: a product workload (GEMM with beta = 1). Element (m, n) of C (rows x cols, row-major) is
 * C[m][n] + sum over t < steps, k < batch of A_t[m][k] * B_t[k][n]; which products are rounded, fused
 * or summed in which order is the backend's arithmetic, which its stated bound describes (e.g.
 * products(f32) for fl(c + a*b) chains, fused(...) for a tensor core). Contiguous only. */
typedef struct {
  size_t rows, cols, batch, steps;
  const void *a;             /* steps*rows*batch values: A_t[m][k] at a[(t*rows + m)*batch + k] */
  const void *b;             /* steps*batch*cols values: B_t[k][n] at b[(t*batch + k)*cols + n] */
  void *c;                   /* rows*cols values: the initial C on entry, the accumulated result on return */
  accucheck_format a_format; /* the storage format, or ACCUCHECK_E4M3 / ACCUCHECK_E5M2 (FP8 inputs) */
  accucheck_format b_format;
} accucheck_product_problem;

/* Bits of accucheck_backend.layouts (ABI 2). */
#define ACCUCHECK_ACCEPTS_STRIDES 1u    /* its functions honour the strides of the problem */
#define ACCUCHECK_ACCEPTS_FP8_INPUTS 2u /* ABI 3: FP8 gradients (and ABI 4's FP8 A and B) come as FP8 bytes */

typedef struct {
  const char *name; /* unique; letters, digits, '_', '-', '.' */
  accucheck_format storage;
  accucheck_format accumulation;
  const char *stated_bound; /* a bound expression, e.g. "recursive(f32)", "kahan(f32)", "correctly_rounded" */
  accucheck_determinism determinism;
  int (*accumulate_dense)(const accucheck_dense_problem *);   /* NULL if unsupported; 0 on success */
  int (*accumulate_sparse)(const accucheck_sparse_problem *); /* NULL if unsupported; 0 on success */
  /* ABI 2 (an initializer that stops before it leaves it 0: contiguous problems only). */
  unsigned layouts; /* ACCUCHECK_ACCEPTS_STRIDES | ACCUCHECK_ACCEPTS_FP8_INPUTS (ABI 3), or 0 */
  /* ABI 4: runs a product workload; NULL if unsupported (0 on success). */
  int (*accumulate_product)(const accucheck_product_problem *);
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
