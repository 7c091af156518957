// The GPU embedding-backward backends (embedding.cu); the CPU model of EmbeddingGrad:
// embedding_models.cpp.
#include "cuda/common/raw_values.h"
#include "cuda/device.h"
#include "cuda/embedding/kernels.h"

namespace accucheck::cuda {
namespace {

SparseRun sparse_run(Format f, bool segmented) {
  return [f, segmented](const SparseWorkload& w, std::span<double> result, const RunOptions&) {
    std::vector<unsigned char> values(w.values.size() * raw_size(f)), initial(w.initial.size() * raw_size(f)),
        out(w.initial.size() * raw_size(f));
    for (std::size_t q = 0; q < w.values.size(); ++q) put_raw(values, q, w.values[q], f);
    for (std::size_t e = 0; e < w.initial.size(); ++e) put_raw(initial, e, w.initial[e], f);
    SparseArgs a;
    a.rows = w.rows;
    a.dim = w.dim;
    a.steps = w.steps;
    a.step_offsets = w.step_offsets.data();
    a.row_index = w.row_index.data();
    a.pairs = w.pairs();
    a.values = values.data();
    a.initial = initial.data();
    a.out = out.data();
    if (segmented)
      embedding_sort_segreduce_f32(a);
    else
      embedding_grad(f, a);
    for (std::size_t e = 0; e < w.initial.size(); ++e) result[e] = get_raw(out, e, f);
  };
}

std::vector<Backend> embedding_backends() {
  std::vector<Backend> backends;
  for (Format f : {Format::f32, Format::f16}) {
    const std::string F(name(f));
    backends.push_back(sparse_backend("cuda_embedding_grad_" + F, f, f, "recursive(" + F + ")",
                                      Determinism::bitwise_deterministic,
                                      "MXNet EmbeddingGrad: per step a stable radix sort by row, one block per row "
                                      "adding onto G in order (model: cuda_model_embedding_grad_" +
                                          F + ")",
                                      sparse_run(f, false)));
  }
  backends.push_back(sparse_backend("cuda_embedding_sort_segreduce_f32", Format::f32, Format::f32, "anyorder(f32)",
                                    Determinism::bitwise_deterministic,
                                    "per step: radix sort by row, cub::DeviceSegmentedReduce::Sum per row, then G + "
                                    "segment sum",
                                    sparse_run(Format::f32, true)));
  return backends;
}

ACCUCHECK_REGISTER_BACKEND(on_gpu(&embedding_backends));

}  // namespace
}  // namespace accucheck::cuda
