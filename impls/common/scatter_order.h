// Embedding backward as a scatter in a chosen order per step, shared by the sparse backends and
// order models whose only difference is that order: the table starts from the gradient G
// (grad_req 'add') and each pair's vector is added to its row, a step's pairs in the order
// `arrange(t, order)` leaves in `order` (on entry the step's pair indices, ascending).
#pragma once

#include <algorithm>
#include <numeric>
#include <span>
#include <vector>

#include "common/per_element.h"

namespace accucheck::impls {

template <class T, class Arrange>
void scatter_in_step_order(const SparseWorkload& w, std::span<double> result, Arrange&& arrange) {
  std::vector<T> table = stored_as<T>(w.initial);
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < w.steps; ++t) {
    order.resize(w.step_offsets[t + 1] - w.step_offsets[t]);
    std::iota(order.begin(), order.end(), w.step_offsets[t]);
    arrange(t, order);
    for (std::size_t q : order) {
      T* row = table.data() + static_cast<std::size_t>(w.row_index[q]) * w.dim;
      for (std::size_t d = 0; d < w.dim; ++d) row[d] = row[d] + from_value<T>(w.values[q * w.dim + d]);
    }
  }
  write_values(table, result);
}

// MXNet's EmbeddingGrad order: a stable sort of the step's pairs by row (CUB's radix sort keeps
// equal rows in pair order). Its kernel runs one block per row, a running sum from G over the
// row's vectors: per element the same additions in the same order as this scatter.
template <class T>
void sorted_by_row_run(const SparseWorkload& w, std::span<double> result, const RunOptions&) {
  scatter_in_step_order<T>(w, result, [&](std::size_t, std::vector<std::size_t>& order) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return w.row_index[x] < w.row_index[y]; });
  });
}

}  // namespace accucheck::impls
