// The GPU tree backends: the warp-shuffle tree and the block reduction in every format, and the
// warp tree's flush-to-zero build (tree.cu, ftz.cu). Their CPU order models (tree_models.cpp)
// are registered in every build; cuda_backends_test checks on a GPU that kernel and model agree
// bit for bit. Bounds: docs/bounds.md "CUDA reduction trees".
#include "cuda/common/raw_values.h"
#include "cuda/device.h"
#include "cuda/tree/kernels.h"
#include "cuda/tree/tree_models.h"

namespace accucheck::cuda {
namespace {

DenseRun ftz_run() {
  return [](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    const auto in = columns(w, Format::f32);
    std::vector<float> out(w.elements);
    warp_tree_ftz_f32(reinterpret_cast<const float*>(in.data()), w.steps + 1, w.elements, out.data());
    for (std::size_t j = 0; j < w.elements; ++j) result[j] = out[j];
  };
}

std::vector<Backend> tree_backends() {
  const std::string warp = cuda_models::shape_text(cuda_tree::kWarpTree);
  const std::string block = cuda_models::shape_text(cuda_tree::kBlockReduce);
  std::vector<Backend> backends;
  for (Format f : all_formats) {
    const std::string F(name(f));
    backends.push_back(dense_backend("cuda_warp_tree_" + F, f, f, "tree(" + warp + "," + F + ")",
                                     Determinism::bitwise_deterministic,
                                     "one warp per element: lane l sums terms l, l+32, ... in order, then "
                                     "__shfl_down_sync 16..1 (model: cuda_model_warp_tree_" +
                                         F + ")",
                                     column_run(&warp_tree, f)));
    backends.push_back(dense_backend("cuda_block_reduce_" + F, f, f, "tree(" + block + "," + F + ")",
                                     Determinism::bitwise_deterministic,
                                     "256 threads x 4 items per tile over min(tiles, 1024) blocks, warp and block "
                                     "shuffle trees, a deterministic one-block second pass (model: "
                                     "cuda_model_block_reduce_" +
                                         F + ")",
                                     column_run(&block_reduce, f)));
  }
  backends.push_back(dense_backend(
      "cuda_warp_tree_ftz_f32", Format::f32, Format::f32, "ftz(tree(" + warp + ",f32),f32)",
      Determinism::bitwise_deterministic,
      "the warp tree compiled with --use_fast_math (flush-to-zero) (model: cuda_model_warp_tree_ftz_f32)", ftz_run()));
  return backends;
}

ACCUCHECK_REGISTER_BACKEND(on_gpu(&tree_backends));

}  // namespace
}  // namespace accucheck::cuda
