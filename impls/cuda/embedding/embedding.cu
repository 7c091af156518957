// Embedding backward on the device: cub::DeviceRadixSort, cub::DeviceSegmentedReduce, and the
// MXNet-style EmbeddingGrad kernel, whose order model is embedding_models.cpp (both run
// embedding_grad.h). Compiled with --fmad=false like every kernel with a model.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <numeric>

#include "cuda/common/device_common.cuh"
#include "cuda/embedding/embedding_grad.h"
#include "cuda/embedding/kernels.h"

namespace accucheck::cuda {
namespace dev {

// The sparse workload on the device, and the per-step radix sort of its pairs by row.
template <class T>
struct SparseOnDevice {
  const SparseArgs& args;
  DeviceBuffer rows, values, table, sorted_rows, sorted_pairs, pair_ids, temp;
  int row_bits = 1;

  explicit SparseOnDevice(const SparseArgs& a)
      : args(a),
        rows(a.pairs * sizeof(std::uint32_t)),
        values(a.pairs * a.dim * sizeof(T)),
        table(a.rows * a.dim * sizeof(T)),
        sorted_rows(a.pairs * sizeof(std::uint32_t)),
        sorted_pairs(a.pairs * sizeof(std::uint32_t)),
        pair_ids(a.pairs * sizeof(std::uint32_t)) {
    rows.upload(a.row_index, a.pairs * sizeof(std::uint32_t));
    values.upload(a.values, a.pairs * a.dim * sizeof(T));
    table.upload(a.initial, a.rows * a.dim * sizeof(T));
    std::vector<std::uint32_t> ids(a.pairs);
    std::iota(ids.begin(), ids.end(), 0u);
    pair_ids.upload(ids.data(), a.pairs * sizeof(std::uint32_t));
    while (row_bits < 32 && (std::uint64_t{1} << row_bits) < a.rows) ++row_bits;
  }
  // Sorts pairs [begin, end) by row, stably (LSD radix sort): equal rows keep their pair order.
  void sort_step(std::size_t begin, std::size_t end) {
    const int count = static_cast<int>(end - begin);
    std::size_t bytes = 0;
    const auto* keys_in = rows.as<std::uint32_t>() + begin;
    const auto* ids_in = pair_ids.as<std::uint32_t>() + begin;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, sorted_rows.as<std::uint32_t>(), ids_in,
                                               sorted_pairs.as<std::uint32_t>(), count, 0, row_bits));
    if (temp.bytes() < bytes) temp = DeviceBuffer(bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.as<void>(), bytes, keys_in, sorted_rows.as<std::uint32_t>(), ids_in,
                                               sorted_pairs.as<std::uint32_t>(), count, 0, row_bits));
  }
  void finish() {
    CUDA_CHECK(cudaDeviceSynchronize());
    table.download(args.out, args.rows * args.dim * sizeof(T));
  }
};

// MXNet's EmbeddingGrad: one block per sorted position; the first position of each row's run
// walks the run, each thread owning dimensions d, d+blockDim, ... and adding onto G in order
// (embedding_grad.h, which the CPU model runs too).
template <class T>
__global__ void embedding_grad_kernel(const std::uint32_t* rows, const std::uint32_t* pairs, std::uint32_t count,
                                      const T* values, std::uint64_t dim, T* table) {
  cuda_tree::embedding_grad_block(blockIdx.x, rows, pairs, count, values, dim, table, threadIdx.x, blockDim.x,
                                  [](T a, T b) { return add(a, b); });
}

template <class T>
void launch_embedding_grad(const SparseArgs& a) {
  SparseOnDevice<T> s(a);
  for (std::size_t t = 0; t < a.steps; ++t) {
    const std::size_t begin = a.step_offsets[t], end = a.step_offsets[t + 1];
    if (begin == end || a.dim == 0) continue;
    s.sort_step(begin, end);
    const unsigned threads = cuda_tree::embedding_grad_threads(a.dim);
    embedding_grad_kernel<T><<<static_cast<unsigned>(end - begin), threads>>>(
        s.sorted_rows.template as<std::uint32_t>(), s.sorted_pairs.template as<std::uint32_t>(),
        static_cast<std::uint32_t>(end - begin), s.values.template as<T>(), a.dim, s.table.template as<T>());
    CUDA_CHECK_LAUNCH();
  }
  s.finish();
}

// Gathers the sorted pairs' values dimension-major: gathered[d * count + s] = values[pairs[s]][d].
__global__ void gather_kernel(const std::uint32_t* pairs, std::uint32_t count, const float* values, std::uint64_t dim,
                              float* gathered) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count * dim; i += stride) {
    const std::uint64_t d = i / count, s = i % count;
    gathered[i] = values[pairs[s] * dim + d];
  }
}

// table[row_u][d] = G + segment sum (the segment sum of row u, dimension d, at sums[d * runs + u]).
__global__ void add_segments_kernel(const std::uint32_t* run_rows, std::uint32_t runs, const float* sums,
                                    std::uint64_t dim, float* table) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < runs * dim; i += stride) {
    const std::uint64_t d = i / runs, u = i % runs;
    float& g = table[run_rows[u] * dim + d];
    g = g + sums[i];
  }
}

void launch_sort_segreduce(const SparseArgs& a) {
  SparseOnDevice<float> s(a);
  DeviceBuffer gathered(a.pairs * a.dim * sizeof(float)), sums, run_rows, begins, ends, temp;
  std::vector<std::uint32_t> sorted;
  for (std::size_t t = 0; t < a.steps; ++t) {
    const std::size_t begin = a.step_offsets[t], end = a.step_offsets[t + 1];
    if (begin == end || a.dim == 0) continue;
    const auto count = static_cast<std::uint32_t>(end - begin);
    s.sort_step(begin, end);
    // The runs of equal rows (segment boundaries) are found on the host from the sorted keys.
    sorted.resize(count);
    s.sorted_rows.download(sorted.data(), count * sizeof(std::uint32_t));
    std::vector<std::uint32_t> rows_of_run, run_start;
    for (std::uint32_t i = 0; i < count; ++i)
      if (i == 0 || sorted[i] != sorted[i - 1]) {
        rows_of_run.push_back(sorted[i]);
        run_start.push_back(i);
      }
    const auto runs = static_cast<std::uint32_t>(rows_of_run.size());
    std::vector<std::int64_t> b(runs * a.dim), e(runs * a.dim);
    for (std::uint64_t d = 0; d < a.dim; ++d)
      for (std::uint32_t u = 0; u < runs; ++u) {
        b[d * runs + u] = static_cast<std::int64_t>(d * count + run_start[u]);
        e[d * runs + u] = static_cast<std::int64_t>(d * count + (u + 1 < runs ? run_start[u + 1] : count));
      }
    sums = DeviceBuffer(runs * a.dim * sizeof(float));
    run_rows = DeviceBuffer(runs * sizeof(std::uint32_t));
    begins = DeviceBuffer(b.size() * sizeof(std::int64_t));
    ends = DeviceBuffer(e.size() * sizeof(std::int64_t));
    run_rows.upload(rows_of_run.data(), runs * sizeof(std::uint32_t));
    begins.upload(b.data(), b.size() * sizeof(std::int64_t));
    ends.upload(e.data(), e.size() * sizeof(std::int64_t));
    gather_kernel<<<grid_for(std::uint64_t{count} * a.dim, 256, 4096), 256>>>(
        s.sorted_pairs.as<std::uint32_t>(), count, s.values.as<float>(), a.dim, gathered.as<float>());
    CUDA_CHECK_LAUNCH();
    std::size_t bytes = 0;
    const auto segments = static_cast<std::int64_t>(runs * a.dim);
    CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, bytes, gathered.as<float>(), sums.as<float>(), segments,
                                               begins.as<std::int64_t>(), ends.as<std::int64_t>()));
    if (temp.bytes() < bytes) temp = DeviceBuffer(bytes);
    CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(temp.as<void>(), bytes, gathered.as<float>(), sums.as<float>(), segments,
                                               begins.as<std::int64_t>(), ends.as<std::int64_t>()));
    add_segments_kernel<<<grid_for(std::uint64_t{runs} * a.dim, 256, 4096), 256>>>(
        run_rows.as<std::uint32_t>(), runs, sums.as<float>(), a.dim, s.table.as<float>());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());  // the buffers of this step are replaced by the next
  }
  s.finish();
}

}  // namespace dev

void embedding_grad(Format f, const SparseArgs& args) {
  if (f == Format::f32) return dev::launch_embedding_grad<float>(args);
  if (f == Format::f16) return dev::launch_embedding_grad<__half>(args);
  throw_cuda_failure(__FILE__, __LINE__, "embedding_grad", "unsupported format", "EmbeddingGrad runs f32 and f16");
}

void embedding_sort_segreduce_f32(const SparseArgs& args) { dev::launch_sort_segreduce(args); }

}  // namespace accucheck::cuda
