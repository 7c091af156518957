// CPU order model of the MXNet-style CUDA EmbeddingGrad kernel (kernels/sparse.cu): per step,
// the step's (row, vector) pairs are sorted by row with a stable radix sort (cub::DeviceRadixSort
// keeps equal rows in pair order), one block per distinct row starts from the row's gradient G
// and adds the row's vectors in sorted order, ((G + g1) + g2) + ... (mxnet-16686, GPU path).
// Every element is a sequential sum in step and pair order: recursive(F).
#include "common/scatter_order.h"

namespace accucheck::impls {
namespace {

const bool registered = [] {
  for (Format f : {Format::f32, Format::f16}) {
    Registration(sparse_backend(with_format("cuda_model_embedding_grad_{F}", f), f, f, with_format("recursive({F})", f),
                                Determinism::bitwise_deterministic,
                                "CPU order model of cuda_embedding_grad: per step a stable sort by row, one block per "
                                "row adding its vectors onto G in order",
                                f == Format::f32 ? SparseRun(&sorted_by_row_run<float>) : SparseRun(&sorted_by_row_run<Half>)));
  }
  return true;
}();

}  // namespace
}  // namespace accucheck::impls
