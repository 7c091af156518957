// The reduction trees of impls/cuda, as data: the same constants drive the kernels
// (tree/tree.cu), their CPU order models (tree/tree_models.h) and the bound each states
// (core's tree shape cuda_block:THREADS:ITEMS:GRID, docs/bounds.md "CUDA reduction trees").
//
// One sum of n terms x[0..n):
//   tiles   = ceil(n / (THREADS * ITEMS)), tile k holding x[k*THREADS*ITEMS ..);
//   G       = min(tiles, GRID) blocks; block b takes tiles b, b+G, b+2G, ... (grid-stride);
//   thread t of a block sums, in order, x[tile*THREADS*ITEMS + i*THREADS + t] for each of its
//            tiles and i = 0..ITEMS-1 (starting from the -0 identity);
//   block    each warp reduces its 32 thread sums by __shfl_down_sync with offsets 16, 8, 4, 2, 1
//            (lane l += lane l+offset), lane 0 of each warp stores its warp sum, and warp 0
//            reduces the THREADS/32 warp sums the same way (the -0 identity beyond them);
//   pass 2   when G > 1, one block of THREADS threads sums the G block sums the same way
//            (thread t takes sums t, t+THREADS, ...), else block 0's sum is the result.
// G depends on n and the constants only, never on the device: the tree is the same on every GPU.
#pragma once

#include <cstdint>

#include "cuda/common/hd.h"

namespace accucheck::cuda_tree {

inline constexpr unsigned kWarp = 32;

struct BlockConfig {
  unsigned threads;  // a power of two, 32..1024
  unsigned items;    // per thread and tile
  unsigned grid;     // most blocks of the first pass
};

// The warp-shuffle tree: one warp per sum (lane l takes x[l], x[l+32], ...), no second level.
inline constexpr BlockConfig kWarpTree{32, 1, 1};
// The block reduction with a deterministic second pass.
inline constexpr BlockConfig kBlockReduce{256, 4, 1024};

ACCUCHECK_HD_INLINE std::uint64_t tile_size(const BlockConfig& c) { return std::uint64_t{c.threads} * c.items; }
ACCUCHECK_HD_INLINE std::uint64_t tile_count(std::uint64_t n, const BlockConfig& c) {
  return (n + tile_size(c) - 1) / tile_size(c);
}
ACCUCHECK_HD_INLINE std::uint64_t block_count(std::uint64_t n, const BlockConfig& c) {
  const std::uint64_t tiles = tile_count(n, c);
  return tiles < c.grid ? tiles : c.grid;
}

}  // namespace accucheck::cuda_tree
