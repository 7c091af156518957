// Embedding backward as MXNet's GPU EmbeddingGrad runs it under grad_req 'add': each step's
// indices are sorted (a stable radix sort keeps the pairs of one row in their original order),
// one block per distinct row starts from the row's existing gradient G and adds the row's
// vectors in sorted order: ((G + g1) + g2) + ... (mxnet-16686, GPU path). Every element is a
// recursive sum in step and pair order: recursive(F), and bit for bit the sequential scatter.
#include "common/per_element.h"
#include "common/scatter_order.h"

namespace accucheck::impls {
namespace {

ACCUCHECK_REGISTER_BACKEND(in_formats<float>(
    sparse_backend, []<class T>() { return &sorted_by_row_run<T>; }, "embedding_sorted_segment_{F}", "recursive({F})",
    Determinism::bitwise_deterministic,
    "per step: stable sort by row, one running sum per row from G: ((G + g1) + g2) + ..."));

}  // namespace
}  // namespace accucheck::impls
