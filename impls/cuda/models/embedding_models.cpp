// CPU order model of the MXNet-style CUDA EmbeddingGrad kernel (kernels/sparse.cu): per step,
// the step's (row, vector) pairs are sorted by row with a stable radix sort (cub::DeviceRadixSort
// keeps equal rows in pair order), one block per distinct row starts from the row's gradient G
// and adds the row's vectors in sorted order, ((G + g1) + g2) + ... (mxnet-16686, GPU path).
// Every element is a sequential sum in step and pair order: recursive(F).
#include <algorithm>
#include <numeric>

#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class T>
void embedding_grad_run(const SparseWorkload& w, std::span<double> result, const RunOptions&) {
  std::vector<T> table(w.initial.size());
  for (std::size_t e = 0; e < table.size(); ++e) table[e] = from_value<T>(w.initial[e]);
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < w.steps; ++t) {
    const std::size_t begin = w.step_offsets[t], end = w.step_offsets[t + 1];
    order.resize(end - begin);
    std::iota(order.begin(), order.end(), begin);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return w.row_index[x] < w.row_index[y]; });
    for (std::size_t s = 0; s < order.size();) {
      const std::uint32_t row = w.row_index[order[s]];
      std::size_t stop = s;
      while (stop < order.size() && w.row_index[order[stop]] == row) ++stop;
      for (std::size_t d = 0; d < w.dim; ++d) {
        T acc = table[row * w.dim + d];
        for (std::size_t i = s; i < stop; ++i) acc = acc + from_value<T>(w.values[order[i] * w.dim + d]);
        table[row * w.dim + d] = acc;
      }
      s = stop;
    }
  }
  for (std::size_t e = 0; e < table.size(); ++e) result[e] = to_value(table[e]);
}

const bool registered = [] {
  for (Format f : {Format::f32, Format::f16}) {
    Registration(sparse_backend(with_format("cuda_model_embedding_grad_{F}", f), f, f, with_format("recursive({F})", f),
                                Determinism::bitwise_deterministic,
                                "CPU order model of cuda_embedding_grad: per step a stable sort by row, one block per "
                                "row adding its vectors onto G in order",
                                f == Format::f32 ? SparseRun(&embedding_grad_run<float>) : SparseRun(&embedding_grad_run<Half>)));
  }
  return true;
}();

}  // namespace
}  // namespace accucheck::impls
