// Embedding backward on the device (embedding.cu).
// Host entry points in plain C++ types, shared by the registration and the .cu file (docs/architecture.md,
// "Adding a built-in backend"; raw values and columns: common/raw_values.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "numerics/format.h"

namespace accucheck::cuda {

// Embedding backward over a sparse workload (core's SparseWorkload, flattened).
struct SparseArgs {
  std::size_t rows = 0, dim = 0, steps = 0;
  const std::size_t* step_offsets = nullptr;  // steps + 1
  const std::uint32_t* row_index = nullptr;   // one per pair
  std::size_t pairs = 0;
  const void* values = nullptr;   // pairs*dim raw values
  const void* initial = nullptr;  // rows*dim raw values
  void* out = nullptr;            // rows*dim raw values
};
// MXNet's EmbeddingGrad under grad_req 'add' (f32, f16): per step a stable radix sort of the
// pairs by row, then one block per distinct row adding its vectors onto G in sorted order.
void embedding_grad(Format f, const SparseArgs& args);
// Per step: stable radix sort by row, cub::DeviceSegmentedReduce::Sum over each row's vectors,
// then G + (segment sum) (f32).
void embedding_sort_segreduce_f32(const SparseArgs& args);

}  // namespace accucheck::cuda
