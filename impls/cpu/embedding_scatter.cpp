// Embedding backward as a sequential scatter-add: for every (row, vector) pair in step and pair
// order, table[row] += vector. Each table element is a recursive sum of its initial value and
// the vectors of its row, in order. The running table is kept in the accumulation format Acc
// and rounded once into the storage format at the end: with Acc = Storage that is the plain
// in-format scatter (recursive(F); bf16/f16 buffers stagnate: tt-metal PR 53386, mxnet-17703),
// with Acc = f32 for f16/bf16 tables it is MXNET_SAFE_ACCUMULATION (widened(recursive(f32),F);
// sound without an underflow term because partial sums of F-values stay on F's grid, as for
// the dense widened backends).
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class Storage, class Acc>
void scatter_run(const SparseWorkload& w, std::span<double> result, const RunOptions&) {
  std::vector<Acc> table(w.initial.size());
  for (std::size_t e = 0; e < table.size(); ++e) table[e] = from_value<Acc>(w.initial[e]);
  for (std::size_t q = 0; q < w.pairs(); ++q) {
    Acc* row = table.data() + static_cast<std::size_t>(w.row_index[q]) * w.dim;
    const double* v = w.values.data() + q * w.dim;
    for (std::size_t d = 0; d < w.dim; ++d) row[d] = row[d] + from_value<Acc>(v[d]);
  }
  for (std::size_t e = 0; e < table.size(); ++e) result[e] = to_value(from_value<Storage>(to_value(table[e])));
}

template <class Storage, class Acc>
Backend scatter(const char* name_template) {
  constexpr Format storage = storage_format_v<Storage>, accumulation = storage_format_v<Acc>;
  return sparse_backend(with_format(name_template, storage), storage, accumulation,
                        recursive_then_rounded_bound(storage, accumulation), Determinism::bitwise_deterministic,
                        storage == accumulation
                            ? "table[row] += v for every pair in order, in the table's format"
                            : "table[row] += v in order in an f32 copy, rounded once into the table",
                        &scatter_run<Storage, Acc>);
}

ACCUCHECK_REGISTER_BACKEND(scatter<double, double>("embedding_scatter_add_{F}"));
ACCUCHECK_REGISTER_BACKEND(scatter<float, float>("embedding_scatter_add_{F}"));
ACCUCHECK_REGISTER_BACKEND(scatter<Half, Half>("embedding_scatter_add_{F}"));
ACCUCHECK_REGISTER_BACKEND(scatter<BFloat16, BFloat16>("embedding_scatter_add_{F}"));
ACCUCHECK_REGISTER_BACKEND(scatter<Half, float>("embedding_scatter_{F}_acc_f32"));
ACCUCHECK_REGISTER_BACKEND(scatter<BFloat16, float>("embedding_scatter_{F}_acc_f32"));

}  // namespace
}  // namespace accucheck::impls
