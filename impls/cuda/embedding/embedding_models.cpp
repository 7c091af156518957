// CPU order model of the MXNet-style CUDA EmbeddingGrad kernel (embedding/embedding.cu): per step, the
// step's (row, vector) pairs sorted by row, stably (std::stable_sort here, cub::DeviceRadixSort
// there: both keep equal rows in pair order), then the kernel's own block code
// (embedding/embedding_grad.h) for every block and thread: one block per distinct row starts from the
// row's gradient G and adds the row's vectors in sorted order, ((G + g1) + g2) + ... (mxnet-16686,
// GPU path). Every element is a sequential sum in step and pair order: recursive(F).
#include <algorithm>
#include <numeric>

#include "common/per_element.h"
#include "cuda/embedding/embedding_grad.h"

namespace accucheck::impls {
namespace {

template <class T>
void embedding_grad_run(const SparseWorkload& w, std::span<double> result, const RunOptions&) {
  std::vector<T> table = stored_as<T>(w.initial);
  const std::vector<T> values = stored_as<T>(w.values);
  const unsigned threads = cuda_tree::embedding_grad_threads(w.dim);
  std::vector<std::uint32_t> sorted_pairs, sorted_rows;
  for (std::size_t t = 0; t < w.steps; ++t) {
    const std::size_t begin = w.step_offsets[t], end = w.step_offsets[t + 1];
    if (begin == end || w.dim == 0) continue;
    sorted_pairs.resize(end - begin);
    std::iota(sorted_pairs.begin(), sorted_pairs.end(), static_cast<std::uint32_t>(begin));
    std::stable_sort(sorted_pairs.begin(), sorted_pairs.end(),
                     [&](std::uint32_t x, std::uint32_t y) { return w.row_index[x] < w.row_index[y]; });
    sorted_rows.resize(sorted_pairs.size());
    for (std::size_t s = 0; s < sorted_pairs.size(); ++s) sorted_rows[s] = w.row_index[sorted_pairs[s]];
    const auto count = static_cast<std::uint32_t>(sorted_pairs.size());
    for (std::uint32_t block = 0; block < count; ++block)
      for (unsigned thread = 0; thread < threads; ++thread)
        cuda_tree::embedding_grad_block(block, sorted_rows.data(), sorted_pairs.data(), count, values.data(), w.dim,
                                        table.data(), thread, threads, [](T a, T b) { return a + b; });
  }
  write_values(table, result);
}

ACCUCHECK_REGISTER_BACKEND(in_formats<float, Half>(
    sparse_backend, []<class T>() { return &embedding_grad_run<T>; }, "cuda_model_embedding_grad_{F}", "recursive({F})",
    Determinism::bitwise_deterministic,
    "CPU order model of cuda_embedding_grad: per step a stable sort by row, one block per row adding its vectors onto "
    "G in order"));

}  // namespace
}  // namespace accucheck::impls
