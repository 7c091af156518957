// Library reductions: cub::DeviceReduce::Sum (the dense backends and the benchmark's reference
// point) and embedding backward on the device (cub::DeviceRadixSort, cub::DeviceSegmentedReduce,
// and the MXNet-style EmbeddingGrad kernel, whose order model is models/embedding_models.cpp).
// Compiled with --fmad=false like every kernel with a model.
//
// CUB's deterministic "gpu_to_gpu" reduction (cuda::execution::require(determinism::gpu_to_gpu))
// first shipped in CCCL 3.1; the CUDA 13.0 toolkit carries CCCL 3.0.1 (CUB_VERSION 300001),
// which has neither cuda::execution nor the environment overloads. When the build finds the
// headers of PyPI's nvidia-cuda-cccl (impls/cuda/CMakeLists.txt puts them before the toolkit's
// for every .cu file), ACCUCHECK_HAVE_CUB_DETERMINISM is set and cub_reduce_with_determinism runs
// Sum under gpu_to_gpu or run_to_run.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#if ACCUCHECK_HAVE_CUB_DETERMINISM
#include <cuda/execution>
#endif

#include <algorithm>
#include <numeric>

#include "cuda/common/embedding_grad.h"
#include "cuda/kernels/api.h"
#include "cuda/kernels/device_common.cuh"

namespace accucheck::cuda {
namespace dev {

template <class T>
void cub_sum(const T* x, std::uint64_t n, T* out, DeviceBuffer& temp) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, x, out, static_cast<std::int64_t>(n)));
  if (temp.bytes() < bytes) temp = DeviceBuffer(bytes);
  CUDA_CHECK(cub::DeviceReduce::Sum(temp.as<void>(), bytes, x, out, static_cast<std::int64_t>(n)));
}

template <class T>
void launch_cub_reduce(const T* host_columns, std::uint64_t n, std::uint64_t sums, T* host_out) {
  if (sums == 0) return;
  DeviceBuffer x(n * sums * sizeof(T)), out(sums * sizeof(T)), temp;
  x.upload(host_columns, n * sums * sizeof(T));
  for (std::uint64_t e = 0; e < sums; ++e) cub_sum(x.as<T>() + e * n, n, out.as<T>() + e, temp);
  CUDA_CHECK(cudaDeviceSynchronize());
  out.download(host_out, sums * sizeof(T));
}

#if ACCUCHECK_HAVE_CUB_DETERMINISM
// Sum through the environment overload (CUB allocates its temporary storage itself).
template <class T, class Determinism>
void launch_cub_reduce_with(const T* host_columns, std::uint64_t n, std::uint64_t sums, T* host_out,
                            Determinism determinism) {
  if (sums == 0) return;
  DeviceBuffer x(n * sums * sizeof(T)), out(sums * sizeof(T));
  x.upload(host_columns, n * sums * sizeof(T));
  const auto env = ::cuda::execution::require(determinism);
  for (std::uint64_t e = 0; e < sums; ++e)
    CUDA_CHECK(cub::DeviceReduce::Sum(x.as<T>() + e * n, out.as<T>() + e, static_cast<std::int64_t>(n), env));
  CUDA_CHECK(cudaDeviceSynchronize());
  out.download(host_out, sums * sizeof(T));
}
#endif

template <class T>
double cub_sum_of_device(const T* x, std::uint64_t n) {
  static DeviceBuffer* temp = new DeviceBuffer;  // reused: the benchmark times the reduction, not cudaMalloc
  static DeviceBuffer* out = new DeviceBuffer(sizeof(double));
  cub_sum(x, n, out->as<T>(), *temp);
  T r;
  CUDA_CHECK(cudaMemcpy(&r, out->as<T>(), sizeof r, cudaMemcpyDeviceToHost));
  return static_cast<double>(r);
}

// ---- embedding backward -------------------------------------------------------------------------

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
// (common/embedding_grad.h, which the CPU model runs too).
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

void cub_reduce(Format f, const void* columns, std::size_t n, std::size_t elements, void* out) {
  if (f == Format::f64)
    return dev::launch_cub_reduce<double>(static_cast<const double*>(columns), n, elements, static_cast<double*>(out));
  if (f == Format::f32)
    return dev::launch_cub_reduce<float>(static_cast<const float*>(columns), n, elements, static_cast<float*>(out));
  throw_cuda_failure(__FILE__, __LINE__, "cub_reduce", "unsupported format", "the CUB backends run f32 and f64");
}

#if ACCUCHECK_HAVE_CUB_DETERMINISM
void cub_reduce_with_determinism(Format f, CubDeterminism d, const void* columns, std::size_t n, std::size_t elements,
                                 void* out) {
  namespace det = ::cuda::execution::determinism;
  const auto run = [&](auto determinism) {
    if (f == Format::f64)
      return dev::launch_cub_reduce_with<double>(static_cast<const double*>(columns), n, elements,
                                                 static_cast<double*>(out), determinism);
    if (f == Format::f32)
      return dev::launch_cub_reduce_with<float>(static_cast<const float*>(columns), n, elements,
                                                static_cast<float*>(out), determinism);
    throw_cuda_failure(__FILE__, __LINE__, "cub_reduce_with_determinism", "unsupported format",
                       "the CUB backends run f32 and f64");
  };
  if (d == CubDeterminism::gpu_to_gpu)
    run(det::gpu_to_gpu);
  else
    run(det::run_to_run);
}
#endif

double cub_sum_device(const float* x, std::size_t n) { return dev::cub_sum_of_device(x, n); }
double cub_sum_device(const double* x, std::size_t n) { return dev::cub_sum_of_device(x, n); }

void embedding_grad(Format f, const SparseArgs& args) {
  if (f == Format::f32) return dev::launch_embedding_grad<float>(args);
  if (f == Format::f16) return dev::launch_embedding_grad<__half>(args);
  throw_cuda_failure(__FILE__, __LINE__, "embedding_grad", "unsupported format", "EmbeddingGrad runs f32 and f16");
}

void embedding_sort_segreduce_f32(const SparseArgs& args) { dev::launch_sort_segreduce(args); }

}  // namespace accucheck::cuda
