// The flush-to-zero build: this one translation unit is compiled with --use_fast_math (which
// implies --ftz=true: add.ftz.f32 flushes subnormal inputs and results to zero of the same
// sign). It holds only the warp-shuffle tree in f32, whose backend states
// ftz(tree(cuda_block:32:1:1,f32),f32). The compiler may keep a subnormal where the model
// flushes it (folding x + (-0) to x is allowed), which the ftz bound covers either way; the
// bit-for-bit GPU test therefore uses workloads on which no subnormal can arise.
#include "cuda/tree/kernels.h"
#include "cuda/tree/tree_kernels.cuh"

namespace accucheck::cuda {
namespace dev {
struct FtzBuild {};
}  // namespace dev

void warp_tree_ftz_f32(const float* columns, std::size_t n, std::size_t elements, float* out) {
  dev::launch_warp_tree<float, dev::FtzBuild>(columns, n, elements, out);
}

}  // namespace accucheck::cuda
