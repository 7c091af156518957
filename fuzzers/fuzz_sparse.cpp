// fuzz_sparse: bytes -> sparse embedding-gradient workload (table, (row, vector) pairs) ->
// every CPU backend that runs sparse workloads -> verdict.
//
// Layout: fuzzers/common/fuzz_input.h (sparse). On every input the per-row exact sums
// (exact_sums) are also checked against the Boost oracle on each element's terms, so the target
// tests the oracle's sparse path even when no selected backend runs sparse workloads.
#include <cstddef>
#include <cstdint>

#include "common/fuzz_check.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"

using namespace accucheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::DecodedInput input = fuzz::decode_input(std::span<const std::uint8_t>(data, size), WorkloadKind::sparse);
  const Workload& w = input.workload;
  // The sparse paths of exact_sums are checked against the Boost.Multiprecision reference too.
  fuzz::judge_all("fuzz_sparse", w, /*every_property=*/true, /*cross_check_oracle=*/true);
  return 0;
}

ACCUCHECK_FUZZ_WORKLOAD_MUTATOR(WorkloadKind::sparse)
