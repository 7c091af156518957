// MXNet's ElemwiseSum under req = kAddTo, as fixed in MXNet 1.7 (PR 17995): a parameter used
// m times gets its m gradient inputs summed into the existing buffer out. The kernels: m <= 4,
// out + (((in0 + in1) + in2) + in3); m > 4, out + (in0 + in1), then out += in_i for i >= 2.
// The dense workload's steps are the m inputs, its initial value the buffer. Per element a
// tree over the m + 1 addends: anyorder(F). (The 1.6 kernel's double counting for m > 4 is the
// planted mutant elemwise_sum_double_count_f32.)
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class T>
void elemwise_sum_run(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  const std::size_t m = w.steps;
  for (std::size_t j = 0; j < w.elements; ++j) {
    T out = from_value<T>(w.initial[j]);
    auto in = [&](std::size_t i) { return from_value<T>(w.addend(i, j)); };
    if (m == 0) {
      // nothing to add
    } else if (m <= 4) {
      T sum = in(0);
      for (std::size_t i = 1; i < m; ++i) sum = sum + in(i);
      out = out + sum;
    } else {
      out = out + (in(0) + in(1));
      for (std::size_t i = 2; i < m; ++i) out = out + in(i);
    }
    result[j] = to_value(out);
  }
}

ACCUCHECK_REGISTER_BACKEND(in_formats<float, Half>(
    dense_backend, []<class T>() { return &elemwise_sum_run<T>; }, "elemwise_sum_addto_{F}", "anyorder({F})",
    Determinism::bitwise_deterministic,
    "MXNet ElemwiseSum of the steps as m inputs into the buffer, kAddTo (fixed kernel)"));

}  // namespace
}  // namespace accucheck::impls
