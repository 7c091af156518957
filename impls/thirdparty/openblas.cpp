// Adapters over the real OpenBLAS (Debian's libopenblas, linked through find_library): the two
// ways a framework accumulates a dense layer's weight gradient with a BLAS.
//
//   openblas_sgemm_beta1  cblas_sgemm(alpha = 1, beta = 1) once per step: C += A_t * B_t in
//                         the library's own kernel (grad_req 'add' on CPU).
//   openblas_saxpy        g = cblas_sgemm(alpha = 1, beta = 0) into a scratch buffer, then
//                         cblas_saxpy(1, g, C): the manual path, acc += grad.
//
// Bound products(f32) for both: the BLAS contract fixes no evaluation order, and OpenBLAS's
// kernels use FMA chains over K blocks, several accumulators, K split into blocks added into C,
// or a separate multiply and add, depending on the CPU it picks at run time (DYNAMIC_ARCH).
// docs/bounds.md ("Products in any tree, with or without FMA") proves N u A (+ 2 N eta) for
// every evaluation tree made of rounded additions, rounded products and FMAs (alpha = beta = 1
// are exact), so the bound does not depend on which kernel runs.
//
// Determinism: OpenBLAS is set to one thread (openblas_set_num_threads(1), once, before the
// first call), and every buffer handed to it is 64-byte aligned, so that the kernels' choice of
// head/tail loops does not vary with where the allocator put a vector: the same workload gives
// the same bits on every run, any RunOptions::threads. Class bitwise-deterministic, on one
// machine and one OpenBLAS build (another CPU may select another kernel).
#include <cstdlib>
#include <memory>
#include <mutex>

#include "common/per_element.h"

extern "C" {
// The few CBLAS/OpenBLAS entry points used, declared here so that no particular cblas.h (the
// alternatives system may point it at netlib's) is needed. Row-major = 101, no transpose = 111.
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc);
void cblas_saxpy(int n, float alpha, const float* x, int incx, float* y, int incy);
void openblas_set_num_threads(int num_threads);
char* openblas_get_corename(void);
}

namespace accucheck::impls {
namespace {

constexpr int kRowMajor = 101, kNoTrans = 111;

void single_threaded() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;

Buffer aligned(std::size_t count) {
  const std::size_t bytes = ((std::max<std::size_t>(count, 1) * sizeof(float) + 63) / 64) * 64;
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (!p) throw BackendFailure("openblas adapter: out of memory");
  return Buffer(p);
}

// A_t (rows x batch) and B_t (batch x cols) of step t as float matrices.
void load_step(const ProductWorkload& w, std::size_t t, float* a, float* b) {
  for (std::size_t m = 0; m < w.rows; ++m)
    for (std::size_t k = 0; k < w.batch; ++k) a[m * w.batch + k] = static_cast<float>(w.a_at(t, m, k));
  for (std::size_t k = 0; k < w.batch; ++k)
    for (std::size_t n = 0; n < w.cols; ++n) b[k * w.cols + n] = static_cast<float>(w.b_at(t, k, n));
}

int dimension(std::size_t x) {
  if (x > static_cast<std::size_t>(1) << 30)
    throw BackendFailure("openblas adapter: dimension too large for a BLAS int");
  return static_cast<int>(x);
}

template <bool kSaxpy>
void openblas_run(const ProductWorkload& w, std::span<double> result, const RunOptions&) {
  single_threaded();
  const std::size_t elements = w.rows * w.cols;
  Buffer c = aligned(elements), g = aligned(elements), a = aligned(w.rows * w.batch), b = aligned(w.batch * w.cols);
  for (std::size_t e = 0; e < elements; ++e) c[e] = static_cast<float>(w.initial[e]);
  const int m = dimension(w.rows), n = dimension(w.cols), k = dimension(w.batch);
  for (std::size_t t = 0; t < w.steps && k > 0; ++t) {
    load_step(w, t, a.get(), b.get());
    if constexpr (kSaxpy) {
      cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.0f, a.get(), k, b.get(), n, 0.0f, g.get(), n);
      cblas_saxpy(dimension(elements), 1.0f, g.get(), 1, c.get(), 1);
    } else {
      cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.0f, a.get(), k, b.get(), n, 1.0f, c.get(), n);
    }
  }
  for (std::size_t e = 0; e < elements; ++e) result[e] = static_cast<double>(c[e]);
}

ACCUCHECK_REGISTER_BACKEND(product_backend("openblas_sgemm_beta1", Format::f32, Format::f32, "products(f32)",
                                           Determinism::bitwise_deterministic,
                                           "OpenBLAS cblas_sgemm with beta = 1 per step (grad_req 'add'), one thread",
                                           &openblas_run<false>));
ACCUCHECK_REGISTER_BACKEND(product_backend(
    "openblas_saxpy", Format::f32, Format::f32, "products(f32)", Determinism::bitwise_deterministic,
    "OpenBLAS cblas_sgemm beta = 0 into g, then cblas_saxpy(1, g, C), one thread", &openblas_run<true>));

}  // namespace

// The OpenBLAS kernel family in use (for docs and reports): "Haswell", "Zen", "SkylakeX", ...
const char* openblas_core_name() { return openblas_get_corename(); }

}  // namespace accucheck::impls
