// The whole of a workload fuzz target: bytes decode to a workload of KIND (fuzz_input.h), every
// selected backend of that kind is judged with every property (fuzz_check.h), and the float-aware
// mutator and cross-over are the target's (mutator.h). CROSS_CHECK_ORACLE also checks exact_sums
// against the Boost.Multiprecision reference on each element's terms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/fuzz_check.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"

#define ACCUCHECK_WORKLOAD_FUZZ_TARGET(NAME, KIND, CROSS_CHECK_ORACLE)                               \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {                \
    const ::accucheck::fuzz::DecodedInput input =                                                    \
        ::accucheck::fuzz::decode_input(std::span<const std::uint8_t>(data, size), KIND);            \
    ::accucheck::fuzz::judge_all(NAME, input.workload, /*every_property=*/true, CROSS_CHECK_ORACLE); \
    return 0;                                                                                        \
  }                                                                                                  \
  ACCUCHECK_FUZZ_WORKLOAD_MUTATOR(KIND)
