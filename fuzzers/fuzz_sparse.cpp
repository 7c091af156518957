// fuzz_sparse: bytes -> sparse embedding-gradient workload (table, (row, vector) pairs) ->
// every CPU backend that runs sparse workloads -> verdict.
//
// Layout: fuzzers/common/fuzz_input.h (sparse). On every input the per-row exact sums
// (exact_sums) are also checked against the Boost oracle on each element's terms, so the target
// tests the oracle's sparse path even when no selected backend runs sparse workloads.
#include "common/workload_target.h"

ACCUCHECK_WORKLOAD_FUZZ_TARGET("fuzz_sparse", accucheck::WorkloadKind::sparse, /*cross_check_oracle=*/true)
