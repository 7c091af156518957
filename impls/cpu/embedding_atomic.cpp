// A model of embedding backward with atomic scatter-adds (PyTorch's index_add_ and embedding
// backward, TensorFlow's unsorted_segment_sum on GPU): within a step the updates of the pairs
// land in whatever order the hardware serialises the atomics; steps follow each other. The
// order is a permutation of the step's pairs drawn from RunOptions::order_seed with a
// counter-based generator: the same seed gives the same order (a failure replays from the
// workload and the seed), another seed another order. Every element is still a recursive sum
// of its addends, the initial value first, in some order: recursive(F) holds for any order of
// a sequential sum. The class is run-to-run-nondeterministic: on real hardware the order is
// not chosen by anyone.
#include <utility>

#include "common/counter_rng.h"
#include "common/per_element.h"
#include "common/scatter_order.h"

namespace accucheck::impls {
namespace {

template <class T>
void atomic_run(const SparseWorkload& w, std::span<double> result, const RunOptions& options) {
  scatter_in_step_order<T>(w, result, [&](std::size_t t, std::vector<std::size_t>& order) {
    CounterStream random(options.order_seed, 0xa70311c, t);  // Fisher-Yates from the seed and the step
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random.below(i)]);
  });
}

ACCUCHECK_REGISTER_BACKEND(in_formats<float>(
    sparse_backend, []<class T>() { return &atomic_run<T>; }, "embedding_atomic_order_{F}", "recursive({F})",
    Determinism::run_to_run_nondeterministic,
    "atomic scatter-add model: each step's pairs in an order drawn from RunOptions::order_seed"));

}  // namespace
}  // namespace accucheck::impls
