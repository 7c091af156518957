// The manual accumulation path of a dense layer's weight gradient: each step's gradient is
// computed on its own, g = A_t * B_t as a fresh dot product (the kernel with beta = 0: an FMA
// chain over the batch starting from 0, whose first step rounds the first product), and then
// added to the buffer, acc = fl(acc + g) (`acc[:] += p.grad()` in mxnet-16686). Per step a
// tree, not a left-to-right chain: products(F) holds for it by the any-tree argument of
// docs/bounds.md ("Products in any tree, with or without FMA").
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class T>
void manual_run(const ProductWorkload& w, std::span<double> result, const RunOptions&) {
  each_product_element<T>(w, result, [&](std::size_t m, std::size_t n, T acc) {
    for (std::size_t t = 0; t < w.steps && w.batch > 0; ++t) {
      T g = from_value<T>(w.a_at(t, m, 0)) * from_value<T>(w.b_at(t, 0, n));
      for (std::size_t k = 1; k < w.batch; ++k)
        g = fused_multiply_add(from_value<T>(w.a_at(t, m, k)), from_value<T>(w.b_at(t, k, n)), g);
      acc = acc + g;
    }
    return acc;
  });
}

ACCUCHECK_REGISTER_BACKEND(in_formats<float, Half, BFloat16>(
    product_backend, []<class T>() { return &manual_run<T>; }, "manual_dot_then_add_{F}", "products({F})",
    Determinism::bitwise_deterministic,
    "g = A*B on its own (FMA chain from 0), then acc = fl(acc + g) (manual accumulation)"));

}  // namespace
}  // namespace accucheck::impls
