// core's tree shape cuda_block:THREADS:ITEMS:GRID against the CUDA kernels' own tree, run by the
// CPU order model (tree/tree_models.h) on a depth-counting type: tree_height(n) must be at
// least the deepest leaf of the instrumented tree (the bound must hold), and it is exactly that
// depth (the bound is the tightest for the tree).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "accucheck/testing/symbolic_tree.h"
#include "checking/bound.h"
#include "checking/summation_tree.h"
#include "cuda/tree/tree_models.h"

namespace accucheck {
namespace {

using cuda_tree::BlockConfig;

// The number of roundings on the longest leaf-to-root path. Adding the empty value (the -0
// identity of an idle thread, lane or warp) is exact, so it does not count.
struct Depth {
  std::uint64_t depth = 0;
  bool empty = false;
  friend Depth operator+(Depth a, Depth b) {
    if (a.empty) return b;
    if (b.empty) return a;
    return {std::max(a.depth, b.depth) + 1, false};
  }
};

std::uint64_t instrumented(std::uint64_t n, const BlockConfig& c) {
  const Depth leaf{0, false};
  return cuda_models::block_tree_sum<Depth>(
             n, [&](std::uint64_t) { return leaf; }, c, Depth{0, true}, cuda_models::PlainAdd{})
      .depth;
}

std::uint64_t height(std::uint64_t n, const BlockConfig& c) {
  return tree_height(TreeShape{TreeShape::Kind::cuda_block, c.threads, c.items, c.grid}, n);
}

TEST(CudaTreeHeight, EqualsTheDeepestLeafOfSmallConfigurations) {
  // Small trees reach every case of the formula quickly: several tiles per block, partial last
  // tiles, partly idle blocks and warps, and a second pass over more sums than threads.
  for (const BlockConfig c :
       {BlockConfig{32, 1, 1}, BlockConfig{32, 2, 3}, BlockConfig{64, 1, 5}, BlockConfig{64, 3, 2},
        BlockConfig{128, 2, 7}, BlockConfig{32, 1, 70}, BlockConfig{64, 2, 200}}) {
    for (std::uint64_t n = 1; n <= 3000; ++n) {
      const std::uint64_t depth = instrumented(n, c);
      ASSERT_GE(height(n, c), depth) << cuda_models::shape_text(c) << " n=" << n << ": the bound would not hold";
      ASSERT_EQ(height(n, c), depth) << cuda_models::shape_text(c) << " n=" << n;
    }
  }
}

TEST(CudaTreeHeight, EqualsTheDeepestLeafOfTheKernelsTrees) {
  for (std::uint64_t n = 1; n <= 2100; ++n) {
    ASSERT_EQ(height(n, cuda_tree::kWarpTree), instrumented(n, cuda_tree::kWarpTree)) << "warp tree n=" << n;
    if (n % 7 == 0 || n < 300) {
      ASSERT_EQ(height(n, cuda_tree::kBlockReduce), instrumented(n, cuda_tree::kBlockReduce)) << "n=" << n;
    }
  }
  // Many tiles: several per block, a second pass over 1024 block sums (4 per thread), a partial
  // last tile that block 0 does or does not own.
  const std::uint64_t tile = cuda_tree::tile_size(cuda_tree::kBlockReduce);
  for (const std::uint64_t n :
       {tile * 1024, tile * 1024 + 1, tile * 1025 - 5, tile * 2048 + 17, tile * 3073 + 300, std::uint64_t{5000000}}) {
    EXPECT_EQ(height(n, cuda_tree::kBlockReduce), instrumented(n, cuda_tree::kBlockReduce)) << "n=" << n;
  }
}

TEST(CudaTreeHeight, HandValues) {
  // One warp: ceil(n/32) - 1 sequential roundings, then ceil(log2 min(32, n)) shuffle levels.
  EXPECT_EQ(height(1, cuda_tree::kWarpTree), 0u);
  EXPECT_EQ(height(2, cuda_tree::kWarpTree), 1u);
  EXPECT_EQ(height(32, cuda_tree::kWarpTree), 5u);
  EXPECT_EQ(height(33, cuda_tree::kWarpTree), 1u + 5u);
  EXPECT_EQ(height(1024, cuda_tree::kWarpTree), 31u + 5u);
  // Block reduce, one tile of 1024: 4 items per thread, log2 256 = 8 levels; no second pass.
  EXPECT_EQ(height(1024, cuda_tree::kBlockReduce), 3u + 8u);
  // 2^30 addends: 1024 blocks of 1024 tiles each, 4096 items per thread, then 4 sums per thread
  // of the second pass: 4095 + 8 + 3 + 8.
  EXPECT_EQ(height(std::uint64_t{1} << 30, cuda_tree::kBlockReduce), 4095u + 8u + 3u + 8u);
}

// core's exact tree of cuda_block:T:I:G (summation_tree.h, written from the documented tree) is
// the tree the kernels' own order model builds, run on symbolic leaves: what characterize
// recognises and the depths bound uses.
TEST(CudaTreeHeight, ShapeTreeIsTheOrderModelsTree) {
  for (const BlockConfig c : {cuda_tree::kWarpTree, cuda_tree::kBlockReduce, BlockConfig{32, 2, 3},
                              BlockConfig{64, 3, 2}, BlockConfig{32, 1, 70}}) {
    for (std::uint64_t n = 1; n <= 2200; n += (n < 300 ? 1 : 53)) {
      const auto leaves = test::symbolic_leaves(n);
      const test::SymbolicSum model = cuda_models::block_tree_sum<test::SymbolicSum>(
          n, [&](std::uint64_t p) { return leaves[p]; }, c, test::SymbolicSum{}, cuda_models::PlainAdd{});
      const auto tree = shape_tree(TreeShape{TreeShape::Kind::cuda_block, c.threads, c.items, c.grid}, n);
      ASSERT_TRUE(tree);
      ASSERT_EQ(tree->text(), model.text()) << cuda_models::shape_text(c) << " n=" << n;
    }
  }
}

TEST(CudaTreeHeight, ShapeText) {
  std::string error;
  const auto b = parse_bound("tree(cuda_block:256:4:1024,f32)", &error);
  ASSERT_TRUE(b.has_value()) << error;
  EXPECT_EQ(b->shape.kind, TreeShape::Kind::cuda_block);
  EXPECT_EQ(b->shape.parameter, 256u);
  EXPECT_EQ(b->shape.items, 4u);
  EXPECT_EQ(b->shape.grid, 1024u);
  EXPECT_EQ(to_string(*b), "tree(cuda_block:256:4:1024,f32)");
  for (const char* bad : {"tree(cuda_block:48:1:1,f32)", "tree(cuda_block:32:1,f32)", "tree(cuda_block:32:0:1,f32)",
                          "tree(cuda_block:2048:1:1,f32)", "tree(cuda_block:32:1:1:1,f32)",
                          "tree(cuda_block:16:1:1,f32)", "tree(cuda_block:32:1:x,f32)"}) {
    EXPECT_FALSE(parse_bound(bad, &error).has_value()) << bad;
    EXPECT_NE(error.find("cuda_block"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace accucheck
