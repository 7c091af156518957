// The all-reduce order models (common/allreduce_orders.h, cpu/allreduce.cpp) against what does not
// come from them: Open MPI 4.1.4's own results (mpirun -np 3, each algorithm forced with
// coll_tuned_allreduce_algorithm, run on a machine of this project's with Debian's Open MPI),
// NCCL's tree links read from trees.cc by hand, values worked out on paper, and core's
// tree height for nccl_tree:G, which is computed there from parent links alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "checking/backend.h"
#include "common/allreduce_orders.h"

namespace accucheck {
namespace {

using namespace impls::allreduce;

std::vector<double> run(const std::string& backend, const DenseWorkload& w) {
  const Backend* b = Registry::global().find(backend);
  EXPECT_NE(b, nullptr) << backend;
  std::vector<double> result(w.elements);
  if (b) b->run(w, result, RunOptions{});
  return result;
}

// P ranks, each holding `rank_value(r)` in every one of D elements.
DenseWorkload ranks(std::size_t count, std::size_t elements, double (*rank_value)(std::size_t)) {
  DenseWorkload w;
  w.format = Format::f32;
  w.elements = elements;
  w.steps = count - 1;
  w.initial.assign(elements, rank_value(0));
  for (std::size_t r = 1; r < count; ++r)
    for (std::size_t j = 0; j < elements; ++j) w.addends.push_back(rank_value(r));
  return w;
}
double one_then_halves(std::size_t r) { return r == 0 ? 1.0 : 0x1p-24; }

// mpirun -np 3 --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm N, three
// floats per rank: rank 0 holds 1, ranks 1 and 2 hold 2^-24 (Open MPI 4.1.4, Debian 12).
// basic linear: 1 + (2^-24 + 2^-24); recursive doubling: (1 + 2^-24) + 2^-24, each a tie to 1;
// ring: block 1 starts at rank 1 ((2^-24 + 2^-24) + 1), blocks 0 and 2 at ranks 0 and 2;
// Rabenseifner: three elements >= the power of two 2, the recursive doubling tree.
TEST(AllreduceModels, OpenMpiResultsForThreeRanks) {
  const DenseWorkload w = ranks(3, 3, one_then_halves);
  const double up = 0x1.000002p+0;
  EXPECT_EQ(run("allreduce_mpi_basic_linear_f32", w), (std::vector<double>{up, up, up}));
  EXPECT_EQ(run("allreduce_mpi_recursive_doubling_f32", w), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(run("allreduce_mpi_ring_f32", w), (std::vector<double>{1, up, 1}));
  EXPECT_EQ(run("allreduce_mpi_rabenseifner_f32", w), (std::vector<double>{1, 1, 1}));
}

// NCCL's ring on three ranks: chunks of alignUp(ceil(D/3), 4) floats; chunk c starts at rank c+1.
// D = 3: one chunk, (x1 + x2) + x0 = 1 + 2^-23 for every element. D = 12: chunks of 4; chunk 1
// starts at rank 2, (x2 + x0) + x1, two ties to 1; chunk 2 at rank 0, the same.
TEST(AllreduceModels, NcclRingChunksStartOneRankOn) {
  const double up = 0x1.000002p+0;
  EXPECT_EQ(run("allreduce_nccl_ring_f32", ranks(3, 3, one_then_halves)), (std::vector<double>{up, up, up}));
  std::vector<double> want(12, 1.0);
  std::fill(want.begin(), want.begin() + 4, up);
  EXPECT_EQ(run("allreduce_nccl_ring_f32", ranks(3, 12, one_then_halves)), want);
  // bf16 aligns to 8 values: D = 12 over 3 ranks is one chunk of 8 and one of 4.
  EXPECT_EQ(nccl_ring_chunk(7, 12, 3, 2), 0u);
  EXPECT_EQ(nccl_ring_chunk(8, 12, 3, 2), 1u);
}

// The 16-bit variants: in bf16 each addition rounds (1 + 2^-8 is a tie to 1 in bf16; NCCL's __hadd),
// in f32 the ranks' sum is exact and rounds once.
TEST(AllreduceModels, SixteenBitSumsRoundAtEachHopOrOnce) {
  DenseWorkload w = ranks(3, 1, [](std::size_t r) { return r == 0 ? 1.0 : 0x1p-8; });
  w.format = Format::bf16;
  // NCCL's ring from rank 1: (2^-8 + 2^-8) + 1 = 1 + 2^-7, exact in bf16.
  EXPECT_EQ(run("allreduce_nccl_ring_bf16", w), (std::vector<double>{1 + 0x1p-7}));
  // recursive doubling: (1 + 2^-8) + 2^-8, two ties to even in bf16: 1; exact in f32.
  EXPECT_EQ(run("allreduce_mpi_recursive_doubling_bf16", w), (std::vector<double>{1}));
  EXPECT_EQ(run("allreduce_nccl_tree_bf16_acc_f32", w), (std::vector<double>{1 + 0x1p-7}));
}

// ncclGetBtree / ncclGetDtree (NVIDIA/nccl v2.28.9 src/graph/trees.cc), worked by hand: (up, down0,
// down1) per node, tree 0 | tree 1.
TEST(AllreduceModels, NcclTreeLinksAsTreesCcBuildsThem) {
  auto links = [](long n, long node, int tree) {
    const TreeLinks l = nccl_dtree(n, node, tree);
    return std::vector<long>{l.up, l.down0, l.down1};
  };
  using V = std::vector<long>;
  // n = 4 (even: tree 1 mirrored)
  EXPECT_EQ(links(4, 0, 0), (V{-1, -1, 2}));
  EXPECT_EQ(links(4, 2, 0), (V{0, 1, 3}));
  EXPECT_EQ(links(4, 1, 1), (V{3, 2, 0}));
  EXPECT_EQ(links(4, 3, 1), (V{-1, -1, 1}));
  // n = 5 (odd: tree 1 shifted by one)
  EXPECT_EQ(links(5, 4, 0), (V{0, 2, -1}));
  EXPECT_EQ(links(5, 2, 0), (V{4, 1, 3}));
  EXPECT_EQ(links(5, 0, 1), (V{1, 3, -1}));
  EXPECT_EQ(links(5, 1, 1), (V{-1, -1, 0}));
  EXPECT_EQ(links(5, 3, 1), (V{0, 2, 4}));
  // n = 8, 13, 14: the second child falls back to a nearer node when node + lowbit is past the end.
  EXPECT_EQ(links(8, 6, 0), (V{4, 5, 7}));
  EXPECT_EQ(links(13, 12, 0), (V{8, 10, -1}));
  EXPECT_EQ(links(14, 12, 0), (V{8, 10, 13}));
}

// Every node's children list it as their parent, and from the root every node is reached once:
// each of the two link sets is one tree, for every n up to 600.
TEST(AllreduceModels, NcclTreesAreTrees) {
  for (long n = 1; n <= 600; ++n)
    for (int tree = 0; tree < 2; ++tree) {
      long roots = 0;
      std::multiset<long> reached;
      for (long v = 0; v < n; ++v) {
        const TreeLinks l = nccl_dtree(n, v, tree);
        if (l.up < 0) ++roots;
        for (long c : {l.down0, l.down1})
          if (c >= 0) {
            ASSERT_LT(c, n);
            EXPECT_EQ(nccl_dtree(n, c, tree).up, v) << "n " << n << " tree " << tree << " node " << v;
            reached.insert(c);
          }
      }
      EXPECT_EQ(roots, 1) << n;
      EXPECT_EQ(reached.size(), static_cast<std::size_t>(n - 1)) << n;
      EXPECT_EQ(std::set<long>(reached.begin(), reached.end()).size(), reached.size()) << n;
    }
}

// A value that counts roundings: a leaf is 0, a sum one more than its deeper operand.
struct Roundings {
  std::uint64_t depth = 0;
  Roundings operator+(const Roundings& o) const { return {std::max(depth, o.depth) + 1}; }
};

// The model's deepest leaf over both trees is the height core states for nccl_tree:G (core
// computes it from the parent links alone, core/checking/bounds/tree_shapes.cpp): the stated bound is the tree the
// model builds, neither looser nor too tight.
TEST(AllreduceModels, NcclTreeHeightIsTheModelsDeepestLeaf) {
  for (std::uint64_t gpus : {1u, 2u, 3u, 8u})
    for (std::size_t n = 1; n <= 300; ++n) {
      const std::vector<Roundings> leaves(n);
      std::uint64_t deepest = 0;
      for (int tree = 0; tree < 2; ++tree)
        deepest = std::max(deepest, nccl_tree(std::span<const Roundings>(leaves), gpus, tree).depth);
      EXPECT_EQ(tree_height({TreeShape::Kind::nccl_tree, gpus}, n), deepest) << "G " << gpus << " n " << n;
    }
  // By hand: 4 ranks, one per node: node 2 adds node 1 and node 3 to its own (x2 and x1 two
  // roundings), the root adds node 2's sum: 3. Eight per node, 9 ranks: the chain of 8 (x1..x7:
  // 6 roundings below x0's addition), + x0, + node 1: 8.
  EXPECT_EQ(tree_height({TreeShape::Kind::nccl_tree, 1}, 4), 3u);
  EXPECT_EQ(tree_height({TreeShape::Kind::nccl_tree, 8}, 9), 8u);
}

// Open MPI's trees are as high as the shapes they state: recursive doubling's ceil(log2 P) (the
// pairwise shape), and at most P - 1 for the others.
TEST(AllreduceModels, OpenMpiHeightsAreTheStatedShapes) {
  for (std::size_t n = 1; n <= 300; ++n) {
    const std::vector<Roundings> leaves(n);
    const std::span<const Roundings> x(leaves);
    EXPECT_EQ(mpi_recursive_doubling(x).depth, tree_height({TreeShape::Kind::pairwise, 0}, n)) << n;
    EXPECT_EQ(mpi_basic_linear(x).depth, n - 1) << n;
    for (std::size_t elements : {1u, 7u, 64u, 1000u}) {
      EXPECT_LE(mpi_rabenseifner(x, elements).depth, n - 1);
      for (std::size_t j = 0; j < elements; j += 3) EXPECT_LE(mpi_ring(x, j, elements).depth, n - 1);
    }
  }
}

}  // namespace
}  // namespace accucheck
