// The warp-shuffle tree and the block reduction of common/tree_config.h, as kernels over columns
// (sum j's n terms at [j*n, (j+1)*n)). Each thread's terms, the shuffle tree and the second level
// come from common/tree_reduce.h, which the CPU order models (tree/tree_models.h) run too. Included by tree.cu
// (compiled with --fmad=false) and by ftz.cu (--use_fast_math); the Build tag keeps the two builds' kernels distinct
// symbols (without it both translation units would emit the same host stub for, say, warp_tree_kernel<float>).
#pragma once

#include <algorithm>

#include "cuda/common/device_common.cuh"

namespace accucheck::cuda::dev {

// One warp per sum: lane l takes terms l, l+32, ... in order, then the warp's shuffle tree.
template <class T, class Build>
__global__ void __launch_bounds__(256) warp_tree_kernel(const T* columns, std::uint64_t n, std::uint64_t sums, T* out) {
  const std::uint64_t sum =
      std::uint64_t{blockIdx.x} * (blockDim.x / cuda_tree::kWarp) + threadIdx.x / cuda_tree::kWarp;
  if (sum >= sums) return;  // whole warps return together
  const unsigned lane = threadIdx.x % cuda_tree::kWarp;
  const T* x = columns + sum * n;
  T acc = neg_zero<T>();
  // cuda_tree::kWarpTree: 32 threads, 1 item, 1 block.
  cuda_tree::for_each_term_of_thread(n, cuda_tree::kWarp, 1, 1, 0, lane,
                                     [&](std::uint64_t p) { acc = add(acc, x[p]); });
  acc = warp_reduce(acc);
  if (lane == 0) out[sum] = acc;
}

template <class T, class Build>
void launch_warp_tree(const T* host_columns, std::uint64_t n, std::uint64_t sums, T* host_out) {
  reduce_columns(host_columns, n, sums, host_out, [n, sums](const T* columns, T* out) {
    constexpr unsigned kThreads = 256, kWarpsPerBlock = kThreads / cuda_tree::kWarp;
    const auto blocks = static_cast<unsigned>((sums + kWarpsPerBlock - 1) / kWarpsPerBlock);
    warp_tree_kernel<T, Build><<<blocks, kThreads>>>(columns, n, sums, out);
    CUDA_CHECK_LAUNCH();
  });
}

// First pass: block b of sum e takes tiles b, b+G, ...; thread t its items of each tile.
template <class T, unsigned THREADS, unsigned ITEMS, class Build>
__global__ void __launch_bounds__(THREADS) block_pass1_kernel(const T* columns, std::uint64_t n, std::uint64_t sums,
                                                              std::uint64_t blocks, T* partial, T* out) {
  const std::uint64_t e = blockIdx.y + std::uint64_t{65535} * blockIdx.z;
  if (e >= sums) return;  // whole blocks return together
  const T* x = columns + e * n;
  T acc = neg_zero<T>();
  cuda_tree::for_each_term_of_thread(n, THREADS, ITEMS, blocks, blockIdx.x, threadIdx.x,
                                     [&](std::uint64_t p) { acc = add(acc, x[p]); });
  acc = block_reduce<T, THREADS>(acc, shared_scratch<T>());
  if (threadIdx.x == 0) {
    if (blocks == 1)
      out[e] = acc;
    else
      partial[e * blocks + blockIdx.x] = acc;
  }
}

// Second pass: one block per sum over its G block sums.
template <class T, unsigned THREADS, class Build>
__global__ void __launch_bounds__(THREADS)
    block_pass2_kernel(const T* partial, std::uint64_t sums, std::uint64_t blocks, T* out) {
  const std::uint64_t e = blockIdx.x + std::uint64_t{65535} * blockIdx.y;
  if (e >= sums) return;
  T acc = neg_zero<T>();
  cuda_tree::for_each_block_sum_of_thread(blocks, THREADS, threadIdx.x,
                                          [&](std::uint64_t k) { acc = add(acc, partial[e * blocks + k]); });
  acc = block_reduce<T, THREADS>(acc, shared_scratch<T>());
  if (threadIdx.x == 0) out[e] = acc;
}

// Runs both passes over device columns (the caller owns the memory).
template <class T, class Build>
void block_reduce_device(const T* columns, std::uint64_t n, std::uint64_t sums, T* out, T* partial) {
  constexpr auto c = cuda_tree::kBlockReduce;
  constexpr unsigned kThreads = c.threads, kItems = c.items;
  const std::uint64_t blocks = cuda_tree::block_count(n, c);
  const auto grid_yz = [](std::uint64_t count) {
    return dim3(1, static_cast<unsigned>(count < 65535 ? count : 65535),
                static_cast<unsigned>((count + 65534) / 65535));
  };
  dim3 grid1 = grid_yz(sums);
  grid1.x = static_cast<unsigned>(blocks);
  block_pass1_kernel<T, kThreads, kItems, Build><<<grid1, kThreads>>>(columns, n, sums, blocks, partial, out);
  CUDA_CHECK_LAUNCH();
  if (blocks > 1) {
    const dim3 grid2(static_cast<unsigned>(sums < 65535 ? sums : 65535), static_cast<unsigned>((sums + 65534) / 65535));
    block_pass2_kernel<T, kThreads, Build><<<grid2, kThreads>>>(partial, sums, blocks, out);
    CUDA_CHECK_LAUNCH();
  }
}

template <class T, class Build>
void launch_block_reduce(const T* host_columns, std::uint64_t n, std::uint64_t sums, T* host_out) {
  const std::uint64_t blocks = cuda_tree::block_count(n, cuda_tree::kBlockReduce);
  DeviceBuffer partial(sums > 0 && blocks > 1 ? blocks * sums * sizeof(T) : 0);
  reduce_columns(host_columns, n, sums, host_out, [&](const T* columns, T* out) {
    block_reduce_device<T, Build>(columns, n, sums, out, partial.as<T>());
  });
}

}  // namespace accucheck::cuda::dev
