// The warp-shuffle tree and the block reduction (tree_kernels.cuh), whose CPU order models
// (tree_models.h) must match bit for bit: compiled with --fmad=false (they add only, so there is
// nothing to contract, but the flag keeps it so if a multiplication is ever added).
#include "cuda/tree/kernels.h"
#include "cuda/tree/tree_kernels.cuh"

namespace accucheck::cuda {
namespace dev {
struct IeeeBuild {};  // tree_kernels.cuh's Build tag for this translation unit
}  // namespace dev

void warp_tree(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  using dev::IeeeBuild;
  switch (f) {
    case Format::f64:
      return dev::launch_warp_tree<double, IeeeBuild>(static_cast<const double*>(columns), n, elements,
                                                      static_cast<double*>(out));
    case Format::f32:
      return dev::launch_warp_tree<float, IeeeBuild>(static_cast<const float*>(columns), n, elements,
                                                     static_cast<float*>(out));
    case Format::f16:
      return dev::launch_warp_tree<__half, IeeeBuild>(static_cast<const __half*>(columns), n, elements,
                                                      static_cast<__half*>(out));
    case Format::bf16:
      return dev::launch_warp_tree<__nv_bfloat16, IeeeBuild>(static_cast<const __nv_bfloat16*>(columns), n, elements,
                                                             static_cast<__nv_bfloat16*>(out));
  }
}

void block_reduce(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  using dev::IeeeBuild;
  switch (f) {
    case Format::f64:
      return dev::launch_block_reduce<double, IeeeBuild>(static_cast<const double*>(columns), n, elements,
                                                         static_cast<double*>(out));
    case Format::f32:
      return dev::launch_block_reduce<float, IeeeBuild>(static_cast<const float*>(columns), n, elements,
                                                        static_cast<float*>(out));
    case Format::f16:
      return dev::launch_block_reduce<__half, IeeeBuild>(static_cast<const __half*>(columns), n, elements,
                                                         static_cast<__half*>(out));
    case Format::bf16:
      return dev::launch_block_reduce<__nv_bfloat16, IeeeBuild>(static_cast<const __nv_bfloat16*>(columns), n, elements,
                                                                static_cast<__nv_bfloat16*>(out));
  }
}

}  // namespace accucheck::cuda
