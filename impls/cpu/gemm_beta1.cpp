// GEMM with beta = 1, as grad_req 'add' runs it (MXNet's FullyConnected backward calls BLAS
// with beta = 1): C += A_t * B_t, every product entering the running value unrounded,
// c = fl(c + a*b), one fused multiply-add per product, in step and batch order, starting from
// the buffer's value. A left-to-right FMA chain from C: N - 1 roundings for N = 1 + T*K terms,
// within products(F) = N u A + 2 N eta (docs/bounds.md, "Products").
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class T>
void gemm_beta1_run(const ProductWorkload& w, std::span<double> result, const RunOptions&) {
  each_product_element<T>(w, result, [&](std::size_t m, std::size_t n, T c) {
    for (std::size_t t = 0; t < w.steps; ++t)
      for (std::size_t k = 0; k < w.batch; ++k)
        c = fused_multiply_add(from_value<T>(w.a_at(t, m, k)), from_value<T>(w.b_at(t, k, n)), c);
    return c;
  });
}

ACCUCHECK_REGISTER_BACKEND(in_formats<float, Half, BFloat16>(
    product_backend, []<class T>() { return &gemm_beta1_run<T>; }, "gemm_beta1_{F}", "products({F})",
    Determinism::bitwise_deterministic, "C += A*B as one FMA chain from C (BLAS beta = 1, grad_req 'add')"));

}  // namespace
}  // namespace accucheck::impls
