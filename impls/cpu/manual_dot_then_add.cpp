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
  for (std::size_t m = 0; m < w.rows; ++m)
    for (std::size_t n = 0; n < w.cols; ++n) {
      T acc = from_value<T>(w.initial[m * w.cols + n]);
      for (std::size_t t = 0; t < w.steps; ++t) {
        if (w.batch == 0) continue;
        T g = from_value<T>(w.a_at(t, m, 0)) * from_value<T>(w.b_at(t, 0, n));
        for (std::size_t k = 1; k < w.batch; ++k)
          g = fused_multiply_add(from_value<T>(w.a_at(t, m, k)), from_value<T>(w.b_at(t, k, n)), g);
        acc = acc + g;
      }
      result[m * w.cols + n] = to_value(acc);
    }
}

template <class T>
Backend manual_dot_then_add() {
  constexpr Format f = storage_format_v<T>;
  return product_backend(with_format("manual_dot_then_add_{F}", f), f, f, with_format("products({F})", f),
                         Determinism::bitwise_deterministic,
                         "g = A*B on its own (FMA chain from 0), then acc = fl(acc + g) (manual accumulation)",
                         &manual_run<T>);
}

ACCUCHECK_REGISTER_BACKEND(manual_dot_then_add<float>());
ACCUCHECK_REGISTER_BACKEND(manual_dot_then_add<Half>());
ACCUCHECK_REGISTER_BACKEND(manual_dot_then_add<BFloat16>());

}  // namespace
}  // namespace accucheck::impls
