// CPU order models of the CUDA reduction trees (common/tree_config.h states the tree): the same
// additions in the same order as the kernels of kernels/reduce.cu, so that a kernel's result
// equals its model's bit for bit (impls/cuda/tests/cuda_backends_test.cpp checks it on a GPU).
// Templates over the value type and the addition: float/double/Half/BFloat16 with IEEE
// addition, float with flush-to-zero addition (the --use_fast_math build), and the depth-counting
// type of the tree-height test (impls/cuda/tests/cuda_tree_height_test.cpp).
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/common/tree_config.h"

namespace accucheck::cuda_models {

using cuda_tree::BlockConfig;
using cuda_tree::kWarp;

inline std::string shape_text(const BlockConfig& c) {
  return "cuda_block:" + std::to_string(c.threads) + ":" + std::to_string(c.items) + ":" + std::to_string(c.grid);
}

struct PlainAdd {
  template <class T>
  T operator()(T a, T b) const {
    return a + b;
  }
};

// Flush-to-zero as sm_90 does it under --use_fast_math (add.ftz.f32): subnormal inputs and
// results become zero of the same sign.
inline float flush(float x) { return x != 0 && std::fabs(x) < FLT_MIN ? std::copysign(0.0f, x) : x; }
struct FtzAdd {
  float operator()(float a, float b) const { return flush(flush(a) + flush(b)); }
};

// __shfl_down_sync over one warp: lane l += lane l+offset for offset 16, 8, 4, 2, 1. Only lanes
// below the offset are updated: the others (which read their own value back on the GPU) never
// reach lane 0.
template <class T, class Add>
T warp_reduce(T* lane, Add add) {
  for (unsigned offset = kWarp / 2; offset > 0; offset /= 2)
    for (unsigned l = 0; l < offset; ++l) lane[l] = add(lane[l], lane[l + offset]);
  return lane[0];
}

// One block's reduction of its `threads` thread sums: per warp, then warp 0 over the warp sums
// (the identity in lanes beyond them); a single warp has no second level. Threads from
// `active` on hold the identity (they loaded nothing): a warp of identities sums to the
// identity (-0 + -0 = -0, also flushed; the tree-height test's empty value), so those warps
// are not summed on the CPU.
template <class T, class Add>
T block_reduce(const T* thread_sum, unsigned threads, T identity, Add add, unsigned active = ~0u) {
  const unsigned warps = threads / kWarp;
  T warp_sum[kWarp];
  T lane[kWarp];
  for (unsigned w = 0; w < warps; ++w) {
    if (w * kWarp >= active) {
      warp_sum[w] = identity;
      continue;
    }
    for (unsigned l = 0; l < kWarp; ++l) lane[l] = thread_sum[w * kWarp + l];
    warp_sum[w] = warp_reduce(lane, add);
  }
  if (warps == 1) return warp_sum[0];
  for (unsigned l = 0; l < kWarp; ++l) lane[l] = l < warps ? warp_sum[l] : identity;
  return warp_reduce(lane, add);
}

// The whole tree over x[0..n), load(p) giving x[p].
template <class T, class Load, class Add>
T block_tree_sum(std::uint64_t n, Load load, const BlockConfig& c, T identity, Add add) {
  const std::uint64_t tile = cuda_tree::tile_size(c);
  const std::uint64_t tiles = cuda_tree::tile_count(n, c);
  const std::uint64_t blocks = cuda_tree::block_count(n, c);
  std::vector<T> partial(blocks, identity), thread_sum(c.threads, identity);
  for (std::uint64_t b = 0; b < blocks; ++b) {
    thread_sum.assign(c.threads, identity);
    unsigned active = 0;  // threads 0 .. active-1 loaded something
    for (std::uint64_t k = b; k < tiles; k += blocks)
      for (unsigned i = 0; i < c.items; ++i)
        for (unsigned t = 0; t < c.threads; ++t) {
          const std::uint64_t p = k * tile + std::uint64_t{i} * c.threads + t;
          if (p >= n) break;  // p grows with t
          thread_sum[t] = add(thread_sum[t], load(p));
          if (t >= active) active = t + 1;
        }
    partial[b] = block_reduce(thread_sum.data(), c.threads, identity, add, active);
  }
  if (blocks == 1) return partial[0];
  thread_sum.assign(c.threads, identity);
  for (unsigned t = 0; t < c.threads; ++t)
    for (std::uint64_t k = t; k < blocks; k += c.threads) thread_sum[t] = add(thread_sum[t], partial[k]);
  return block_reduce(thread_sum.data(), c.threads, identity, add);
}

}  // namespace accucheck::cuda_models
