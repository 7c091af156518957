// Summation trees: the order in which an accumulator adds the n leaves of one element (leaf 0
// the initial buffer value, then the addends in step order). `characterize` reveals them from a
// backend's results (characterize.h); the tree shapes of bound expressions build them
// (shape_tree), and the per-leaf bound kind `depths` reads their leaf depths (bound.h).
//
// A node is one rounding: a binary addition, or a fused node that adds several children and
// rounds once (a tensor core's multi-term addition). Adding an empty value (a lane's or
// thread's -0 identity) is exact and makes no node, so a tree holds only real roundings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace accucheck {

struct TreeShape;

class SummationTree {
 public:
  static constexpr std::uint32_t kNoParent = UINT32_MAX;

  SummationTree() = default;
  // Ids 0..leaves-1 are the leaves, ids from `leaves` on the internal nodes in creation order
  // (every child before its parent); parent[id] is the node it is added in, kNoParent for the
  // root. Throws std::invalid_argument when that is not a tree over all the leaves.
  SummationTree(std::size_t leaves, std::vector<std::uint32_t> parent);

  std::size_t leaves() const { return leaves_; }
  std::size_t internal_nodes() const { return parent_.size() - leaves_; }
  std::uint32_t root() const { return static_cast<std::uint32_t>(parent_.size() - 1); }
  std::uint32_t parent(std::uint32_t id) const { return parent_[id]; }
  const std::vector<std::uint32_t>& parents() const { return parent_; }

  // Roundings between each leaf and the result (the nodes on its path): the d_i of the
  // per-leaf bound. A one-leaf tree has depth 0.
  std::vector<std::uint32_t> leaf_depths() const;
  // The nodes above every id (0 for the root): leaf_depths() is its first leaves() entries.
  std::vector<std::uint32_t> node_depths() const;
  // The lowest node above both i and j, given node_depths().
  std::uint32_t lowest_common(std::uint32_t i, std::uint32_t j, const std::vector<std::uint32_t>& node_depths) const;
  // Which leaves lie below node `id`.
  std::vector<bool> leaves_below(std::uint32_t id) const;
  std::uint32_t height() const;
  // The most children of one node (2 for a binary tree, 0 for a single leaf).
  std::size_t max_arity() const;
  // Each internal node's children, sorted by their smallest leaf (index id - leaves()).
  std::vector<std::vector<std::uint32_t>> children() const;
  // The smallest leaf below each id.
  std::vector<std::uint32_t> smallest_leaves() const;
  // How many leaves lie below each id.
  std::vector<std::uint32_t> subtree_sizes() const;

  // "((0 1) 2)": every node in parentheses, its children by smallest leaf, separated by spaces.
  // Two trees are the same order exactly when their texts are equal.
  std::string text() const;
  bool operator==(const SummationTree& other) const;

 private:
  std::size_t leaves_ = 0;
  std::vector<std::uint32_t> parent_;
};

// Builds a tree bottom-up, as an accumulator adds: add(a, b) is one rounding, fused(...) one
// rounding of several children; the empty value (an identity) joins without a node.
class TreeBuilder {
 public:
  using Ref = std::int64_t;
  static constexpr Ref kEmpty = -1;

  explicit TreeBuilder(std::size_t leaves);
  Ref leaf(std::size_t i) const { return static_cast<Ref>(i); }
  Ref add(Ref a, Ref b);
  Ref fused(const std::vector<Ref>& children);
  // The tree whose root is `root` (which must cover every leaf).
  SummationTree finish(Ref root);

 private:
  std::size_t leaves_;
  std::vector<std::uint32_t> parent_;
};

// The exact tree of a shape at n leaves, for the shapes whose order is fixed: sequential,
// numpy, blocked:B, lanes:L (L a power of two), numpy_buffered:B, cuda_block:T:I:G; nullopt for
// pairwise, windows and torch_sum, whose kind states a height, not one order.
std::optional<SummationTree> shape_tree(const TreeShape& shape, std::size_t n);
bool shape_has_fixed_order(const TreeShape& shape);

// Leaf depths as compact text: runs separated by '.', each `D` (one leaf), `DxK` (K leaves of
// depth D) or `A-B` (depths A, A+-1, ..., B): sequential over 5 leaves is "4x2.3-1".
std::string depths_text(const std::vector<std::uint32_t>& depths);
// The inverse; nullopt with *error set when the text is malformed.
std::optional<std::vector<std::uint32_t>> parse_depths_text(const std::string& text, std::string* error);

}  // namespace accucheck
