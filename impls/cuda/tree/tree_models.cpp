// CPU order models of the deterministic CUDA reduction kernels (tree.cu, ftz.cu), registered as CPU backends so that CI
// property-tests and fuzzes every tree shape without a GPU. Each states the tightest bound of its exact tree: core's
// tree shape cuda_block:THREADS:ITEMS:GRID, whose height is the deepest leaf of this very tree
// (impls/cuda/tests/cuda_tree_height_test.cpp checks it against an instrumented run).
#include "cuda/tree/tree_models.h"
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

using cuda_models::BlockConfig;

// Element j's terms in summation order: the buffer's value, then steps 0..T-1.
template <class T>
auto column_loader(const DenseWorkload& w, std::size_t j) {
  return
      [&w, j](std::uint64_t i) { return from_value<T>(i == 0 ? w.initial[j] : w.addends[(i - 1) * w.elements + j]); };
}

template <class T, class Add>
DenseRun tree_run(BlockConfig config, Add add) {
  return [config, add](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    const T identity = from_value<T>(-0.0);
    for (std::size_t j = 0; j < w.elements; ++j)
      result[j] = to_value(cuda_models::block_tree_sum<T>(w.steps + 1, column_loader<T>(w, j), config, identity, add));
  };
}

template <class T>
std::vector<Backend> tree_models() {
  constexpr Format f = storage_format_v<T>;
  const std::string warp = cuda_models::shape_text(cuda_tree::kWarpTree);
  const std::string block = cuda_models::shape_text(cuda_tree::kBlockReduce);
  return {dense_backend(with_format("cuda_model_warp_tree_{F}", f), f, f,
                        "tree(" + warp + "," + std::string(name(f)) + ")", Determinism::bitwise_deterministic,
                        "CPU order model of cuda_warp_tree: one warp per element, lane l sums terms l, l+32, ... in "
                        "order, then __shfl_down_sync 16..1",
                        tree_run<T>(cuda_tree::kWarpTree, cuda_models::PlainAdd{})),
          dense_backend(with_format("cuda_model_block_reduce_{F}", f), f, f,
                        "tree(" + block + "," + std::string(name(f)) + ")", Determinism::bitwise_deterministic,
                        "CPU order model of cuda_block_reduce: 256 threads x 4 items per tile, grid-stride over "
                        "min(tiles, 1024) blocks, warp and block shuffle trees, a one-block second pass",
                        tree_run<T>(cuda_tree::kBlockReduce, cuda_models::PlainAdd{}))};
}

ACCUCHECK_REGISTER_BACKEND(tree_models<double>());
ACCUCHECK_REGISTER_BACKEND(tree_models<float>());
ACCUCHECK_REGISTER_BACKEND(tree_models<Half>());
ACCUCHECK_REGISTER_BACKEND(tree_models<BFloat16>());
// The --use_fast_math build: every addition flushes subnormal inputs and results to zero.
ACCUCHECK_REGISTER_BACKEND(dense_backend(
    "cuda_model_warp_tree_ftz_f32", Format::f32, Format::f32,
    "ftz(tree(" + cuda_models::shape_text(cuda_tree::kWarpTree) + ",f32),f32)", Determinism::bitwise_deterministic,
    "CPU order model of cuda_warp_tree_ftz_f32: the warp tree with flush-to-zero additions",
    tree_run<float>(cuda_tree::kWarpTree, cuda_models::FtzAdd{})));

}  // namespace
}  // namespace accucheck::impls
