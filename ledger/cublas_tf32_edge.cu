// cuBLAS in TF32 mode: FLT_MAX x 0 gives NaN, because an operand at the top of the f32 range
// rounds to infinity in TF32.
//
// Standalone reproducer (CUDA toolkit with cuBLAS):
//
//   nvcc -std=c++20 -arch=sm_90 cublas_tf32_edge.cu -o cublas_tf32_edge -lcublas
//
// C (2 x 2, zeros) += A B with A = [[FLT_MAX, 0], [0, 0]] and B = 0, alpha = beta = 1: every
// product is 0 (FLT_MAX x 0 = 0 in FP32), so the exact result is C = 0. In TF32 the tensor core
// reads each operand rounded to nearest-even to 11 significant bits; FLT_MAX = 0x1.fffffep127 is
// above the midpoint 0x1.ffep127 between TF32's largest finite value 0x1.ffcp127 and 2^128, so it
// becomes infinity, and inf x 0 = NaN. A value just below that midpoint, 0x1.ffdffep127, rounds to
// 0x1.ffcp127 and gives 0. This is TF32's format at work (an operand that TF32 cannot represent
// overflows), not an arithmetic error in cuBLAS; see findings/README.md.
//
// Three ways to ask for TF32 are shown, with the FP32 default as a control:
//   cublasSgemm with cublasSetMathMode(CUBLAS_DEFAULT_MATH)          (FP32: the control)
//   cublasSgemm with cublasSetMathMode(CUBLAS_TF32_TENSOR_OP_MATH)   (how accucheck's backend calls it)
//   cublasGemmEx(CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32)
// The operands are passed as accucheck's backend passes them (row-major C += A B computed as
// column-major C^T += B^T A^T: m = n = k = 2). What an H100 (cuBLAS 13, 2026-12-05) returned in
// accucheck's TF32 backend: NaN; this file itself has not yet run on a GPU.
//
// Exit status: 1 if a TF32 call returns NaN where FP32 returns 0 (the behaviour reproduces), 0 if
// not, 2 on a CUDA or cuBLAS error (no device, ...).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                 \
  do {                                                                                              \
    cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), \
                   cudaGetErrorString(e_));                                                         \
      std::exit(2);                                                                                 \
    }                                                                                               \
  } while (0)
#define CUBLAS(call)                                                                               \
  do {                                                                                             \
    cublasStatus_t s_ = (call);                                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cublasGetStatusName(s_)); \
      std::exit(2);                                                                                \
    }                                                                                              \
  } while (0)

enum class Way { sgemm_default, sgemm_tf32, gemmex_fast_tf32 };
const char* name(Way w) {
  switch (w) {
    case Way::sgemm_default: return "cublasSgemm, CUBLAS_DEFAULT_MATH (FP32)";
    case Way::sgemm_tf32: return "cublasSgemm, CUBLAS_TF32_TENSOR_OP_MATH";
    default: return "cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32";
  }
}

// Row-major 2x2: C += A B with A[0][0] = a00, everything else 0. Returns C.
std::vector<float> gemm(cublasHandle_t handle, Way way, float a00) {
  const int m = 2, n = 2, k = 2;
  std::vector<float> a = {a00, 0, 0, 0}, b(4, 0.0f), c(4, 0.0f);
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, 4 * sizeof(float)));
  CHECK(cudaMalloc(&db, 4 * sizeof(float)));
  CHECK(cudaMalloc(&dc, 4 * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), 4 * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), 4 * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), 4 * sizeof(float), cudaMemcpyHostToDevice));
  const float one = 1.0f;
  // Row-major C (m x n) is column-major C^T: C^T += B^T A^T, with B first (as accucheck calls it).
  if (way == Way::gemmex_fast_tf32) {
    CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, db, CUDA_R_32F, n, da, CUDA_R_32F, k, &one, dc,
                        CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
  } else {
    CUBLAS(cublasSetMathMode(handle, way == Way::sgemm_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, db, n, da, k, &one, dc, n));
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(c.data(), dc, 4 * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return c;
}

int main() {
  int runtime = 0, driver = 0, device = 0, cublas_version = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, device));
  cublasHandle_t handle;
  CUBLAS(cublasCreate(&handle));
  CUBLAS(cublasGetVersion(handle, &cublas_version));
  std::printf("cuBLAS %d, CUDA runtime %d, driver %d, device %s (sm_%d%d)\n", cublas_version, runtime, driver,
              prop.name, prop.major, prop.minor);

  bool reproduced = false;
  for (float a00 : {FLT_MAX, 0x1.ffdffep127f}) {
    std::printf("A = [[%a, 0], [0, 0]], B = 0, C = 0; exact C += A B: all 0\n", static_cast<double>(a00));
    bool fp32_zero = false;
    for (Way way : {Way::sgemm_default, Way::sgemm_tf32, Way::gemmex_fast_tf32}) {
      const std::vector<float> c = gemm(handle, way, a00);
      bool all_zero = true, any_nan = false;
      for (float v : c) {
        all_zero &= v == 0.0f;
        any_nan |= std::isnan(v);
      }
      if (way == Way::sgemm_default)
        fp32_zero = all_zero;
      else if (any_nan && fp32_zero)
        reproduced = true;
      std::printf("  %-44s C = [[%g, %g], [%g, %g]]%s\n", name(way), c[0], c[1], c[2], c[3],
                  any_nan    ? "   <- NaN: the operand became infinite"
                  : all_zero ? ""
                             : "   (not 0)");
    }
  }
  CUBLAS(cublasDestroy(handle));
  std::printf(reproduced ? "REPRODUCES: TF32 turns FLT_MAX x 0 into NaN\n"
                         : "does not reproduce: every product of 0 gave 0\n");
  return reproduced ? 1 : 0;
}
