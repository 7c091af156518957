// Tree shapes (bound.h TreeShape): their text ("blocked:64", "cuda_block:256:4:1024"), read and
// printed, and their heights h(n), the most roundings any addend passes through, at which the
// tree and depths kinds (recursive.cpp) evaluate h u or gamma_h. Each height models the library
// or kernel the shape names (docs/bounds.md "Tree heights", "CUDA reduction trees", "All-reduce
// over ranks").
#include <algorithm>
#include <functional>
#include <map>
#include <string_view>
#include <utility>

#include "checking/bound.h"
#include "checking/bounds/syntax.h"

namespace accucheck {
namespace bounds {
namespace {

// cuda_block:THREADS:ITEMS:GRID, THREADS a power of two in [32, 1024] (whole warps, at most 32
// warp sums), ITEMS in [1, 1024], GRID in [1, 2^20].
bool to_cuda_block(const std::string& h, TreeShape& out, std::string& error) {
  std::uint64_t values[3] = {0, 0, 0};
  std::size_t at = std::string_view("cuda_block:").size();
  for (int k = 0; k < 3; ++k) {
    const std::size_t end = k < 2 ? h.find(':', at) : h.size();
    if (end == std::string::npos || !parse_unsigned(std::string_view(h).substr(at, end - at), values[k])) {
      error = "tree shape '" + h + "' must be cuda_block:THREADS:ITEMS:GRID (three positive integers)";
      return false;
    }
    at = end + 1;
  }
  const auto [threads, items, grid] = values;
  if (threads < 32 || threads > 1024 || (threads & (threads - 1)) != 0 || items < 1 || items > 1024 || grid < 1 ||
      grid > (1u << 20)) {
    error =
        "tree shape '" + h + "': THREADS must be a power of two in [32, 1024], ITEMS in [1, 1024], GRID in [1, 2^20]";
    return false;
  }
  out = {TreeShape::Kind::cuda_block, threads, items, grid};
  return true;
}

}  // namespace

bool to_shape(const Node& node, TreeShape& out, std::string& error) {
  const std::string& h = node.head;
  if (node.has_parentheses) {
    error = "tree shape '" + h + "' takes no arguments";
    return false;
  }
  using Kind = TreeShape::Kind;
  static constexpr std::pair<std::string_view, Kind> without_parameter[] = {{"sequential", Kind::sequential},
                                                                            {"pairwise", Kind::pairwise},
                                                                            {"numpy", Kind::numpy},
                                                                            {"torch_sum", Kind::torch_sum}};
  static constexpr std::pair<std::string_view, Kind> with_parameter[] = {{"blocked", Kind::blocked},
                                                                         {"lanes", Kind::lanes},
                                                                         {"ranks", Kind::ranks},
                                                                         {"nccl_tree", Kind::nccl_tree},
                                                                         {"numpy_buffered", Kind::numpy_buffered},
                                                                         {"windows", Kind::windows}};
  for (const auto& [spelling, kind] : without_parameter) {
    if (h != spelling) continue;
    out = {kind, 0};
    return true;
  }
  if (h.starts_with("cuda_block:")) return to_cuda_block(h, out, error);
  auto colon = h.find(':');
  if (colon != std::string::npos) {
    std::string_view prefix = std::string_view(h).substr(0, colon);
    std::uint64_t parameter = 0;
    if (!parse_unsigned(std::string_view(h).substr(colon + 1), parameter) || parameter == 0 || parameter > (1u << 30)) {
      error = "tree shape '" + h + "' needs a positive integer after ':'";
      return false;
    }
    for (const auto& [spelling, kind] : with_parameter) {
      if (prefix != spelling) continue;
      if (kind == Kind::windows && parameter < 2) {
        error = "tree shape '" + h + "': windows of at least 2";
        return false;
      }
      out = {kind, parameter};
      return true;
    }
  }
  error = "unknown tree shape '" + h +
          "' (sequential, pairwise, numpy, blocked:B, lanes:L, numpy_buffered:B, windows:W, torch_sum, "
          "cuda_block:THREADS:ITEMS:GRID, nccl_tree:G, ranks:P)";
  return false;
}

}  // namespace bounds

std::string shape_text(const TreeShape& s) {
  switch (s.kind) {
    case TreeShape::Kind::sequential: return "sequential";
    case TreeShape::Kind::pairwise: return "pairwise";
    case TreeShape::Kind::numpy: return "numpy";
    case TreeShape::Kind::blocked: return "blocked:" + std::to_string(s.parameter);
    case TreeShape::Kind::lanes: return "lanes:" + std::to_string(s.parameter);
    case TreeShape::Kind::numpy_buffered: return "numpy_buffered:" + std::to_string(s.parameter);
    case TreeShape::Kind::windows: return "windows:" + std::to_string(s.parameter);
    case TreeShape::Kind::torch_sum: return "torch_sum";
    case TreeShape::Kind::nccl_tree: return "nccl_tree:" + std::to_string(s.parameter);
    case TreeShape::Kind::ranks: return "ranks:" + std::to_string(s.parameter);
    case TreeShape::Kind::cuda_block:
      return "cuda_block:" + std::to_string(s.parameter) + ":" + std::to_string(s.items) + ":" + std::to_string(s.grid);
  }
  return "?";
}

namespace {

std::uint64_t ceil_log2(std::uint64_t n) {
  std::uint64_t h = 0;
  while ((std::uint64_t{1} << h) < n) ++h;
  return h;
}

std::uint64_t numpy_height(std::uint64_t n, std::map<std::uint64_t, std::uint64_t>& memo) {
  // numpy/core/src/umath/loops_utils.h.src, pairwise_sum: below 8 a plain loop; up to 128
  // eight accumulators (n/8 addends each), a 3-level tree, then the n%8 leftovers in order;
  // above, split at n/2 rounded down to a multiple of 8 and recurse.
  if (n <= 1) return 0;
  if (n < 8) return n - 1;
  if (n <= 128) return (n / 8 - 1) + 3 + (n % 8);
  // The two halves differ by less than 16, so each level has only a few distinct lengths:
  // memoized, the recursion visits O(log n) of them instead of O(n / 64) nodes.
  if (auto found = memo.find(n); found != memo.end()) return found->second;
  std::uint64_t half = n / 2;
  half -= half % 8;
  const std::uint64_t height = 1 + std::max(numpy_height(half, memo), numpy_height(n - half, memo));
  memo.emplace(n, height);
  return height;
}

// Roundings on the deepest path of a partial sum; `empty` is a sum still at its zero start,
// to which the first addition is exact (torch's accumulators start at 0).
struct PathDepth {
  std::uint64_t depth = 0;
  bool empty = true;
  PathDepth plus(PathDepth other) const {
    if (empty) return other;
    if (other.empty) return *this;
    return {std::max(depth, other.depth) + 1, false};
  }
};

// ATen/native/cpu/SumKernel.cpp (v1.13), multi_row_sum for one of its rows: four levels of
// accumulators; level 0 takes 2^p leaves (p = max(4, CeilLog2(size) / 4)), then each full level
// is added into the next and cleared, carrying on while the count is a multiple of the next
// level's span; the leftovers go into level 0, and levels 1..3 are added into it in order.
PathDepth torch_multi_row_sum(std::uint64_t size, PathDepth leaf) {
  const std::uint64_t power = std::max<std::uint64_t>(4, ceil_log2(size) / 4);
  const std::uint64_t step = std::uint64_t{1} << power, mask = step - 1;
  PathDepth acc[4];
  std::uint64_t i = 0;
  for (; i + step <= size;) {
    for (std::uint64_t j = 0; j < step; ++j, ++i) acc[0] = acc[0].plus(leaf);
    for (int j = 1; j < 4; ++j) {
      acc[j] = acc[j].plus(acc[j - 1]);
      acc[j - 1] = PathDepth{};
      if ((i & (mask << (j * power))) != 0) break;
    }
  }
  for (; i < size; ++i) acc[0] = acc[0].plus(leaf);
  for (int j = 1; j < 4; ++j) acc[0] = acc[0].plus(acc[j]);
  return acc[0];
}

// row_sum: the row as (size/4, 4), four multi_row_sum columns, the size%4 leftovers into the
// first, then the other three added to it.
PathDepth torch_row_sum(std::uint64_t size, PathDepth leaf) {
  const PathDepth column = torch_multi_row_sum(size / 4, leaf);
  PathDepth total = column;
  for (std::uint64_t i = (size / 4) * 4; i < size; ++i) total = total.plus(leaf);
  for (int k = 1; k < 4; ++k) total = total.plus(column);
  return total;
}

// vectorized_inner_sum: row_sum over the vectors of `width` values (8 f32 lanes; 16-bit inputs
// load 16 values as 8 lanes of pre-added pairs), the tail summed from 0, then the 8 lanes added to it.
PathDepth torch_inner_sum(std::uint64_t size, std::uint64_t width) {
  const PathDepth lanes = torch_row_sum(size / width, PathDepth{width == 16 ? 1u : 0u, false});
  PathDepth total;
  for (std::uint64_t k = (size / width) * width; k < size; ++k) total = total.plus(PathDepth{0, false});
  for (int k = 0; k < 8; ++k) total = total.plus(lanes);
  return total;
}

std::uint64_t torch_sum_height(std::uint64_t n) {
  const PathDepth leaf{0, false};
  std::uint64_t height = std::max(torch_multi_row_sum(n, leaf).depth, torch_row_sum(n, leaf).depth);
  if (n >= 8) height = std::max(height, torch_inner_sum(n, 8).depth);
  if (n >= 16) height = std::max(height, torch_inner_sum(n, 16).depth);
  return height;
}

// The deepest leaf of impls/cuda's block reduction (docs/bounds.md, "CUDA reduction trees") is
// the first item of thread 0 of block 0: block 0 gets the most tiles (0, G, 2G, ...), thread 0
// the most items of each tile, and lane 0 of warp 0 is the root of both shuffle trees, and block
// 0's sum is the first item of thread 0 of the second pass. Its roundings: m1 - 1 in the thread's
// sequential sum, ceil(log2 k1) in the block's two shuffle levels over the k1 threads that hold
// an item (ceil(log2 min(32, k)) + ceil(log2 ceil(k/32)) = ceil(log2 k)), and the same two terms
// for the second pass over the G block sums. Adding the -0 identity of an empty thread, warp or
// lane is exact and does not count.
std::uint64_t cuda_block_height(std::uint64_t threads, std::uint64_t items, std::uint64_t grid, std::uint64_t n) {
  const std::uint64_t tile = threads * items;
  const std::uint64_t tiles = (n + tile - 1) / tile;
  const std::uint64_t g = std::min(tiles, grid);
  const std::uint64_t block0_tiles = (tiles + g - 1) / g;
  const std::uint64_t last = (block0_tiles - 1) * g;  // block 0's last tile
  const std::uint64_t last_items =
      last == tiles - 1 ? std::min(items, (n - last * tile + threads - 1) / threads) : items;
  const std::uint64_t m1 = (block0_tiles - 1) * items + last_items;
  const std::uint64_t k1 = tiles == 1 ? std::min(threads, n) : threads;
  const std::uint64_t m2 = (g + threads - 1) / threads;
  const std::uint64_t k2 = std::min(threads, g);
  return (m1 - 1) + ceil_log2(k1) + (m2 - 1) + ceil_log2(k2);
}

// NCCL's tree all-reduce over n ranks in nodes of G (NVIDIA/nccl v2.28.9 src/graph/trees.cc
// ncclGetBtree/ncclGetDtree, connect.cc setTreeDown; the model: impls/common/allreduce_orders.h).
// Tree 0 over the N = ceil(n/G) nodes links node v != 0 to its parent through v's lowest set bit
// b: (v ^ b) | 2b, or v ^ b when that is not a node; a parent's children are one below and one
// above it, so their order by number is NCCL's down0, down1. Tree 1 is tree 0 on renumbered
// nodes (mirrored when N is even, shifted by one when odd), so only which node holds the short
// last chain differs. A node's value is the left fold of [own, chain of the other G-1 ranks, the
// children's sums]: the first operand passes m-1 roundings, operand i >= 1 passes m-i. A chain
// of L values (each rank adding its own value to the sum below it) costs its deepest leaf L-1.
std::uint64_t nccl_tree_height(std::uint64_t gpus, std::uint64_t n) {
  const std::uint64_t nodes = (n + gpus - 1) / gpus;
  const std::uint64_t last_node_size = n - (nodes - 1) * gpus;
  std::vector<std::vector<std::uint64_t>> children(nodes);
  for (std::uint64_t v = 1; v < nodes; ++v) {
    const std::uint64_t bit = v & (~v + 1);
    std::uint64_t parent = (v ^ bit) | (bit << 1);
    if (parent >= nodes) parent = v ^ bit;
    children[parent].push_back(v);  // ascending v: down0 before down1
  }
  std::uint64_t height = 0;
  for (int tree = 0; tree < 2; ++tree) {
    // The renumbered node that is the last node (the possibly shorter chain): itself in tree 0,
    // 0 under the mirror, N - 2 (mod N) under the shift.
    const std::uint64_t short_node = tree == 0 ? nodes - 1 : nodes % 2 == 0 ? 0 : (2 * nodes - 2) % nodes;
    std::function<std::uint64_t(std::uint64_t)> deepest = [&](std::uint64_t v) -> std::uint64_t {
      std::vector<std::uint64_t> operand_depths{0};
      const std::uint64_t size = v == short_node ? last_node_size : gpus;
      if (size > 1) operand_depths.push_back(size - 2);
      for (std::uint64_t c : children[v]) operand_depths.push_back(deepest(c));
      const std::uint64_t m = operand_depths.size();
      std::uint64_t d = 0;
      for (std::uint64_t i = 0; i < m; ++i) d = std::max(d, operand_depths[i] + (i == 0 ? m - 1 : m - i));
      return d;
    };
    height = std::max(height, deepest(0));
  }
  return height;
}

}  // namespace

std::uint64_t tree_height(const TreeShape& shape, std::uint64_t n) {
  if (n <= 1) return 0;
  switch (shape.kind) {
    case TreeShape::Kind::sequential: return n - 1;
    case TreeShape::Kind::pairwise: return ceil_log2(n);
    case TreeShape::Kind::numpy: {
      std::map<std::uint64_t, std::uint64_t> memo;
      return numpy_height(n, memo);
    }
    case TreeShape::Kind::blocked: {
      const std::uint64_t b = shape.parameter;
      return (std::min(n, b) - 1) + ((n + b - 1) / b - 1);
    }
    case TreeShape::Kind::lanes: {
      const std::uint64_t lanes = shape.parameter;
      return ((n + lanes - 1) / lanes - 1) + ceil_log2(lanes);
    }
    case TreeShape::Kind::numpy_buffered: {
      // numpy/core/src/umath/reduction.c and nditer_api.c (v1.24): the buffered iterator hands the
      // add loop at most B elements of the row at a time; each call is pairwise_sum(block) added
      // to the running output, which starts at the identity 0 (that first addition is exact).
      // Block j's leaves: h_numpy(block) + (k - j), one less for block 0.
      const std::uint64_t b = shape.parameter;
      const std::uint64_t blocks = (n + b - 1) / b;
      std::map<std::uint64_t, std::uint64_t> memo;
      std::uint64_t height = numpy_height(std::min(n, b), memo) + (blocks - 1);
      if (blocks >= 2) height = std::max(height, numpy_height(n - (blocks - 1) * b, memo) + 1);
      return height;
    }
    case TreeShape::Kind::windows: {
      // xla/service/tree_reduction_rewriter.cc: a reduction longer than W becomes a reduce-window
      // of W (zero-padded), again until at most W are left; within a window the order is free
      // (the reducer is emitted with reassoc), so a window of m values costs at most m-1 roundings.
      const std::uint64_t w = shape.parameter;
      std::uint64_t height = 0;
      for (std::uint64_t level = n; level > 1; level = (level + w - 1) / w) height += std::min(level, w) - 1;
      return height;
    }
    case TreeShape::Kind::torch_sum: {
      // O(n) to walk the cascade: the last length asked for is kept (an element's bound is
      // evaluated for each of a case's elements, which share n).
      thread_local std::uint64_t last_n = 0, last_height = 0;
      if (n != last_n) {
        last_height = torch_sum_height(n);
        last_n = n;
      }
      return last_height;
    }
    case TreeShape::Kind::cuda_block: return cuda_block_height(shape.parameter, shape.items, shape.grid, n);
    case TreeShape::Kind::ranks: {
      const std::uint64_t ranks = shape.parameter;
      return ((n + ranks - 1) / ranks - 1) + (std::min(n, ranks) - 1);
    }
    case TreeShape::Kind::nccl_tree: {
      thread_local std::uint64_t last_gpus = 0, last_n = 0, last_height = 0;  // O(n) each: kept as torch_sum's
      if (n != last_n || shape.parameter != last_gpus) {
        last_height = nccl_tree_height(shape.parameter, n);
        last_n = n;
        last_gpus = shape.parameter;
      }
      return last_height;
    }
  }
  return n - 1;
}

}  // namespace accucheck
