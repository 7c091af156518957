// The warp-shuffle tree and the block reduction (tree_kernels.cuh), whose CPU order models
// (tree_models.h) must match bit for bit: compiled with --fmad=false (they add only, so there is
// nothing to contract, but the flag keeps it so if a multiplication is ever added).
#include "cuda/tree/kernels.h"
#include "cuda/tree/tree_kernels.cuh"

namespace accucheck::cuda {
namespace dev {
struct IeeeBuild {};  // tree_kernels.cuh's Build tag for this translation unit
}  // namespace dev

constexpr const char* kTreeFormats = "the tree kernels run f64, f32, f16 and bf16";

void warp_tree(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  dev::in_format<double, float, __half, __nv_bfloat16>(f, "warp_tree", kTreeFormats, [&]<class T>() {
    dev::launch_warp_tree<T, dev::IeeeBuild>(static_cast<const T*>(columns), n, elements, static_cast<T*>(out));
  });
}

void block_reduce(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  dev::in_format<double, float, __half, __nv_bfloat16>(f, "block_reduce", kTreeFormats, [&]<class T>() {
    dev::launch_block_reduce<T, dev::IeeeBuild>(static_cast<const T*>(columns), n, elements, static_cast<T*>(out));
  });
}

}  // namespace accucheck::cuda
