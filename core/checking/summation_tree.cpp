// Summation trees and the exact trees of the tree shapes (summation_tree.h).
#include "checking/summation_tree.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "checking/bound.h"

namespace accucheck {

SummationTree::SummationTree(std::size_t leaves, std::vector<std::uint32_t> parent)
    : leaves_(leaves), parent_(std::move(parent)) {
  if (leaves_ == 0 || parent_.size() < leaves_ || parent_.size() >= kNoParent)
    throw std::invalid_argument("a summation tree needs at least one leaf");
  // Children come before their parents, so a node's parent has a larger id; exactly the last
  // id is the root; every internal node has at least two children (a node of one child is no
  // rounding of anything).
  std::vector<std::uint32_t> child_count(parent_.size(), 0);
  for (std::size_t id = 0; id < parent_.size(); ++id) {
    const std::uint32_t p = parent_[id];
    const bool is_root = id + 1 == parent_.size();
    if (is_root != (p == kNoParent) || (!is_root && (p <= id || p < leaves_ || p >= parent_.size())))
      throw std::invalid_argument("not a summation tree: node " + std::to_string(id) + " has parent " +
                                  std::to_string(p));
    if (!is_root) ++child_count[p];
  }
  for (std::size_t id = leaves_; id < parent_.size(); ++id)
    if (child_count[id] < 2)
      throw std::invalid_argument("not a summation tree: node " + std::to_string(id) + " has one child");
}

std::vector<std::uint32_t> SummationTree::node_depths() const {
  // From the root down (ids descending, parents after their children): a node's depth is its
  // parent's + 1.
  std::vector<std::uint32_t> depth(parent_.size(), 0);
  for (std::size_t id = parent_.size(); id-- > 0;) {
    const std::uint32_t p = parent_[id];
    if (p == kNoParent) continue;
    depth[id] = depth[p] + 1;
  }
  return depth;
}

std::vector<std::uint32_t> SummationTree::leaf_depths() const {
  auto depth = node_depths();
  depth.resize(leaves_);
  return depth;
}

std::uint32_t SummationTree::lowest_common(std::uint32_t i, std::uint32_t j,
                                           const std::vector<std::uint32_t>& depth) const {
  while (depth[i] > depth[j]) i = parent_[i];
  while (depth[j] > depth[i]) j = parent_[j];
  while (i != j) {
    i = parent_[i];
    j = parent_[j];
  }
  return i;
}

std::vector<bool> SummationTree::leaves_below(std::uint32_t id) const {
  std::vector<bool> below(parent_.size(), false);
  below[id] = true;
  // Children have smaller ids than their parents: one pass downward from id.
  for (std::size_t v = id; v-- > 0;)
    if (parent_[v] != kNoParent && below[parent_[v]]) below[v] = true;
  below.resize(leaves_);
  return below;
}

std::uint32_t SummationTree::height() const {
  const auto depths = leaf_depths();
  return *std::max_element(depths.begin(), depths.end());
}

std::size_t SummationTree::max_arity() const {
  std::vector<std::size_t> count(parent_.size(), 0);
  for (std::uint32_t p : parent_)
    if (p != kNoParent) ++count[p];
  return *std::max_element(count.begin(), count.end());
}

std::vector<std::uint32_t> SummationTree::smallest_leaves() const {
  std::vector<std::uint32_t> smallest(parent_.size(), kNoParent);
  for (std::uint32_t id = 0; id < parent_.size(); ++id) {
    if (id < leaves_) smallest[id] = id;
    if (parent_[id] != kNoParent) smallest[parent_[id]] = std::min(smallest[parent_[id]], smallest[id]);
  }
  return smallest;
}

std::vector<std::uint32_t> SummationTree::subtree_sizes() const {
  std::vector<std::uint32_t> size(parent_.size(), 0);
  for (std::uint32_t id = 0; id < parent_.size(); ++id) {
    if (id < leaves_) size[id] = 1;
    if (parent_[id] != kNoParent) size[parent_[id]] += size[id];
  }
  return size;
}

std::vector<std::vector<std::uint32_t>> SummationTree::children() const {
  std::vector<std::vector<std::uint32_t>> kids(internal_nodes());
  for (std::uint32_t id = 0; id < parent_.size(); ++id)
    if (parent_[id] != kNoParent) kids[parent_[id] - leaves_].push_back(id);
  const auto smallest = smallest_leaves();
  for (auto& k : kids)
    std::sort(k.begin(), k.end(), [&](std::uint32_t a, std::uint32_t b) { return smallest[a] < smallest[b]; });
  return kids;
}

namespace {

// Writes the tree below `root` with the given delimiters, without recursion (trees of 10^6
// leaves in a chain are 10^6 deep).
std::string nested(const SummationTree& tree, char open, char close, char separator) {
  const auto kids = tree.children();
  std::string out;
  struct Frame {
    std::uint32_t id;
    std::size_t next_child;
  };
  std::vector<Frame> stack{{tree.root(), 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.id < tree.leaves()) {
      out += std::to_string(f.id);
      stack.pop_back();
      continue;
    }
    const auto& k = kids[f.id - tree.leaves()];
    if (f.next_child == 0)
      out += open;
    else if (f.next_child < k.size())
      out += separator;
    if (f.next_child == k.size()) {
      out += close;
      stack.pop_back();
      continue;
    }
    stack.push_back({k[f.next_child++], 0});
  }
  return out;
}

}  // namespace

std::string SummationTree::text() const { return nested(*this, '(', ')', ' '); }

bool SummationTree::operator==(const SummationTree& other) const {
  return leaves_ == other.leaves_ && internal_nodes() == other.internal_nodes() && text() == other.text();
}

TreeBuilder::TreeBuilder(std::size_t leaves) : leaves_(leaves), parent_(leaves, SummationTree::kNoParent) {}

TreeBuilder::Ref TreeBuilder::add(Ref a, Ref b) {
  if (a == kEmpty) return b;
  if (b == kEmpty) return a;
  return fused({a, b});
}

TreeBuilder::Ref TreeBuilder::fused(const std::vector<Ref>& children) {
  std::vector<Ref> real;
  for (Ref c : children)
    if (c != kEmpty) real.push_back(c);
  if (real.empty()) return kEmpty;
  if (real.size() == 1) return real[0];
  const auto id = static_cast<std::uint32_t>(parent_.size());
  parent_.push_back(SummationTree::kNoParent);
  for (Ref c : real) {
    if (parent_[static_cast<std::size_t>(c)] != SummationTree::kNoParent)
      throw std::logic_error("TreeBuilder: a value was added twice");
    parent_[static_cast<std::size_t>(c)] = id;
  }
  return id;
}

SummationTree TreeBuilder::finish(Ref root) {
  if (root == kEmpty || static_cast<std::size_t>(root) + 1 != parent_.size())
    throw std::logic_error("TreeBuilder: the root must be the last node made");
  return SummationTree(leaves_, std::move(parent_));
}

namespace {

using Ref = TreeBuilder::Ref;

Ref sequential(TreeBuilder& b, std::size_t first, std::size_t count) {
  Ref total = b.leaf(first);
  for (std::size_t i = 1; i < count; ++i) total = b.add(total, b.leaf(first + i));
  return total;
}

// NumPy's pairwise_sum (impls/cpu/pairwise.cpp): a loop below 8, eight strided accumulators and a
// 3-level tree up to 128, halving at a multiple of 8 above.
Ref numpy_pairwise(TreeBuilder& b, std::size_t first, std::size_t n) {
  if (n < 8) return sequential(b, first, n);
  if (n <= 128) {
    Ref r[8];
    for (std::size_t k = 0; k < 8; ++k) r[k] = b.leaf(first + k);
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (std::size_t k = 0; k < 8; ++k) r[k] = b.add(r[k], b.leaf(first + i + k));
    Ref res = b.add(b.add(b.add(r[0], r[1]), b.add(r[2], r[3])), b.add(b.add(r[4], r[5]), b.add(r[6], r[7])));
    for (; i < n; ++i) res = b.add(res, b.leaf(first + i));
    return res;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  const Ref left = numpy_pairwise(b, first, half);
  return b.add(left, numpy_pairwise(b, first + half, n - half));
}

// Lanes combined by recursive halving: ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)) for 8.
Ref halving(TreeBuilder& b, const std::vector<Ref>& lane, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1) return lane[lo];
  const std::size_t mid = lo + (hi - lo) / 2;
  const Ref left = halving(b, lane, lo, mid);
  return b.add(left, halving(b, lane, mid, hi));
}

// __shfl_down_sync over one warp of 32 lanes: lane l += lane l+offset for offsets 16..1.
Ref warp_reduce(TreeBuilder& b, std::vector<Ref> lane) {
  for (std::size_t offset = 16; offset > 0; offset /= 2)
    for (std::size_t l = 0; l < offset; ++l) lane[l] = b.add(lane[l], lane[l + offset]);
  return lane[0];
}

Ref block_reduce(TreeBuilder& b, const std::vector<Ref>& thread_sum) {
  const std::size_t warps = thread_sum.size() / 32;
  std::vector<Ref> warp_sum(warps);
  for (std::size_t w = 0; w < warps; ++w)
    warp_sum[w] = warp_reduce(b, std::vector<Ref>(thread_sum.begin() + static_cast<std::ptrdiff_t>(32 * w),
                                                  thread_sum.begin() + static_cast<std::ptrdiff_t>(32 * (w + 1))));
  if (warps == 1) return warp_sum[0];
  std::vector<Ref> lane(32, TreeBuilder::kEmpty);
  std::copy(warp_sum.begin(), warp_sum.end(), lane.begin());
  return warp_reduce(b, lane);
}

// impls/cuda's block reduction (docs/bounds.md, "CUDA reduction trees"), restated from its
// description: tiles of T*I, grid-stride blocks, per-thread sums in order, warp-shuffle trees,
// a second pass over the block sums.
Ref cuda_block(TreeBuilder& b, std::size_t n, std::size_t threads, std::size_t items, std::size_t grid) {
  const std::size_t tile = threads * items;
  const std::size_t tiles = (n + tile - 1) / tile;
  const std::size_t blocks = std::min(tiles, grid);
  std::vector<Ref> partial(blocks);
  for (std::size_t blk = 0; blk < blocks; ++blk) {
    std::vector<Ref> thread_sum(threads, TreeBuilder::kEmpty);
    for (std::size_t k = blk; k < tiles; k += blocks)
      for (std::size_t i = 0; i < items; ++i)
        for (std::size_t t = 0; t < threads; ++t) {
          const std::size_t p = k * tile + i * threads + t;
          if (p < n) thread_sum[t] = b.add(thread_sum[t], b.leaf(p));
        }
    partial[blk] = block_reduce(b, thread_sum);
  }
  if (blocks == 1) return partial[0];
  std::vector<Ref> thread_sum(threads, TreeBuilder::kEmpty);
  for (std::size_t t = 0; t < threads; ++t)
    for (std::size_t k = t; k < blocks; k += threads) thread_sum[t] = b.add(thread_sum[t], partial[k]);
  return block_reduce(b, thread_sum);
}

}  // namespace

bool shape_has_fixed_order(const TreeShape& shape) {
  switch (shape.kind) {
    case TreeShape::Kind::sequential:
    case TreeShape::Kind::numpy:
    case TreeShape::Kind::blocked:
    case TreeShape::Kind::numpy_buffered:
    case TreeShape::Kind::cuda_block: return true;
    case TreeShape::Kind::lanes: return shape.parameter > 0 && (shape.parameter & (shape.parameter - 1)) == 0;
    case TreeShape::Kind::pairwise:
    case TreeShape::Kind::windows:
    case TreeShape::Kind::torch_sum:
    case TreeShape::Kind::nccl_tree:            // two trees, by the element's place in the buffer
    case TreeShape::Kind::ranks: return false;  // any tree over the shares
  }
  return false;
}

std::optional<SummationTree> shape_tree(const TreeShape& shape, std::size_t n) {
  if (n == 0 || !shape_has_fixed_order(shape)) return std::nullopt;
  TreeBuilder b(n);
  Ref root = TreeBuilder::kEmpty;
  switch (shape.kind) {
    case TreeShape::Kind::sequential: root = sequential(b, 0, n); break;
    case TreeShape::Kind::numpy: root = numpy_pairwise(b, 0, n); break;
    case TreeShape::Kind::blocked:
      for (std::size_t start = 0; start < n; start += shape.parameter)
        root = b.add(root, sequential(b, start, std::min<std::size_t>(shape.parameter, n - start)));
      break;
    case TreeShape::Kind::lanes: {
      std::vector<Ref> lane(shape.parameter, TreeBuilder::kEmpty);
      for (std::size_t i = 0; i < n; ++i) lane[i % shape.parameter] = b.add(lane[i % shape.parameter], b.leaf(i));
      root = halving(b, lane, 0, lane.size());
      break;
    }
    case TreeShape::Kind::numpy_buffered:
      // The output starts at the identity; each block of B is pairwise_sum'd and added to it.
      for (std::size_t start = 0; start < n; start += shape.parameter)
        root = b.add(root, numpy_pairwise(b, start, std::min<std::size_t>(shape.parameter, n - start)));
      break;
    case TreeShape::Kind::cuda_block: root = cuda_block(b, n, shape.parameter, shape.items, shape.grid); break;
    default: return std::nullopt;
  }
  return b.finish(root);
}

std::string depths_text(const std::vector<std::uint32_t>& depths) {
  std::string out;
  std::size_t i = 0;
  auto append = [&](const std::string& run) { out += (out.empty() ? "" : ".") + run; };
  while (i < depths.size()) {
    std::size_t same = 1;
    while (i + same < depths.size() && depths[i + same] == depths[i]) ++same;
    if (same >= 2) {
      append(std::to_string(depths[i]) + "x" + std::to_string(same));
      i += same;
      continue;
    }
    // A run of consecutive depths stepping by +1 or -1 (at least 3 long to be worth it).
    std::size_t run = 1;
    if (i + 1 < depths.size()) {
      const std::int64_t step = static_cast<std::int64_t>(depths[i + 1]) - depths[i];
      if (step == 1 || step == -1) {
        while (i + run < depths.size() && static_cast<std::int64_t>(depths[i + run]) - depths[i + run - 1] == step &&
               (i + run + 1 >= depths.size() || depths[i + run + 1] != depths[i + run]))
          ++run;
      }
    }
    if (run >= 3) {
      append(std::to_string(depths[i]) + "-" + std::to_string(depths[i + run - 1]));
      i += run;
    } else {
      append(std::to_string(depths[i]));
      ++i;
    }
  }
  return out;
}

std::optional<std::vector<std::uint32_t>> parse_depths_text(const std::string& text, std::string* error) {
  constexpr std::uint64_t kMaxLeaves = std::uint64_t{1} << 26;
  std::vector<std::uint32_t> out;
  auto fail = [&](const std::string& why) -> std::optional<std::vector<std::uint32_t>> {
    if (error) *error = why;
    return std::nullopt;
  };
  auto number = [](std::string_view s, std::uint64_t& v) {
    if (s.empty()) return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && v < (std::uint64_t{1} << 31);
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t dot = std::min(text.find('.', start), text.size());
    const std::string_view run = std::string_view(text).substr(start, dot - start);
    std::uint64_t a = 0, b = 0;
    if (const auto x = run.find('x'); x != std::string_view::npos) {
      if (!number(run.substr(0, x), a) || !number(run.substr(x + 1), b) || b == 0)
        return fail("'" + std::string(run) + "' is not DEPTHxCOUNT");
      if (out.size() + b > kMaxLeaves) return fail("more than 2^26 leaves");
      out.insert(out.end(), b, static_cast<std::uint32_t>(a));
    } else if (const auto dash = run.find('-'); dash != std::string_view::npos) {
      if (!number(run.substr(0, dash), a) || !number(run.substr(dash + 1), b))
        return fail("'" + std::string(run) + "' is not FROM-TO");
      if (out.size() + (a > b ? a - b : b - a) + 1 > kMaxLeaves) return fail("more than 2^26 leaves");
      for (std::uint64_t d = a;; d = a > b ? d - 1 : d + 1) {
        out.push_back(static_cast<std::uint32_t>(d));
        if (d == b) break;
      }
    } else {
      if (!number(run, a)) return fail("'" + std::string(run) + "' is not a depth");
      out.push_back(static_cast<std::uint32_t>(a));
    }
    if (dot == text.size()) break;
    start = dot + 1;
  }
  if (out.empty()) return fail("no depths");
  return out;
}

}  // namespace accucheck
