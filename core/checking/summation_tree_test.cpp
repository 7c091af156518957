// Summation trees: the structure, its text, leaf depths, and the exact trees of the tree shapes
// against the order models of testing/order_models.h evaluated on symbolic leaves (a separate
// restatement of each backend's loop, printed by separate code), and against tree_height.
#include "checking/summation_tree.h"

#include <gtest/gtest.h>

#include <random>

#include "accucheck/testing/order_models.h"
#include "accucheck/testing/seed.h"
#include "accucheck/testing/symbolic_tree.h"
#include "checking/bound.h"

namespace accucheck {
namespace {

using test::symbolic_leaves;
using test::SymbolicSum;

std::string shape_text_at(TreeShape shape, std::size_t n) {
  const auto tree = shape_tree(shape, n);
  return tree ? tree->text() : "(none)";
}

TEST(SummationTree, BuilderTextJsonAndDepths) {
  TreeBuilder b(4);
  const auto left = b.add(b.leaf(0), b.leaf(1));
  const auto right = b.add(b.leaf(3), b.leaf(2));
  const auto root = b.add(right, left);
  const SummationTree t = b.finish(root);
  EXPECT_EQ(t.text(), "((0 1) (2 3))");
  EXPECT_EQ(t.leaf_depths(), (std::vector<std::uint32_t>{2, 2, 2, 2}));
  EXPECT_EQ(t.height(), 2u);
  EXPECT_EQ(t.max_arity(), 2u);

  TreeBuilder chain(4);
  auto acc = chain.leaf(0);
  for (std::size_t i = 1; i < 4; ++i) acc = chain.add(acc, chain.leaf(i));
  const SummationTree c = chain.finish(acc);
  EXPECT_EQ(c.text(), "(((0 1) 2) 3)");
  EXPECT_EQ(c.leaf_depths(), (std::vector<std::uint32_t>{3, 3, 2, 1}));
  EXPECT_FALSE(c == t);
}

TEST(SummationTree, LowestCommonNodesAndTheLeavesBelowThem) {
  TreeBuilder b(5);
  const auto left = b.add(b.leaf(0), b.leaf(1));                     // node 5
  const auto right = b.add(b.add(b.leaf(2), b.leaf(3)), b.leaf(4));  // nodes 6, 7
  const SummationTree t = b.finish(b.add(left, right));              // node 8
  const auto depth = t.node_depths();
  EXPECT_EQ(depth, (std::vector<std::uint32_t>{2, 2, 3, 3, 2, 1, 2, 1, 0}));
  EXPECT_EQ(t.lowest_common(0, 1, depth), 5u);
  EXPECT_EQ(t.lowest_common(2, 4, depth), 7u);
  EXPECT_EQ(t.lowest_common(3, 2, depth), 6u);
  EXPECT_EQ(t.lowest_common(1, 3, depth), 8u);
  EXPECT_EQ(t.leaves_below(7), (std::vector<bool>{false, false, true, true, true}));
  EXPECT_EQ(t.leaves_below(5), (std::vector<bool>{true, true, false, false, false}));
  EXPECT_EQ(t.leaves_below(3), (std::vector<bool>{false, false, false, true, false}));
  EXPECT_EQ(t.subtree_sizes()[7], 3u);
  EXPECT_EQ(t.smallest_leaves()[6], 2u);
}

TEST(SummationTree, EmptyValuesJoinWithoutANodeAndFusedNodesHaveManyChildren) {
  TreeBuilder b(5);
  const auto lane = b.add(TreeBuilder::kEmpty, b.leaf(4));  // an identity: no node
  const auto fused = b.fused({b.leaf(0), b.leaf(2), TreeBuilder::kEmpty, b.leaf(1)});
  const SummationTree t = b.finish(b.add(fused, b.add(b.leaf(3), lane)));
  EXPECT_EQ(t.text(), "((0 1 2) (3 4))");
  EXPECT_EQ(t.max_arity(), 3u);
  EXPECT_EQ(t.leaf_depths(), (std::vector<std::uint32_t>{2, 2, 2, 2, 2}));
  EXPECT_EQ(t.internal_nodes(), 3u);
}

TEST(SummationTree, RefusesWhatIsNoTree) {
  const auto none = SummationTree::kNoParent;
  EXPECT_NO_THROW(SummationTree(2, {2, 2, none}));
  EXPECT_THROW(SummationTree(2, {2, none, none}), std::invalid_argument);        // two roots
  EXPECT_THROW(SummationTree(3, {3, 3, 4, none, none}), std::invalid_argument);  // node 3 is a second root
  EXPECT_THROW(SummationTree(2, {1, 2, none}), std::invalid_argument);           // a leaf as a parent
  EXPECT_THROW(SummationTree(0, {}), std::invalid_argument);
  TreeBuilder b(2);
  b.add(b.leaf(0), b.leaf(1));
  EXPECT_THROW(b.add(b.leaf(0), b.leaf(1)), std::logic_error);  // a value added twice
}

TEST(SummationTree, DepthsTextRoundTripsAndCompresses) {
  EXPECT_EQ(depths_text({4, 4, 3, 2, 1}), "4x2.3-1");
  EXPECT_EQ(depths_text({1, 2, 3, 4}), "1-4");
  EXPECT_EQ(depths_text({3, 3, 3, 3}), "3x4");
  EXPECT_EQ(depths_text({2, 5, 2}), "2.5.2");
  std::mt19937_64 rng(test::test_seed(17));
  for (int k = 0; k < 300; ++k) {
    // A random walk of depths: runs, steps of +-1 and jumps.
    std::vector<std::uint32_t> d(1 + rng() % 60);
    std::uint32_t depth = 7;
    for (auto& x : d) {
      const auto move = rng() % 5;
      depth = move == 0                ? static_cast<std::uint32_t>(rng() % 12)
              : move == 1              ? depth + 1
              : move == 2 && depth > 0 ? depth - 1
                                       : depth;
      x = depth;
    }
    std::string error;
    const auto back = parse_depths_text(depths_text(d), &error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(*back, d) << depths_text(d);
  }
  std::string error;
  EXPECT_FALSE(parse_depths_text("3x0", &error));
  EXPECT_FALSE(parse_depths_text("", &error));
  EXPECT_FALSE(parse_depths_text("1..2", &error));
  EXPECT_FALSE(parse_depths_text("a", &error));
  EXPECT_FALSE(parse_depths_text("0x99999999", &error));
}

// The exact trees of the shapes against the testing library's order models on symbolic leaves.
TEST(SummationTree, ShapeTreesAreTheOrderModelsTrees) {
  for (std::size_t n = 1; n <= 600; n += (n < 140 ? 1 : 37)) {
    const auto x = symbolic_leaves(n);
    SymbolicSum chain = x[0];
    for (std::size_t i = 1; i < n; ++i) chain = chain + x[i];
    EXPECT_EQ(shape_text_at({TreeShape::Kind::sequential, 0}, n), chain.text()) << n;
    EXPECT_EQ(shape_text_at({TreeShape::Kind::numpy, 0}, n), test::model_numpy(x.data(), n).text()) << n;
    EXPECT_EQ(shape_text_at({TreeShape::Kind::blocked, 64}, n), test::model_blocked(x.data(), n, 64).text()) << n;
    EXPECT_EQ(shape_text_at({TreeShape::Kind::blocked, 5}, n), test::model_blocked(x.data(), n, 5).text()) << n;
    EXPECT_EQ(shape_text_at({TreeShape::Kind::lanes, 8}, n), test::model_lanes8(x.data(), n).text()) << n;
    EXPECT_EQ(shape_text_at({TreeShape::Kind::numpy_buffered, 64}, n),
              test::model_numpy_buffered(x.data(), n, 64).text())
        << n;
  }
}

// Two independent statements of a shape's height: its tree's deepest leaf and tree_height.
TEST(SummationTree, DeepestLeafIsTheShapesHeight) {
  const std::vector<TreeShape> shapes{{TreeShape::Kind::sequential, 0},
                                      {TreeShape::Kind::numpy, 0},
                                      {TreeShape::Kind::blocked, 64},
                                      {TreeShape::Kind::blocked, 3},
                                      {TreeShape::Kind::lanes, 8},
                                      {TreeShape::Kind::lanes, 2},
                                      {TreeShape::Kind::lanes, 64},
                                      {TreeShape::Kind::numpy_buffered, 8192},
                                      {TreeShape::Kind::numpy_buffered, 100},
                                      {TreeShape::Kind::cuda_block, 32, 1, 1},
                                      {TreeShape::Kind::cuda_block, 64, 3, 2},
                                      {TreeShape::Kind::cuda_block, 256, 4, 1024}};
  for (const auto& shape : shapes)
    for (std::size_t n = 1; n <= 3000; n += (n < 300 ? 1 : 97)) {
      const auto tree = shape_tree(shape, n);
      ASSERT_TRUE(tree) << shape_text(shape);
      // tree_height(lanes:L) counts log2 L levels over the lanes even when fewer hold a term.
      if (shape.kind == TreeShape::Kind::lanes && n < shape.parameter)
        EXPECT_LE(tree->height(), tree_height(shape, n)) << shape_text(shape) << " n=" << n;
      else
        EXPECT_EQ(tree->height(), tree_height(shape, n)) << shape_text(shape) << " n=" << n;
    }
  EXPECT_FALSE(shape_tree({TreeShape::Kind::pairwise, 0}, 8));
  EXPECT_FALSE(shape_tree({TreeShape::Kind::windows, 4}, 8));
  EXPECT_FALSE(shape_tree({TreeShape::Kind::torch_sum, 0}, 8));
  EXPECT_FALSE(shape_tree({TreeShape::Kind::lanes, 6}, 8));  // halving over 6 lanes is not one order
}

}  // namespace
}  // namespace accucheck
