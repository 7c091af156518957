// A model of embedding backward with atomic scatter-adds (PyTorch's index_add_ and embedding
// backward, TensorFlow's unsorted_segment_sum on GPU): within a step the updates of the pairs
// land in whatever order the hardware serialises the atomics; steps follow each other. The
// order is a permutation of the step's pairs drawn from RunOptions::order_seed with a
// counter-based generator: the same seed gives the same order (a failure replays from the
// workload and the seed), another seed another order. Every element is still a recursive sum
// of its addends, the initial value first, in some order: recursive(F) holds for any order of
// a sequential sum. The class is run-to-run-nondeterministic: on real hardware the order is
// not chosen by anyone.
#include <numeric>

#include "common/counter_rng.h"
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class T>
void atomic_run(const SparseWorkload& w, std::span<double> result, const RunOptions& options) {
  std::vector<T> table(w.initial.size());
  for (std::size_t e = 0; e < table.size(); ++e) table[e] = from_value<T>(w.initial[e]);
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < w.steps; ++t) {
    const std::size_t begin = w.step_offsets[t], end = w.step_offsets[t + 1];
    order.resize(end - begin);
    std::iota(order.begin(), order.end(), begin);
    CounterStream random(options.order_seed, 0xa70311c, t);  // Fisher-Yates from the seed and the step
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random.below(i)]);
    for (std::size_t q : order) {
      T* row = table.data() + static_cast<std::size_t>(w.row_index[q]) * w.dim;
      for (std::size_t d = 0; d < w.dim; ++d) row[d] = row[d] + from_value<T>(w.values[q * w.dim + d]);
    }
  }
  for (std::size_t e = 0; e < table.size(); ++e) result[e] = to_value(table[e]);
}

template <class T>
Backend atomic_order() {
  constexpr Format f = storage_format_v<T>;
  return sparse_backend(with_format("embedding_atomic_order_{F}", f), f, f, with_format("recursive({F})", f),
                        Determinism::run_to_run_nondeterministic,
                        "atomic scatter-add model: each step's pairs in an order drawn from RunOptions::order_seed",
                        &atomic_run<T>);
}

ACCUCHECK_REGISTER_BACKEND(atomic_order<float>());

}  // namespace
}  // namespace accucheck::impls
