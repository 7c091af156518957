// Embedding backward as MXNet's GPU EmbeddingGrad runs it under grad_req 'add': each step's
// indices are sorted (a stable radix sort keeps the pairs of one row in their original order),
// one block per distinct row starts from the row's existing gradient G and adds the row's
// vectors in sorted order: ((G + g1) + g2) + ... (mxnet-16686, GPU path). Every element is a
// recursive sum in step and pair order: recursive(F), and bit for bit the sequential scatter.
#include <algorithm>
#include <numeric>

#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class T>
void sorted_segment_run(const SparseWorkload& w, std::span<double> result, const RunOptions&) {
  std::vector<T> table(w.initial.size());
  for (std::size_t e = 0; e < table.size(); ++e) table[e] = from_value<T>(w.initial[e]);
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < w.steps; ++t) {
    const std::size_t begin = w.step_offsets[t], end = w.step_offsets[t + 1];
    order.resize(end - begin);
    std::iota(order.begin(), order.end(), begin);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return w.row_index[x] < w.row_index[y]; });
    for (std::size_t s = 0; s < order.size();) {
      const std::uint32_t row = w.row_index[order[s]];
      std::size_t stop = s;
      while (stop < order.size() && w.row_index[order[stop]] == row) ++stop;
      for (std::size_t d = 0; d < w.dim; ++d) {  // one block per row: a running value from G
        T acc = table[row * w.dim + d];
        for (std::size_t i = s; i < stop; ++i) acc = acc + from_value<T>(w.values[order[i] * w.dim + d]);
        table[row * w.dim + d] = acc;
      }
      s = stop;
    }
  }
  for (std::size_t e = 0; e < table.size(); ++e) result[e] = to_value(table[e]);
}

template <class T>
Backend sorted_segment() {
  constexpr Format f = storage_format_v<T>;
  return sparse_backend(with_format("embedding_sorted_segment_{F}", f), f, f, with_format("recursive({F})", f),
                        Determinism::bitwise_deterministic,
                        "per step: stable sort by row, one running sum per row from G: ((G + g1) + g2) + ...",
                        &sorted_segment_run<T>);
}

ACCUCHECK_REGISTER_BACKEND(sorted_segment<float>());

}  // namespace
}  // namespace accucheck::impls
