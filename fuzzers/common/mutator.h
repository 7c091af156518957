// The float-aware custom mutator of the workload fuzz targets.
//
// libFuzzer's byte mutations rarely make a meaningful float change (a flipped byte of a
// mantissa, a random exponent). This mutator decodes the input (fuzz_input.h), edits the
// workload the way floating-point bugs are provoked, and re-encodes it in raw mode:
//
//   sign        flip the sign of one value
//   ulp         step one value 1..4 ulps of its format up or down
//   exponent    give one value an extreme exponent (near emax, near the smallest normal)
//   subnormal   make one value subnormal (k * smallest subnormal, or a value scaled down)
//   special     replace one value with a special value of the format (+-0, min subnormal,
//               max subnormal, min normal, max finite, 1 +- ulp, 2^p, +-inf, NaN, ...)
//   cancel      insert a cancelling pair (x, -x) into an element (other elements get -0,
//               the identity of addition); if there is no room, overwrite two addends
//   cancel-sum  set one addend to minus the correctly rounded sum of those before it
//               (catastrophic cancellation)
//   tie         set one addend to half an ulp of the running sum in the format (an exact tie)
//   duplicate   copy a block of steps (all elements) to another position
//   permute     shuffle one element's addends, reverse a block, or swap two addends
//   copy        copy one value over another (or its power-of-two multiple)
//   scale       multiply a whole element by 2^k (into subnormals or towards overflow)
//   reshape     add or remove an element or steps; re-round into another format
//
// Sparse workloads get the same value edits on their initial table and pair vectors, plus
// pair edits (move a pair to a hot row, duplicate a pair, insert (r, v), (r, -v), remove,
// shuffle). Product workloads get the value edits on C, A and B, a cancelling pair of
// products (a, b), (a, -b) within a step, C set to minus the sum of its products, and one
// step's A or B scaled by 2^k. About one mutation in four (and any input that no longer fits) falls back to
// LLVMFuzzerMutate, libFuzzer's own byte mutator, so byte-level exploration continues.
#pragma once

#include <cstddef>
#include <cstdint>

#include "checking/workload.h"
#include "numerics/hash.h"

namespace accucheck::fuzz {

// The LLVMFuzzerCustomMutator / LLVMFuzzerCustomCrossOver bodies for inputs of `kind`.
std::size_t mutate_input(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed, WorkloadKind kind);
std::size_t cross_over_inputs(const std::uint8_t* data1, std::size_t size1, const std::uint8_t* data2,
                              std::size_t size2, std::uint8_t* out, std::size_t max_out_size, unsigned seed,
                              WorkloadKind kind);

// One workload-level mutation (exposed for the mutator's test); returns its name.
class MutationRng;
const char* mutate_workload(Workload& w, MutationRng& rng);

class MutationRng {
 public:
  explicit MutationRng(std::uint64_t seed) : generator_(seed) {}
  std::uint64_t next() { return generator_.next(); }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  bool coin() { return next() & 1; }

 private:
  SplitMix64 generator_;
};

}  // namespace accucheck::fuzz

// Defines LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver for a target whose inputs
// are workloads of KIND (fuzz_input.h layout).
#define ACCUCHECK_FUZZ_WORKLOAD_MUTATOR(KIND)                                                                       \
  extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,        \
                                                 unsigned int seed) {                                               \
    return ::accucheck::fuzz::mutate_input(data, size, max_size, seed, KIND);                                       \
  }                                                                                                                 \
  extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* data1, std::size_t size1,                    \
                                                   const std::uint8_t* data2, std::size_t size2, std::uint8_t* out, \
                                                   std::size_t max_out_size, unsigned int seed) {                   \
    return ::accucheck::fuzz::cross_over_inputs(data1, size1, data2, size2, out, max_out_size, seed, KIND);         \
  }
