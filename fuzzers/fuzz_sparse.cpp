// fuzz_sparse: bytes -> sparse embedding-gradient workload (table, (row, vector) pairs) ->
// every CPU backend that runs sparse workloads -> verdict.
//
// Layout: fuzzers/common/fuzz_input.h (sparse). When no selected backend supports sparse
// workloads the target still decodes, validates and sums every table element exactly, and
// checks the per-row exact sums (exact_sums) against the Boost oracle on each element's terms,
// so it never fails for lack of backends.
#include <cstddef>
#include <cstdint>

#include "accucheck/exact.h"
#include "common/fuzz_check.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"

using namespace accucheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteChoiceStream stream(std::span<const std::uint8_t>(data, size));
  const fuzz::DecodedInput input = fuzz::decode_input(stream, WorkloadKind::sparse);
  const Workload& w = input.workload;
  const auto judged = fuzz::judge_all("fuzz_sparse", w, stream, /*every_property=*/true);
  if (judged.empty()) {
    // No sparse backend yet: the row-grouped exact sums must equal the oracle's per element.
    const std::vector<ExactSum> fast = exact_sums(w);
    std::vector<double> terms;
    for (std::size_t e = 0; e < fast.size(); ++e) {
      element_terms(w, e, terms);
      const ExactSum slow = boost_exact_sum(terms);
      if (slow.sum != fast[e].sum || slow.abs_sum != fast[e].abs_sum || slow.count != fast[e].count ||
          slow.special != fast[e].special)
        fuzz::report_and_abort("fuzz_sparse", "exact_sums disagrees with boost_exact_sum on element " + std::to_string(e) +
                                                  ": " + fixed_hex(fast[e].sum) + " vs " + fixed_hex(slow.sum),
                               w);
    }
  }
  return 0;
}

ACCUCHECK_FUZZ_WORKLOAD_MUTATOR(WorkloadKind::sparse)
