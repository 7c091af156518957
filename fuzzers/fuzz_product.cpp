// fuzz_product: bytes -> product workload (a dense layer's weight gradient accumulated as GEMM
// with beta = 1: C += A_t B_t over the steps) -> every CPU backend that runs product
// workloads -> verdict. Layout: fuzzers/common/fuzz_input.h (product). With no such backend
// the target still decodes, validates and sums every element exactly, and checks exact_sums
// against the Boost oracle on each element's terms (products formed exactly).
#include <cstddef>
#include <cstdint>

#include "accucheck/exact.h"
#include "common/fuzz_check.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"

using namespace accucheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteChoiceStream stream(std::span<const std::uint8_t>(data, size));
  const fuzz::DecodedInput input = fuzz::decode_input(stream, WorkloadKind::product);
  const Workload& w = input.workload;
  const auto judged = fuzz::judge_all("fuzz_product", w, stream, /*every_property=*/true);
  if (judged.empty()) {
    const std::vector<ExactSum> fast = exact_sums(w);
    std::vector<double> terms;
    for (std::size_t e = 0; e < fast.size(); ++e) {
      element_terms(w, e, terms);
      const ExactSum slow = boost_exact_sum(terms);
      if (slow.sum != fast[e].sum || slow.abs_sum != fast[e].abs_sum || slow.count != fast[e].count ||
          slow.special != fast[e].special)
        fuzz::report_and_abort("fuzz_product", "exact_sums disagrees with boost_exact_sum on element " + std::to_string(e) +
                                                   ": " + fixed_hex(fast[e].sum) + " vs " + fixed_hex(slow.sum),
                               w);
    }
  }
  return 0;
}

ACCUCHECK_FUZZ_WORKLOAD_MUTATOR(WorkloadKind::product)
