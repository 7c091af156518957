// CPU order models of the CUDA reduction trees (common/tree_config.h states the tree): the
// kernels' own index loops and shuffle tree (common/tree_reduce.h, __host__ __device__) run for
// every thread on the host, so that a kernel's result equals its model's bit for bit
// (impls/cuda/tests/cuda_backends_test.cpp checks it on a GPU) and CI executes the kernels'
// arithmetic.
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
#include "cuda/common/tree_reduce.h"

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

// A warp's 32 lanes on the host, for the shared warp tree (common/tree_reduce.h). `live` lanes
// [0, live) hold what the GPU's lanes hold: after a shuffle by `offset` only lanes below it carry
// a value that can still reach lane 0 (the others add what lane 0 never reads), so the host adds
// only those.
template <class T>
struct HostWarp {
  T lane[kWarp];
  unsigned live = kWarp;
};

// __shfl_down_sync(v, offset) for every lane: lane l receives lane l + offset's value.
template <class T>
HostWarp<T> shfl_down(const HostWarp<T>& v, unsigned offset) {
  HostWarp<T> r = v;
  for (unsigned l = 0; l + offset < kWarp; ++l) r.lane[l] = v.lane[l + offset];
  r.live = offset;
  return r;
}

// `add` lifted to every live lane: lane l of `mine` plus lane l of `received`.
template <class Add>
struct LaneWise {
  Add add;
  template <class T>
  HostWarp<T> operator()(HostWarp<T> mine, const HostWarp<T>& received) const {
    const unsigned live = received.live < mine.live ? received.live : mine.live;
    for (unsigned l = 0; l < live; ++l) mine.lane[l] = add(mine.lane[l], received.lane[l]);
    mine.live = live;
    return mine;
  }
};

template <class T, class Add>
T warp_reduce(const T* lanes, Add add) {
  HostWarp<T> v;
  for (unsigned l = 0; l < kWarp; ++l) v.lane[l] = lanes[l];
  v = cuda_tree::warp_reduce(
      v, [](const HostWarp<T>& w, unsigned offset) { return shfl_down(w, offset); }, LaneWise<Add>{add});
  return v.lane[0];
}

// One block's reduction of its `threads` thread sums: per warp, then warp 0 over the warp sums
// (common/tree_reduce.h's second_level_lane); a single warp has no second level. Threads from
// `active` on hold the identity (they loaded nothing): a warp of identities sums to the
// identity (-0 + -0 = -0, also flushed; the tree-height test's empty value), so those warps
// are not summed on the CPU.
template <class T, class Add>
T block_reduce(const T* thread_sum, unsigned threads, T identity, Add add, unsigned active = ~0u) {
  const unsigned warps = threads / kWarp;
  T warp_sum[kWarp];
  for (unsigned w = 0; w < warps; ++w)
    warp_sum[w] = w * kWarp >= active ? identity : warp_reduce(thread_sum + w * kWarp, add);
  if (warps == 1) return warp_sum[0];
  T lane[kWarp];
  for (unsigned l = 0; l < kWarp; ++l)
    lane[l] = cuda_tree::second_level_lane(
        l, warps, [&](unsigned w) { return warp_sum[w]; }, identity);
  return warp_reduce(lane, add);
}

// The whole tree over x[0..n), load(p) giving x[p]: every thread of every block of the first pass
// runs the kernels' own loop (common/tree_reduce.h), then the one-block second pass.
template <class T, class Load, class Add>
T block_tree_sum(std::uint64_t n, Load load, const BlockConfig& c, T identity, Add add) {
  const std::uint64_t blocks = cuda_tree::block_count(n, c);
  std::vector<T> partial(blocks, identity), thread_sum(c.threads, identity);
  for (std::uint64_t b = 0; b < blocks; ++b) {
    unsigned active = 0;  // threads 0 .. active-1 loaded something
    for (unsigned t = 0; t < c.threads; ++t) {
      T acc = identity;
      cuda_tree::for_each_term_of_thread(n, c.threads, c.items, blocks, b, t, [&](std::uint64_t p) {
        acc = add(acc, load(p));
        active = t + 1;
      });
      thread_sum[t] = acc;
    }
    partial[b] = block_reduce(thread_sum.data(), c.threads, identity, add, active);
  }
  if (blocks == 1) return partial[0];
  for (unsigned t = 0; t < c.threads; ++t) {
    T acc = identity;
    cuda_tree::for_each_block_sum_of_thread(blocks, c.threads, t, [&](std::uint64_t k) { acc = add(acc, partial[k]); });
    thread_sum[t] = acc;
  }
  return block_reduce(thread_sum.data(), c.threads, identity, add);
}

}  // namespace accucheck::cuda_models
