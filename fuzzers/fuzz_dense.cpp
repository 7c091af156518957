// fuzz_dense: bytes -> (format, shape, family, addends) -> every CPU backend -> verdict.
//
// The input layout is fuzzers/common/fuzz_input.h (a choice stream: header, then a generator
// family or raw float slots). Every selected backend with that storage format runs the dense
// workload; every element is judged by the one verdict function against the backend's stated
// bound, and determinism promises are re-checked (permutations drawn from the rest of the
// input). Any violation aborts with describe_violation's report and the case file.
#include <cstddef>
#include <cstdint>

#include "common/fuzz_check.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"

using namespace accucheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::DecodedInput input = fuzz::decode_input(std::span<const std::uint8_t>(data, size), WorkloadKind::dense);
  fuzz::judge_all("fuzz_dense", input.workload, /*every_property=*/true);
  return 0;
}

ACCUCHECK_FUZZ_WORKLOAD_MUTATOR(WorkloadKind::dense)
