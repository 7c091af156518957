// cuBLAS GEMM with beta = 1 (grad_req 'add': MXNet's FullyConnected backward, C += A_t B_t per
// step), in the default math mode and in TF32 tensor-op mode. Host code only (the host
// compiler): cuBLAS picks its own kernels (split-K, any order of the partial sums), so there is
// no order model; the bounds hold for any order (docs/bounds.md, "cuBLAS").
//
// TF32: cuBLAS truncates or rounds each f32 operand to 10 fraction bits inside the tensor core;
// for a subnormal operand that is an absolute error, unbounded relative to its product, and an
// operand at or above (2 - 2^-11) 2^127 rounds up to infinity (an H100 returned NaN for a sum of
// products whose exact value is 0: docs/gpu-results.md). No bound of the expression language can
// state either (they depend on single operands, not on the products' sums), so a step whose A_t
// or B_t holds a nonzero f32 subnormal or such a large operand runs in the default math mode
// (FP32 FMA), and the backend says so.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "cuda/common/cuda_check.h"
#include "cuda/common/runtime_library.h"
#include "cuda/device.h"

namespace accucheck::cuda {
namespace {

class DeviceFloats {
 public:
  explicit DeviceFloats(std::size_t bytes) {
    if (bytes) CUDA_CHECK(cudaMalloc(&p_, bytes));
  }
  ~DeviceFloats() {
    if (p_) cudaFree(p_);  // see kernels/device_common.cuh on unchecked cudaFree
  }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  float* get() const { return static_cast<float*>(p_); }

 private:
  void* p_ = nullptr;
};

// cuBLAS is opened with dlopen when a GPU backend first needs it, not linked: loading
// libcublas and libcublasLt costs about 0.1 s per process, which every test and fuzzer process
// would pay, GPU or not.
struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  std::string error;  // why it could not be loaded
};

const Cublas& cublas() {
  static const Cublas loaded = [] {
    Cublas c;
    const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    void* lib = open_runtime_library(soname, ACCUCHECK_CUDA_LIBRARY_DIR, c.error);
    if (!lib) return c;
    c.create = reinterpret_cast<decltype(c.create)>(dlsym(lib, "cublasCreate_v2"));
    c.set_math_mode = reinterpret_cast<decltype(c.set_math_mode)>(dlsym(lib, "cublasSetMathMode"));
    c.sgemm = reinterpret_cast<decltype(c.sgemm)>(dlsym(lib, "cublasSgemm_v2"));
    if (!c.create || !c.set_math_mode || !c.sgemm)
      c.error = soname + " lacks cublasCreate_v2, cublasSetMathMode or cublasSgemm_v2";
    return c;
  }();
  return loaded;
}

// Handles are created on first use and never destroyed (no cuBLAS call at process exit).
cublasHandle_t handle(bool tf32) {
  static std::once_flag once;
  static cublasHandle_t plain = nullptr, tensor = nullptr;
  std::call_once(once, [] {
    const Cublas& c = cublas();
    if (!c.error.empty()) throw BackendFailure(c.error);
    CUBLAS_CHECK(c.create(&plain));
    CUBLAS_CHECK(c.set_math_mode(plain, CUBLAS_DEFAULT_MATH));
    CUBLAS_CHECK(c.create(&tensor));
    CUBLAS_CHECK(c.set_math_mode(tensor, CUBLAS_TF32_TENSOR_OP_MATH));
  });
  return tf32 ? tensor : plain;
}

// True when an operand is a nonzero subnormal or rounds to infinity in TF32 (1 + 10 bits: the
// midpoint between its largest finite value (2 - 2^-10) 2^127 and 2^128).
bool outside_tf32_range(const std::vector<float>& v, std::size_t begin, std::size_t count) {
  constexpr float tf32_overflow_midpoint = 0x1.ffep127f;
  for (std::size_t i = begin; i < begin + count; ++i)
    if ((v[i] != 0 && std::fabs(v[i]) < FLT_MIN) || std::fabs(v[i]) >= tf32_overflow_midpoint) return true;
  return false;
}

void sgemm_beta1(const ProductWorkload& w, std::span<double> result, bool tf32) {
  const std::size_t rows = w.rows, cols = w.cols, batch = w.batch, steps = w.steps;
  if (rows * cols == 0) return;
  std::vector<float> c(w.initial.begin(), w.initial.end()), a(w.a.begin(), w.a.end()), b(w.b.begin(), w.b.end());
  DeviceFloats dc(c.size() * sizeof(float)), da(a.size() * sizeof(float)), db(b.size() * sizeof(float));
  CUDA_CHECK(cudaMemcpy(dc.get(), c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (!a.empty()) CUDA_CHECK(cudaMemcpy(da.get(), a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (!b.empty()) CUDA_CHECK(cudaMemcpy(db.get(), b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  const float one = 1.0f;
  for (std::size_t t = 0; t < steps && batch > 0; ++t) {
    const bool tensor = tf32 && !outside_tf32_range(a, t * rows * batch, rows * batch) &&
                        !outside_tf32_range(b, t * batch * cols, batch * cols);
    // Row-major C (rows x cols) is column-major C^T: C^T += B_t^T A_t^T, m = cols, n = rows, k = batch.
    CUBLAS_CHECK(cublas().sgemm(handle(tensor), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(cols),
                                static_cast<int>(rows), static_cast<int>(batch), &one, db.get() + t * batch * cols,
                                static_cast<int>(cols), da.get() + t * rows * batch, static_cast<int>(batch), &one,
                                dc.get(), static_cast<int>(cols)));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(c.data(), dc.get(), c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t e = 0; e < c.size(); ++e) result[e] = c[e];
}

// Made only on a usable device (on_gpu), where the library is loaded once to find out.
std::vector<Backend> cublas_backends() {
  if (!cublas().error.empty()) {
    std::fprintf(stderr, "accucheck: the cuBLAS backends are not registered: %s\n", cublas().error.c_str());
    return {};
  }
  return {
      product_backend(
          "cuda_cublas_sgemm_beta1_f32", Format::f32, Format::f32, "products(f32)", Determinism::bitwise_deterministic,
          "cublasSgemm C += A_t B_t per step, beta = 1, CUBLAS_DEFAULT_MATH (FP32 FMA, any split-K order)",
          [](const ProductWorkload& w, std::span<double> r, const RunOptions&) { sgemm_beta1(w, r, false); }),
      product_backend(
          "cuda_cublas_sgemm_tf32_beta1_f32", Format::f32, Format::f32, "ftz(products(bf16),f32)",
          Determinism::bitwise_deterministic,
          "cublasSgemm C += A_t B_t per step, beta = 1, CUBLAS_TF32_TENSOR_OP_MATH (steps with subnormal operands, "
          "or operands that round to infinity in TF32, in FP32)",
          [](const ProductWorkload& w, std::span<double> r, const RunOptions&) { sgemm_beta1(w, r, true); })};
}
ACCUCHECK_REGISTER_BACKEND(on_gpu(&cublas_backends));

}  // namespace
}  // namespace accucheck::cuda
