// The reduction of common/tree_config.h as one source for the kernels (kernels/tree_kernels.cuh,
// nvcc: one thread runs each function for itself) and their CPU order models
// (tree/tree_models.h, the host compiler: the model runs them for every thread, lane and
// block). What cannot be shared stays outside: the lane exchange (__shfl_down_sync on the GPU, an
// array of the warp's 32 lanes on the host) and the block's shared memory and barrier.
#pragma once

#include <cstdint>

#include "cuda/common/hd.h"
#include "cuda/common/tree_config.h"

namespace accucheck::cuda_tree {

// Thread `thread` of block `block` (of `blocks` in the pass) visits its terms in summation order:
// its tiles block, block + blocks, ... and, in each, items 0..items-1 at item * threads + thread.
template <class Visit>
ACCUCHECK_HD_INLINE void for_each_term_of_thread(std::uint64_t n, unsigned threads, unsigned items,
                                                 std::uint64_t blocks, std::uint64_t block, unsigned thread,
                                                 Visit visit) {
  const BlockConfig config{threads, items, 0};  // the grid is `blocks`, given
  const std::uint64_t tile = tile_size(config), tiles = tile_count(n, config);
  for (std::uint64_t k = block; k < tiles; k += blocks)
    for (unsigned i = 0; i < items; ++i) {
      const std::uint64_t p = k * tile + std::uint64_t{i} * threads + thread;
      if (p < n) visit(p);
    }
}

// The second pass: thread `thread` of the one block visits block sums thread, thread + threads, ...
template <class Visit>
ACCUCHECK_HD_INLINE void for_each_block_sum_of_thread(std::uint64_t blocks, unsigned threads, unsigned thread,
                                                      Visit visit) {
  for (std::uint64_t k = thread; k < blocks; k += threads) visit(k);
}

// A warp's shuffle tree: for offsets 16, 8, 4, 2, 1 each lane adds, to its own value (first
// operand), the value `shfl_down(v, offset)` brings from lane + offset. Lane 0 ends with the sum.
template <class V, class ShflDown, class Add>
ACCUCHECK_HD_INLINE V warp_reduce(V v, ShflDown shfl_down, Add add) {
  for (unsigned offset = kWarp / 2; offset > 0; offset /= 2) v = add(v, shfl_down(v, offset));
  return v;
}

// The block's second level: lane `lane` of warp 0 starts from warp `lane`'s sum, or from the
// identity beyond the block's `warps`.
template <class T, class WarpSum>
ACCUCHECK_HD_INLINE T second_level_lane(unsigned lane, unsigned warps, WarpSum warp_sum, T identity) {
  return lane < warps ? warp_sum(lane) : identity;
}

}  // namespace accucheck::cuda_tree
