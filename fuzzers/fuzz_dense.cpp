// fuzz_dense: bytes -> (format, shape, family, addends) -> every CPU backend -> verdict.
//
// The input layout is fuzzers/common/fuzz_input.h (a choice stream: header, then a generator
// family or raw float slots). Every selected backend with that storage format runs the dense
// workload; every element is judged by the one verdict function against the backend's stated
// bound, and determinism promises are re-checked (permutations drawn from the rest of the
// input). Any violation aborts with describe_violation's report and the case file.
#include "common/workload_target.h"

ACCUCHECK_WORKLOAD_FUZZ_TARGET("fuzz_dense", accucheck::WorkloadKind::dense, /*cross_check_oracle=*/false)
