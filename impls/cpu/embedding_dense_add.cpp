// Embedding backward through a dense gradient: each step materializes the whole (rows x dim)
// gradient, D = 0 then D[row] += v for every pair in order, and adds it to the buffer
// element by element, G + D (a framework that densifies sparse gradients before accumulating,
// e.g. Embedding without sparse_grad). Untouched rows get G + 0. Per element the same tree as
// segment-then-add (a fresh chain per step, then into G): anyorder(F). G + 0 turns a -0 of an
// untouched row into +0, which no error bound notices (|error| = 0).
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class T>
void dense_add_run(const SparseWorkload& w, std::span<double> result, const RunOptions&) {
  std::vector<T> table = stored_as<T>(w.initial), dense(w.initial.size());
  for (std::size_t t = 0; t < w.steps; ++t) {
    std::fill(dense.begin(), dense.end(), from_value<T>(0.0));
    for (std::size_t q = w.step_offsets[t]; q < w.step_offsets[t + 1]; ++q) {
      T* row = dense.data() + static_cast<std::size_t>(w.row_index[q]) * w.dim;
      for (std::size_t d = 0; d < w.dim; ++d) row[d] = row[d] + from_value<T>(w.values[q * w.dim + d]);
    }
    for (std::size_t e = 0; e < table.size(); ++e) table[e] = table[e] + dense[e];
  }
  write_values(table, result);
}

ACCUCHECK_REGISTER_BACKEND(in_formats<float>(
    sparse_backend, []<class T>() { return &dense_add_run<T>; }, "embedding_dense_add_{F}", "anyorder({F})",
    Determinism::bitwise_deterministic, "per step: a dense zero gradient, D[row] += v, then G += D for every element"));

}  // namespace
}  // namespace accucheck::impls
