// fuzz_product: bytes -> product workload (a dense layer's weight gradient accumulated as GEMM
// with beta = 1: C += A_t B_t over the steps) -> every CPU backend that runs product
// workloads -> verdict. Layout: fuzzers/common/fuzz_input.h (product). On every input
// exact_sums is also checked against the Boost oracle on each element's terms (products formed
// exactly), with or without product backends.
#include <cstddef>
#include <cstdint>

#include "common/fuzz_check.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"

using namespace accucheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::DecodedInput input = fuzz::decode_input(std::span<const std::uint8_t>(data, size), WorkloadKind::product);
  const Workload& w = input.workload;
  // The product paths of exact_sums are checked against the Boost.Multiprecision reference too.
  fuzz::judge_all("fuzz_product", w, /*every_property=*/true, /*cross_check_oracle=*/true);
  return 0;
}

ACCUCHECK_FUZZ_WORKLOAD_MUTATOR(WorkloadKind::product)
