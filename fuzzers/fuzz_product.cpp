// fuzz_product: bytes -> product workload (a dense layer's weight gradient accumulated as GEMM
// with beta = 1: C += A_t B_t over the steps) -> every CPU backend that runs product
// workloads -> verdict. Layout: fuzzers/common/fuzz_input.h (product). On every input
// exact_sums is also checked against the Boost oracle on each element's terms (products formed
// exactly), with or without product backends.
#include "common/workload_target.h"

ACCUCHECK_WORKLOAD_FUZZ_TARGET("fuzz_product", accucheck::WorkloadKind::product, /*cross_check_oracle=*/true)
