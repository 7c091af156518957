// Run-time registration of the GPU backends (device.h). Each backend converts the workload to
// the kernel's raw values, calls its entry point in kernels/api.h, and converts the result back.
// The bounds are those of docs/bounds.md, "CUDA backends"; each deterministic kernel has a CPU
// order model (models/) registered in every build, and cuda_backends_test checks on a GPU that
// kernel and model agree bit for bit.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "checking/backend.h"
#include "common/per_element.h"
#include "cuda/device.h"
#include "cuda/kernels/api.h"
#include "cuda/models/tree_models.h"

namespace accucheck::cuda {
namespace {

DeviceStatus probe() {
  DeviceStatus s;
  if (const char* off = std::getenv("ACCUCHECK_CUDA_DISABLE"); off && *off && std::strcmp(off, "0") != 0) {
    s.description = "no CUDA device used: ACCUCHECK_CUDA_DISABLE is set";
    return s;
  }
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    s.description =
        std::string("no CUDA device: cudaGetDeviceCount: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    cudaGetLastError();  // clear the sticky error state of the runtime
    return s;
  }
  if (count == 0) {
    s.description = "no CUDA device: cudaGetDeviceCount found 0";
    return s;
  }
  cudaDeviceProp prop{};
  if (const cudaError_t p = cudaGetDeviceProperties(&prop, 0); p != cudaSuccess) {
    s.description = std::string("no usable CUDA device: cudaGetDeviceProperties: ") + cudaGetErrorString(p);
    return s;
  }
  int driver = 0;
  cudaDriverGetVersion(&driver);
  char text[512];
  std::snprintf(text, sizeof text, "%s (sm_%d%d, %.0f GiB, %d SMs, driver %d.%d)", prop.name, prop.major, prop.minor,
                static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), prop.multiProcessorCount,
                driver / 1000, (driver % 1000) / 10);
  s.description = text;
  if (prop.major < 9) {
    s.description += ": older than the sm_90 code of this build, no GPU backend registered";
    return s;
  }
  s.usable = true;
  return s;
}

// ---- raw values ---------------------------------------------------------------------------------

std::size_t raw_size(Format f) { return f == Format::f64 ? 8 : f == Format::f32 ? 4 : 2; }

void put_raw(std::vector<unsigned char>& out, std::size_t at, double v, Format f) {
  switch (f) {
    case Format::f64: std::memcpy(out.data() + at * 8, &v, 8); return;
    case Format::f32: {
      const float x = static_cast<float>(v);
      std::memcpy(out.data() + at * 4, &x, 4);
      return;
    }
    default: {
      const auto bits = static_cast<std::uint16_t>(encode(v, f));
      std::memcpy(out.data() + at * 2, &bits, 2);
      return;
    }
  }
}

double get_raw(const std::vector<unsigned char>& in, std::size_t at, Format f) {
  switch (f) {
    case Format::f64: {
      double v;
      std::memcpy(&v, in.data() + at * 8, 8);
      return v;
    }
    case Format::f32: {
      float x;
      std::memcpy(&x, in.data() + at * 4, 4);
      return x;
    }
    default: {
      std::uint16_t bits;
      std::memcpy(&bits, in.data() + at * 2, 2);
      return decode(bits, f);
    }
  }
}

double term(const DenseWorkload& w, std::size_t i, std::size_t j) {
  return i == 0 ? w.initial[j] : w.addends[(i - 1) * w.elements + j];
}

// Sum j's terms at [j*n, (j+1)*n), raw values of `as` (the storage format, or f32 for the
// exact kernel's float path).
std::vector<unsigned char> columns(const DenseWorkload& w, Format as) {
  const std::size_t n = w.steps + 1;
  std::vector<unsigned char> out(n * w.elements * raw_size(as));
  for (std::size_t j = 0; j < w.elements; ++j)
    for (std::size_t i = 0; i < n; ++i) put_raw(out, j * n + i, term(w, i, j), as);
  return out;
}

using ColumnKernel = void (*)(Format, const void*, std::size_t, std::size_t, void*);

DenseRun column_run(ColumnKernel kernel, Format f) {
  return [kernel, f](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    const auto in = columns(w, f);
    std::vector<unsigned char> out(w.elements * raw_size(f));
    kernel(f, in.data(), w.steps + 1, w.elements, out.data());
    for (std::size_t j = 0; j < w.elements; ++j) result[j] = get_raw(out, j, f);
  };
}

DenseRun ftz_run() {
  return [](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    const auto in = columns(w, Format::f32);
    std::vector<float> out(w.elements);
    warp_tree_ftz_f32(reinterpret_cast<const float*>(in.data()), w.steps + 1, w.elements, out.data());
    for (std::size_t j = 0; j < w.elements; ++j) result[j] = out[j];
  };
}

DenseRun atomic_run(Format f) {
  return [f](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    std::vector<unsigned char> initial(w.elements * raw_size(f)), addends(w.addends.size() * raw_size(f)),
        out(w.elements * raw_size(f));
    for (std::size_t j = 0; j < w.elements; ++j) put_raw(initial, j, w.initial[j], f);
    for (std::size_t q = 0; q < w.addends.size(); ++q) put_raw(addends, q, w.addends[q], f);
    atomic_scatter(f, initial.data(), addends.data(), w.elements, w.steps, out.data());
    for (std::size_t j = 0; j < w.elements; ++j) result[j] = get_raw(out, j, f);
  };
}

DenseRun exact_run(Format f) {
  return [f](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    const Format as = f == Format::f64 ? Format::f64 : Format::f32;
    const auto in = columns(w, as);
    exact_columns(f, in.data(), w.steps + 1, w.elements, result.data());
  };
}

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

std::vector<std::string>& names() {
  static std::vector<std::string> list;
  return list;
}

void add(Backend b) {
  b.device = Device::cuda;
  names().push_back(b.name);
  Registry::global().add(std::move(b));
}

void register_all() {
  using impls::with_format;
  const std::string warp = cuda_models::shape_text(cuda_tree::kWarpTree);
  const std::string block = cuda_models::shape_text(cuda_tree::kBlockReduce);
  for (Format f : all_formats) {
    const std::string F(name(f));
    add(dense_backend("cuda_warp_tree_" + F, f, f, "tree(" + warp + "," + F + ")", Determinism::bitwise_deterministic,
                      "one warp per element: lane l sums terms l, l+32, ... in order, then __shfl_down_sync 16..1 "
                      "(model: cuda_model_warp_tree_" +
                          F + ")",
                      column_run(&warp_tree, f)));
    add(dense_backend("cuda_block_reduce_" + F, f, f, "tree(" + block + "," + F + ")",
                      Determinism::bitwise_deterministic,
                      "256 threads x 4 items per tile over min(tiles, 1024) blocks, warp and block shuffle trees, a "
                      "deterministic one-block second pass (model: cuda_model_block_reduce_" +
                          F + ")",
                      column_run(&block_reduce, f)));
    add(dense_backend("cuda_exact_superacc_" + F, f, f, "correctly_rounded", Determinism::order_independent,
                      "one thread per element, carry-save superaccumulator (exact/superacc.h), RNE into " + F,
                      exact_run(f)));
  }
  add(dense_backend("cuda_warp_tree_ftz_f32", Format::f32, Format::f32, "ftz(tree(" + warp + ",f32),f32)",
                    Determinism::bitwise_deterministic,
                    "the warp tree compiled with --use_fast_math (flush-to-zero) (model: cuda_model_warp_tree_ftz_f32)",
                    ftz_run()));
  for (Format f : {Format::f64, Format::f32}) {
    const std::string F(name(f));
    add(dense_backend("cuda_kahan_" + F, f, f, "kahan(" + F + ")", Determinism::bitwise_deterministic,
                      "one thread per element, Kahan over its terms (model: cuda_model_kahan_" + F + ")",
                      column_run(&kahan, f)));
    add(dense_backend(
        "cuda_cub_reduce_" + F, f, f, "anyorder(" + F + ")", Determinism::bitwise_deterministic,
        "cub::DeviceReduce::Sum per element (CUB's tree: run-to-run deterministic on one GPU, not modelled)",
        column_run(&cub_reduce, f)));
#if ACCUCHECK_HAVE_CUB_DETERMINISM
    // CCCL >= 3.1 (the nvidia-cuda-cccl headers): the binned accumulator of gpu_to_gpu, whose CPU
    // model is cuda_model_cub_rfa_F, and the env overload's run_to_run tree.
    const std::string W = f == Format::f64 ? "40" : "13";
    add(dense_backend("cuda_cub_gpu_to_gpu_" + F, f, f, "reproducible_binned(3," + W + "," + F + ")",
                      Determinism::order_independent,
                      "cub::DeviceReduce::Sum with determinism::gpu_to_gpu (3-fold binned accumulator; model: "
                      "cuda_model_cub_rfa_" +
                          F + ")",
                      column_run(
                          [](Format g, const void* columns, std::size_t n, std::size_t elements, void* out) {
                            cub_reduce_with_determinism(g, CubDeterminism::gpu_to_gpu, columns, n, elements, out);
                          },
                          f)));
    add(dense_backend("cuda_cub_run_to_run_" + F, f, f, "anyorder(" + F + ")", Determinism::bitwise_deterministic,
                      "cub::DeviceReduce::Sum with determinism::run_to_run (CUB's tree for this GPU, not modelled)",
                      column_run(
                          [](Format g, const void* columns, std::size_t n, std::size_t elements, void* out) {
                            cub_reduce_with_determinism(g, CubDeterminism::run_to_run, columns, n, elements, out);
                          },
                          f)));
#endif
  }
  add(dense_backend(
      "cuda_atomic_f32", Format::f32, Format::f32, "ftz(anyorder(f32),f32)", Determinism::run_to_run_nondeterministic,
      "atomicAdd (red.global.add.f32, flushes subnormals) of every addend onto the buffer", atomic_run(Format::f32)));
  add(dense_backend("cuda_atomic_f64", Format::f64, Format::f64, "anyorder(f64)",
                    Determinism::run_to_run_nondeterministic, "atomicAdd of every addend onto the buffer",
                    atomic_run(Format::f64)));
  add(dense_backend("cuda_atomic_f16x2", Format::f16, Format::f16, "anyorder(f16)",
                    Determinism::run_to_run_nondeterministic, "atomicAdd on __half2 pairs of elements",
                    atomic_run(Format::f16)));
  add(dense_backend("cuda_atomic_bf16x2", Format::bf16, Format::bf16, "anyorder(bf16)",
                    Determinism::run_to_run_nondeterministic, "atomicAdd on __nv_bfloat162 pairs of elements",
                    atomic_run(Format::bf16)));
  for (Format f : {Format::f32, Format::f16}) {
    const std::string F(name(f));
    add(sparse_backend("cuda_embedding_grad_" + F, f, f, "recursive(" + F + ")", Determinism::bitwise_deterministic,
                       "MXNet EmbeddingGrad: per step a stable radix sort by row, one block per row adding onto G in "
                       "order (model: cuda_model_embedding_grad_" +
                           F + ")",
                       sparse_run(f, false)));
  }
  add(sparse_backend("cuda_embedding_sort_segreduce_f32", Format::f32, Format::f32, "anyorder(f32)",
                     Determinism::bitwise_deterministic,
                     "per step: radix sort by row, cub::DeviceSegmentedReduce::Sum per row, then G + segment sum",
                     sparse_run(Format::f32, true)));
  register_cublas_backends(names());
#if ACCUCHECK_HAVE_NCCL
  register_nccl_backends(names());
#endif
}

}  // namespace

const DeviceStatus& device_status() {
  static const DeviceStatus status = probe();
  return status;
}

const std::vector<std::string>& register_gpu_backends() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (device_status().usable) register_all();
  });
  return names();
}

namespace {
// The static initializer: this library is linked whole-archive into accucheck::impls.
const bool registered = (register_gpu_backends(), true);
}  // namespace

}  // namespace accucheck::cuda
