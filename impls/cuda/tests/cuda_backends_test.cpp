// The GPU backends on a GPU (label gpu; each test skips, saying why, when no usable device is
// present):
//  - every deterministic kernel with a CPU order model returns its model's result bit for bit
//    (the kernels are built with --fmad=false; the models are what CI property-tests);
//  - the --use_fast_math warp tree equals its flush-to-zero model where no subnormal can arise,
//    and stays within its ftz bound where they do;
//  - atomicAdd on f32 flushes subnormals as the model (and the stated ftz bound) assume;
//  - the atomics and the library backends (CUB, cuBLAS) stay within their stated bounds.
// The property suite (properties/) covers every GPU backend as well when a device is present:
// they are in the registry then.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "accucheck/testing/backends.h"
#include "checking/backend.h"
#include "checking/choice.h"
#include "checking/families.h"
#include "checking/judge.h"
#include "cuda/cub/binned_accumulator.h"
#include "cuda/device.h"

namespace accucheck {
namespace {

// ci/gpu-check.sh sets ACCUCHECK_GPU_TEST_SMALL under compute-sanitizer (10-100x slower).
bool small() { return std::getenv("ACCUCHECK_GPU_TEST_SMALL") != nullptr; }

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::device_status().usable) GTEST_SKIP() << "GPU test skipped: " << cuda::device_status().description;
  }
  static const Backend& backend(const std::string& name) { return test::registered_backend(name); }
  static std::vector<double> run(const Backend& b, const Workload& w, std::uint64_t seed = 0) {
    return test::results_of(b, w, RunOptions{0, seed});
  }
};

// Dense workload of `elements` sums of n terms (n - 1 steps), values from `value`.
template <class Value>
DenseWorkload dense(Format f, std::size_t elements, std::size_t n, Value value) {
  DenseWorkload w;
  w.format = f;
  w.elements = elements;
  w.steps = n - 1;
  for (std::size_t j = 0; j < elements; ++j) w.initial.push_back(round_to_format(value(), f));
  for (std::size_t q = 0; q < (n - 1) * elements; ++q) w.addends.push_back(round_to_format(value(), f));
  w.family = "cuda_backends_test";
  return w;
}

std::string mismatch(const Backend& gpu, const Backend& model, const Workload& w, const std::vector<double>& a,
                     const std::vector<double>& b) {
  for (std::size_t j = 0; j < a.size(); ++j)
    if (!same_result_bits(a[j], b[j]))
      return gpu.name + " vs " + model.name + " on " + describe_shape(w) + ": element " + std::to_string(j) + ": " +
             hex_float(a[j]) + " != " + hex_float(b[j]);
  return "";
}

const char* kModelled[][2] = {
    {"cuda_warp_tree_f64", "cuda_model_warp_tree_f64"},
    {"cuda_warp_tree_f32", "cuda_model_warp_tree_f32"},
    {"cuda_warp_tree_f16", "cuda_model_warp_tree_f16"},
    {"cuda_warp_tree_bf16", "cuda_model_warp_tree_bf16"},
    {"cuda_block_reduce_f64", "cuda_model_block_reduce_f64"},
    {"cuda_block_reduce_f32", "cuda_model_block_reduce_f32"},
    {"cuda_block_reduce_f16", "cuda_model_block_reduce_f16"},
    {"cuda_block_reduce_bf16", "cuda_model_block_reduce_bf16"},
    {"cuda_kahan_f64", "cuda_model_kahan_f64"},
    {"cuda_kahan_f32", "cuda_model_kahan_f32"},
    {"cuda_exact_superacc_f64", "cuda_model_exact_superacc_f64"},
    {"cuda_exact_superacc_f32", "cuda_model_exact_superacc_f32"},
    {"cuda_exact_superacc_f16", "cuda_model_exact_superacc_f16"},
    {"cuda_exact_superacc_bf16", "cuda_model_exact_superacc_bf16"},
    {"cuda_embedding_grad_f32", "cuda_model_embedding_grad_f32"},
    {"cuda_embedding_grad_f16", "cuda_model_embedding_grad_f16"},
};

TEST_F(Gpu, DeterministicKernelsEqualTheirModelsOnGeneratedWorkloads) {
  GenerationLimits limits;
  for (const auto& pair : kModelled) {
    const Backend& gpu = backend(pair[0]);
    const Backend& model = backend(pair[1]);
    const WorkloadKind kind = gpu.supports(WorkloadKind::sparse) ? WorkloadKind::sparse : WorkloadKind::dense;
    for (std::uint64_t seed = 1; seed <= (small() ? 15u : 150u); ++seed) {
      SeededChoiceStream s(seed * 7919 + 13);
      const Workload w = generate(s, gpu.storage, limits, kind);
      const std::string diff = mismatch(gpu, model, w, run(gpu, w), run(model, w));
      ASSERT_TRUE(diff.empty()) << diff;
    }
  }
}

TEST_F(Gpu, DeterministicKernelsEqualTheirModelsAcrossTreeShapes) {
  // Lengths around every boundary of the trees: warps, tiles, blocks, the second pass.
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> exponent(-30, 30);
  auto value = [&] { return std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), exponent(rng)); };
  for (std::size_t n : {1, 2, 3, 31, 32, 33, 63, 255, 256, 257, 1023, 1024, 1025, 4097, 70000, 1048577 + 1024 * 5}) {
    if (small() && n > 5000) continue;
    for (const auto& pair : kModelled) {
      const Backend& gpu = backend(pair[0]);
      if (gpu.supports(WorkloadKind::sparse)) continue;
      if (n > 70000 && std::string(pair[0]).find("exact") != std::string::npos) continue;  // one thread per sum: slow
      const Backend& model = backend(pair[1]);
      const DenseWorkload w = dense(gpu.storage, n > 5000 ? 1 : 3, n, value);
      const std::string diff = mismatch(gpu, model, w, run(gpu, w), run(model, w));
      ASSERT_TRUE(diff.empty()) << diff;
    }
  }
}

TEST_F(Gpu, FtzKernelEqualsItsModelWhereNoSubnormalArises) {
  const Backend& gpu = backend("cuda_warp_tree_ftz_f32");
  const Backend& model = backend("cuda_model_warp_tree_ftz_f32");
  // Multiples of 2^-20 below 2^20: every partial sum is 0 or at least 2^-20.
  std::mt19937_64 rng(3);
  auto value = [&] {
    return std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng() % (1u << 24)) - (1 << 23)), -20);
  };
  for (std::size_t n : {1, 2, 33, 100, 1000, 5000}) {
    const DenseWorkload w = dense(Format::f32, 4, n, value);
    const std::string diff = mismatch(gpu, model, w, run(gpu, w), run(model, w));
    EXPECT_TRUE(diff.empty()) << diff;
  }
  // With subnormals the compiler may or may not flush each one; the ftz bound holds either way.
  auto tiny = [&] { return std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng() % 4096) - 2048), -140); };
  for (std::size_t n : {1, 2, 40, 300}) {
    const DenseWorkload w = dense(Format::f32, 4, n, tiny);
    const BackendOutcome o = run_and_judge(gpu, w);
    EXPECT_FALSE(o.violated()) << describe_violation(gpu, w, o);
  }
}

TEST_F(Gpu, AtomicAddOnF32FlushesSubnormalsAsItsModelAssumes) {
  // One addend per element: the order of the updates cannot matter, so kernel and model must
  // agree bit for bit; the cases have subnormal inputs and subnormal sums.
  const Backend& gpu = backend("cuda_atomic_f32");
  const Backend& model = backend("cuda_model_atomic_f32");
  DenseWorkload w;
  w.format = Format::f32;
  const double sub = smallest_subnormal(Format::f32), min = smallest_normal(Format::f32);
  const std::vector<std::pair<double, double>> cases = {
      {1.0, sub},      {sub, 1.0},        {sub, sub}, {min, -min / 2 - min / 4},
      {-min, min / 2}, {min * 1.5, -min}, {0.0, sub}, {1.0, 2.0}};
  w.elements = cases.size();
  w.steps = 1;
  for (const auto& c : cases) w.initial.push_back(c.first);
  for (const auto& c : cases) w.addends.push_back(c.second);
  const auto g = run(gpu, w), m = run(model, w);
  bool flushed = false;
  for (std::size_t j = 0; j < cases.size(); ++j) {
    EXPECT_TRUE(same_result_bits(g[j], m[j]))
        << "element " << j << ": atomicAdd(" << hex_float(cases[j].first) << ", " << hex_float(cases[j].second)
        << ") = " << hex_float(g[j]) << ", model " << hex_float(m[j]);
    if (g[j] != cases[j].first + cases[j].second) flushed = true;
  }
  std::printf("atomicAdd f32 on %s: subnormals %s\n", cuda::device_status().description.c_str(),
              flushed ? "flushed to zero" : "kept");
}

TEST_F(Gpu, AtomicAndLibraryBackendsStayWithinTheirBounds) {
  GenerationLimits limits;
  for (const char* name : {
         "cuda_atomic_f32", "cuda_atomic_f64", "cuda_atomic_f16x2", "cuda_atomic_bf16x2", "cuda_cub_reduce_f32",
             "cuda_cub_reduce_f64",
#if ACCUCHECK_HAVE_CUB_DETERMINISM
             "cuda_cub_run_to_run_f32", "cuda_cub_run_to_run_f64",
#endif
             "cuda_embedding_sort_segreduce_f32", "cuda_cublas_sgemm_beta1_f32", "cuda_cublas_sgemm_tf32_beta1_f32"
       }) {
    const Backend& b = backend(name);
    const WorkloadKind kind = b.supports(WorkloadKind::dense)    ? WorkloadKind::dense
                              : b.supports(WorkloadKind::sparse) ? WorkloadKind::sparse
                                                                 : WorkloadKind::product;
    int differed = 0;
    const int workloads = small() ? 10 : 100;
    for (int seed = 1; seed <= workloads; ++seed) {
      SeededChoiceStream s(static_cast<std::uint64_t>(seed) * 104729 + 1);
      const Workload w = generate(s, b.storage, limits, kind);
      const BackendOutcome o = run_and_judge(b, w);
      ASSERT_FALSE(o.violated()) << describe_violation(b, w, o);
      if (b.determinism == Determinism::run_to_run_nondeterministic) {
        const auto first = run(b, w), second = run(b, w);
        for (std::size_t j = 0; j < first.size(); ++j)
          if (!same_result_bits(first[j], second[j])) {
            ++differed;
            break;
          }
      }
    }
    if (b.determinism == Determinism::run_to_run_nondeterministic)
      std::printf("%s: reruns differed on %d of %d workloads\n", name, differed, workloads);
  }
}

// NCCL's all-reduce (nccl.cpp): one rank per GPU, so a machine with one GPU has no NCCL backend
// (NCCL refuses two ranks on one device): skipped, saying why.
TEST_F(Gpu, NcclAllReduceStaysWithinItsBound) {
#if !ACCUCHECK_HAVE_NCCL
  GTEST_SKIP() << "GPU test skipped: this build has no NCCL (nccl.h and libnccl beside the CUDA toolkit)";
#else
  std::vector<const Backend*> nccl;
  for (const Backend& b : Registry::global().all())
    if (b.name.rfind("cuda_nccl_", 0) == 0) nccl.push_back(&b);
  if (nccl.empty()) GTEST_SKIP() << "GPU test skipped: " << cuda::nccl_status();
  std::printf("%s\n", cuda::nccl_status().c_str());
  GenerationLimits limits;
  for (const Backend* b : nccl)
    for (int seed = 1; seed <= (small() ? 10 : 100); ++seed) {
      SeededChoiceStream s(static_cast<std::uint64_t>(seed) * 7919 + 3);
      const Workload w = generate(s, b->storage, limits, WorkloadKind::dense);
      const BackendOutcome o = run_and_judge(*b, w);
      ASSERT_FALSE(o.violated()) << describe_violation(*b, w, o);
    }
#endif
}

#if ACCUCHECK_HAVE_CUB_DETERMINISM
// cub::DeviceReduce::Sum under gpu_to_gpu against the binned accumulator on the CPU
// (cub/binned_accumulator.h): where CCCL 3.5's code and the design agree on a column, the GPU
// must give those bits; where they differ (all-zero columns, infinities, f64 subnormal or huge
// maxima) the test prints what the GPU gave next to both, the record docs/gpu-results.md needs.
template <class T>
void cub_gpu_to_gpu_against_the_binned_model(const Backend& gpu, const std::vector<Workload>& workloads) {
  using cuda_models::Binned;
  int departures = 0, as_shipped = 0;
  for (const Workload& any : workloads) {
    const auto& w = std::get<DenseWorkload>(any);
    const auto g = test::results_of(gpu, any, RunOptions{});
    std::vector<double> column;
    for (std::size_t j = 0; j < w.elements; ++j) {
      w.column(j, column);
      const double d = cuda_models::binned_sum<T, Binned::design>(column);
      const double s = cuda_models::binned_sum<T, Binned::cub_3_5>(column);
      if (same_result_bits(d, s)) {
        ASSERT_TRUE(same_result_bits(g[j], d)) << gpu.name << " on " << describe_shape(any) << ", element " << j
                                               << ": GPU " << hex_float(g[j]) << ", model " << hex_float(d);
      } else {
        ++departures;
        as_shipped += same_result_bits(g[j], s);
        if (departures <= 10)
          std::printf("%s, %zu terms: GPU %s, design %s, CCCL 3.5 in one thread %s\n", gpu.name.c_str(), column.size(),
                      hex_float(g[j]).c_str(), hex_float(d).c_str(), hex_float(s).c_str());
      }
    }
  }
  std::printf("%s: %d columns where CCCL 3.5's code departs from the design, %d of them as modelled\n",
              gpu.name.c_str(), departures, as_shipped);
}

TEST_F(Gpu, CubGpuToGpuEqualsTheBinnedModel) {
  GenerationLimits limits;
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> exponent(-60, 60);
  auto value = [&] { return std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), exponent(rng)); };
  for (Format f : {Format::f32, Format::f64}) {
    std::vector<Workload> workloads;
    for (std::uint64_t seed = 1; seed <= (small() ? 15u : 150u); ++seed) {
      SeededChoiceStream s(seed * 6151 + 7);
      workloads.push_back(generate(s, f, limits, WorkloadKind::dense));
    }
    // Lengths around CUB's tiles and the single-block / multi-block switch.
    for (std::size_t n : {1, 2, 255, 256, 257, 4096, 4097, 70000, 1048577})
      if (!small() || n < 5000) workloads.push_back(dense(f, n > 5000 ? 1 : 3, n, value));
    // The departures on their minimal inputs (impls/cuda/tests/binned_accumulator_test.cpp).
    DenseWorkload special;
    special.format = f;
    special.elements = 4;
    special.steps = 1;
    special.initial = {0.0, std::numeric_limits<double>::infinity(), f == Format::f64 ? std::ldexp(1.0, -1030) : 0.0,
                       f == Format::f64 ? std::ldexp(1.0, 1000) : 1.0};
    special.addends = {0.0, 1.0, 0.0, 0.0};
    workloads.push_back(special);
    const Backend& gpu = backend("cuda_cub_gpu_to_gpu_" + std::string(name(f)));
    if (f == Format::f32)
      cub_gpu_to_gpu_against_the_binned_model<float>(gpu, workloads);
    else
      cub_gpu_to_gpu_against_the_binned_model<double>(gpu, workloads);
  }
}
#endif

TEST_F(Gpu, BackendsAreRegisteredAsCudaBackends) {
  const auto names = cuda::gpu_backend_names();
  EXPECT_GE(names.size(), 20u);
  for (const auto& n : names) EXPECT_EQ(backend(n).device, Device::cuda) << n;
  std::printf("%zu GPU backends on %s\n", names.size(), cuda::device_status().description.c_str());
}

}  // namespace
}  // namespace accucheck
