// All-reduce order models: a dense workload read as a reduction over P = T + 1 ranks (rank 0's
// buffer is the initial value, rank r's the addends of step r - 1; docs/bounds.md "All-reduce over
// ranks"), each element summed in the association its algorithm uses
// (common/allreduce_orders.h). Every rank ends with the same bits, so one result stands for all.
//
// NCCL's ring and double binary tree (one GPU per node, and eight per node with a chain inside
// the node: NCCL's hierarchical tree), Open MPI's recursive doubling, ring, Rabenseifner and
// basic linear algorithms, and an in-switch reduction (NVLS). 16-bit buffers are summed in their
// own format (NCCL's __hadd, one rounding per addition), or in f32 and rounded once at the end
// (`_acc_f32`: FSDP's reduce_dtype=fp32, the buffer cast to f32 for the all-reduce).
#include <numeric>

#include "common/allreduce_orders.h"
#include "common/counter_rng.h"
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

// Sums element j's P rank values with order(x, j, D), in Accumulator, rounded into Storage.
template <class Storage, class Accumulator, class Order>
DenseRun reduction_run(Order order) {
  return [order](const DenseWorkload& w, std::span<double> result, const RunOptions& options) {
    std::vector<Accumulator> ranks(w.steps + 1);
    for (std::size_t j = 0; j < w.elements; ++j) {
      ranks[0] = from_value<Accumulator>(to_value(from_value<Storage>(w.initial[j])));
      for (std::size_t t = 0; t < w.steps; ++t)
        ranks[t + 1] = from_value<Accumulator>(to_value(from_value<Storage>(w.addends[t * w.elements + j])));
      const Accumulator sum = order(std::span<const Accumulator>(ranks), j, w.elements, options);
      result[j] = to_value(from_value<Storage>(to_value(sum)));
    }
  };
}

// Which formats: the buffer's, and the one it is summed in.
template <class Storage, class Accumulator = Storage>
struct In {};

// allreduce_<algorithm>_<storage>[_acc_<accumulation>].
template <class Storage, class Accumulator, class Order>
Backend reduction(In<Storage, Accumulator>, const std::string& algorithm, const char* inner_kind,
                  Determinism determinism, const std::string& summary, Order order) {
  constexpr Format storage = storage_format_v<Storage>, accumulation = storage_format_v<Accumulator>;
  std::string backend_name = "allreduce_" + algorithm + "_" + std::string(name(storage));
  if (storage != accumulation) backend_name += "_acc_" + std::string(name(accumulation));
  return dense_backend(backend_name, storage, accumulation, then_rounded_bound(inner_kind, storage, accumulation),
                       determinism, summary, reduction_run<Storage, Accumulator>(order));
}

// One algorithm in each of Formats (In<...> types).
template <class... Formats, class Order>
std::vector<Backend> reductions(const std::string& algorithm, const char* inner_kind, Determinism determinism,
                                const std::string& summary, Order order) {
  return {reduction(Formats{}, algorithm, inner_kind, determinism, summary, order)...};
}

// One NCCL algorithm in f32, bf16 and f16, and the 16-bit ones accumulated in f32.
template <class Order>
std::vector<Backend> nccl_algorithm(const std::string& algorithm, const char* inner_kind, const std::string& summary,
                                    Order order) {
  return reductions<In<float>, In<BFloat16>, In<Half>, In<BFloat16, float>, In<Half, float>>(
      algorithm, inner_kind, Determinism::bitwise_deterministic, summary, order);
}
// One Open MPI algorithm on MPI_DOUBLE, MPI_FLOAT and a user-defined bf16 sum.
template <class Order>
std::vector<Backend> mpi_algorithm(const std::string& algorithm, const char* inner_kind, const std::string& summary,
                                   Order order) {
  return reductions<In<double>, In<float>, In<BFloat16>>(algorithm, inner_kind, Determinism::bitwise_deterministic,
                                                         summary, order);
}

using namespace allreduce;

ACCUCHECK_REGISTER_BACKEND(
    nccl_algorithm("nccl_ring", "recursive(",
                   "NCCL ring all-reduce over P = n ranks (one channel): chunk c of the buffer summed around the ring "
                   "from rank c+1 to rank c",
                   []<class T>(std::span<const T> x, std::size_t j, std::size_t elements, const RunOptions&) {
                     return nccl_ring(x, nccl_ring_chunk(j, elements, x.size(), sizeof(T)));
                   }));
ACCUCHECK_REGISTER_BACKEND(
    nccl_algorithm("nccl_tree", "tree(nccl_tree:1,",
                   "NCCL double binary tree all-reduce over P = n ranks, one per node: each node adds its children's "
                   "sums to its own; the first half of the buffer on tree 0, the rest on tree 1",
                   []<class T>(std::span<const T> x, std::size_t j, std::size_t elements, const RunOptions&) {
                     return nccl_tree(x, 1, nccl_tree_of(j, elements));
                   }));
ACCUCHECK_REGISTER_BACKEND(nccl_algorithm(
    "nccl_tree_8gpu", "tree(nccl_tree:8,",
    "NCCL's hierarchical tree all-reduce over P = n ranks, 8 per node: a chain inside each node, the double "
    "binary tree across nodes",
    []<class T>(std::span<const T> x, std::size_t j, std::size_t elements, const RunOptions&) {
      return nccl_tree(x, 8, nccl_tree_of(j, elements));
    }));

// The switch's order is not documented: a fresh order per element and run from order_seed.
// CUDA >= 12.2 builds of NCCL ask multimem.ld_reduce for f32 accumulation of f16/bf16.
std::vector<Backend> nvls_reduction() {
  const auto nvls = []<class T>(std::span<const T> x, std::size_t j, std::size_t, const RunOptions& options) {
    std::vector<std::size_t> order(x.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    CounterStream random(options.order_seed, 0x4e564c53, j);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random.below(i)]);
    T acc = x[order[0]];
    for (std::size_t i = 1; i < order.size(); ++i) acc = acc + x[order[i]];
    return acc;
  };
  const std::string nvls_summary =
      "in-switch all-reduce (NCCL NVLS, multimem.ld_reduce) over P = n ranks: the switch's order drawn from "
      "RunOptions::order_seed, 16-bit values accumulated in f32";
  return reductions<In<float>, In<BFloat16, float>, In<Half, float>>(
      "nvls", "anyorder(", Determinism::run_to_run_nondeterministic, nvls_summary, nvls);
}
ACCUCHECK_REGISTER_BACKEND(nvls_reduction());

ACCUCHECK_REGISTER_BACKEND(mpi_algorithm(
    "mpi_recursive_doubling", "tree(pairwise,",
    "Open MPI recursive doubling all-reduce over P = n ranks: pairs (2i, 2i+1) folded when P is not a power "
    "of two, then exchanges at distance 1, 2, 4, ...",
    []<class T>(std::span<const T> x, std::size_t, std::size_t, const RunOptions&) {
      return mpi_recursive_doubling(x);
    }));
ACCUCHECK_REGISTER_BACKEND(
    mpi_algorithm("mpi_ring", "recursive(",
                  "Open MPI ring all-reduce over P = n ranks: block b summed around the ring from rank b; recursive "
                  "doubling below P elements",
                  []<class T>(std::span<const T> x, std::size_t j, std::size_t elements, const RunOptions&) {
                    return mpi_ring(x, j, elements);
                  }));
ACCUCHECK_REGISTER_BACKEND(
    mpi_algorithm("mpi_rabenseifner", "recursive(",
                  "Open MPI Rabenseifner all-reduce (reduce-scatter by recursive halving, allgather) over P = n ranks; "
                  "basic linear below the power of two <= P elements",
                  []<class T>(std::span<const T> x, std::size_t, std::size_t elements, const RunOptions&) {
                    return mpi_rabenseifner(x, elements);
                  }));
ACCUCHECK_REGISTER_BACKEND(mpi_algorithm(
    "mpi_basic_linear", "recursive(",
    "Open MPI basic linear all-reduce over P = n ranks: reduced at rank 0 from the last rank down, then "
    "broadcast",
    []<class T>(std::span<const T> x, std::size_t, std::size_t, const RunOptions&) { return mpi_basic_linear(x); }));

}  // namespace
}  // namespace accucheck::impls
