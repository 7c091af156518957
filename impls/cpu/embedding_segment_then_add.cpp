// Embedding backward as manual accumulation computes it (mxnet-16686: acc += p.grad()): each
// step's gradient of a row is reduced on its own, s = (g1 + g2) + ... (the kernel with
// grad_req 'write'), and then added to the buffer, G + s. Per element a tree (one chain per
// step, then the step sums into G in order), not a left-to-right chain: anyorder(F).
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class T>
void segment_then_add_run(const SparseWorkload& w, std::span<double> result, const RunOptions&) {
  std::vector<T> table = stored_as<T>(w.initial), segment(w.initial.size());
  std::vector<char> touched(w.rows, 0);
  std::vector<std::uint32_t> rows_of_step;
  for (std::size_t t = 0; t < w.steps; ++t) {
    rows_of_step.clear();
    for (std::size_t q = w.step_offsets[t]; q < w.step_offsets[t + 1]; ++q) {
      const std::uint32_t row = w.row_index[q];
      T* s = segment.data() + static_cast<std::size_t>(row) * w.dim;
      const double* v = w.values.data() + q * w.dim;
      if (!touched[row]) {  // the first vector of the row in this step starts its segment sum
        touched[row] = 1;
        rows_of_step.push_back(row);
        for (std::size_t d = 0; d < w.dim; ++d) s[d] = from_value<T>(v[d]);
      } else {
        for (std::size_t d = 0; d < w.dim; ++d) s[d] = s[d] + from_value<T>(v[d]);
      }
    }
    for (std::uint32_t row : rows_of_step) {
      touched[row] = 0;
      for (std::size_t d = 0; d < w.dim; ++d)
        table[row * w.dim + d] = table[row * w.dim + d] + segment[row * w.dim + d];
    }
  }
  write_values(table, result);
}

ACCUCHECK_REGISTER_BACKEND(in_formats<float>(
    sparse_backend, []<class T>() { return &segment_then_add_run<T>; }, "embedding_segment_then_add_{F}",
    "anyorder({F})", Determinism::bitwise_deterministic,
    "per step: s = (g1 + g2) + ... per row on its own, then G + s (manual accumulation)"));

}  // namespace
}  // namespace accucheck::impls
