// fuzz_dense_gpu: fuzz_dense for the GPU backends (impls/cuda): bytes -> dense workload -> every
// CUDA backend with that storage format -> verdict, with the same input layout, mutator and
// judging as fuzz_dense (fuzzers/common/). The CPU order models of the same kernels are fuzzed
// by fuzz_dense itself (they are CPU backends).
//
// Needs a usable CUDA device: without one it says why and exits with status 1 at the first
// input (it never hangs). ACCUCHECK_FUZZ_BACKENDS selects among the GPU backends as usual.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/fuzz_check.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"
#include "cuda/device.h"

using namespace accucheck;

namespace {

// The GPU backends join the target's list (fuzz_check.h takes only CPU backends from the
// registry), and, unless the user chose, they are the only ones selected.
void use_gpu_backends() {
  static const bool done = [] {
    const auto names = cuda::gpu_backend_names();
    if (names.empty()) {
      std::fprintf(stderr, "fuzz_dense_gpu: %s: no GPU backend to fuzz\n", cuda::device_status().description.c_str());
      std::fflush(stderr);
      std::_Exit(1);  // not exit(): libFuzzer would report an exiting target as a crash and save the input
    }
    std::string globs;
    for (const auto& n : names) {
      fuzz::add_extra_backend(*Registry::global().find(n));
      globs += (globs.empty() ? "" : ",") + n;
    }
    if (!std::getenv("ACCUCHECK_FUZZ_BACKENDS")) setenv("ACCUCHECK_FUZZ_BACKENDS", globs.c_str(), 1);
    return true;
  }();
  (void)done;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  use_gpu_backends();
  const fuzz::DecodedInput input = fuzz::decode_input(std::span<const std::uint8_t>(data, size), WorkloadKind::dense);
  fuzz::judge_all("fuzz_dense_gpu", input.workload, /*every_property=*/true);
  return 0;
}

ACCUCHECK_FUZZ_WORKLOAD_MUTATOR(WorkloadKind::dense)
