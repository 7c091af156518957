/* A plugin as it was written against ABI version 1, before strides: its backend struct is
 * version 1's (declared here from version 1's fields, accucheck/testing/plugin_sums.h: no `layouts` field), it
 * accepts only ABI 1, and it indexes its inputs contiguously. accucheck must load it with
 * version 1's struct size (three entries: a loader reading version 2's size misreads the
 * second and third) and give it contiguous memory whatever the workload's layout.
 * core/plugins/plugin_loader_test.cpp loads it. */
/* accucheck/plugin.h through it: the enums and the problems, whose version 1 fields come first */
#include "accucheck/testing/plugin_sums.h"

typedef struct {
  TEST_PLUGIN_ABI1_FIELDS
} abi1_backend;

TEST_PLUGIN_NAIVE_DENSE(naive_f32, float)
TEST_PLUGIN_NAIVE_DENSE(naive_f64, double)
TEST_PLUGIN_NAIVE_F32_SPARSE(naive_f32_sparse)

static const abi1_backend backends[] = {
    {"abi1.naive_f32", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, naive_f32,
     naive_f32_sparse},
    {"abi1.naive_f64", ACCUCHECK_F64, ACCUCHECK_F64, "recursive(f64)", ACCUCHECK_DETERMINISTIC, naive_f64, NULL},
    {"abi1.sparse_f32", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_ORDER_INDEPENDENT, NULL,
     naive_f32_sparse},
};

/* The pointer type is the header's; what it points to is version 1's array. */
const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != 1) return NULL;
  *count = sizeof backends / sizeof backends[0];
  return (const accucheck_backend *)(const void *)backends;
}
