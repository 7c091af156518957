// MXNet's EmbeddingGrad (grad_req 'add', GPU path) as one source for the kernel
// (embedding/embedding.cu, nvcc: a block per sorted position, a thread per dimension) and its CPU order
// model (embedding/embedding_models.cpp, the host: every block and thread in turn). The step's pairs
// come sorted by row, stably (cub::DeviceRadixSort on the GPU, std::stable_sort on the host: the
// library call is what is not shared).
#pragma once

#include <cstdint>

#include "cuda/common/hd.h"

namespace accucheck::cuda_tree {

// Threads per block: the dimensions rounded up to whole warps, at most 256.
ACCUCHECK_HD_INLINE unsigned embedding_grad_threads(std::uint64_t dim) {
  return dim < 256 ? static_cast<unsigned>((dim + 31) / 32 * 32) : 256u;
}

// Block `position` of a step's `count` sorted pairs: if it starts a run of equal rows, its
// thread `thread` (of `threads`) adds, for each of its dimensions d = thread, thread + threads,
// ..., the run's vectors in sorted order onto the row's gradient, ((G + g1) + g2) + ...
template <class T, class Add>
ACCUCHECK_HD_INLINE void embedding_grad_block(std::uint32_t position, const std::uint32_t* sorted_rows,
                                              const std::uint32_t* sorted_pairs, std::uint32_t count, const T* values,
                                              std::uint64_t dim, T* table, unsigned thread, unsigned threads, Add add) {
  if (position >= count) return;
  const std::uint32_t row = sorted_rows[position];
  if (position > 0 && sorted_rows[position - 1] == row) return;
  for (std::uint64_t d = thread; d < dim; d += threads) {
    T acc = table[row * dim + d];
    for (std::uint32_t q = position; q < count && sorted_rows[q] == row; ++q)
      acc = add(acc, values[sorted_pairs[q] * dim + d]);
    table[row * dim + d] = acc;
  }
}

}  // namespace accucheck::cuda_tree
