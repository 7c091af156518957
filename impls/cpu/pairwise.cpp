// NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src, pairwise_sum): a plain
// loop below 8 addends, eight interleaved accumulators combined by a fixed 3-level tree up to
// 128, and recursive halving (at a multiple of 8) above. NumPy starts the short loop from 0.0;
// this starts from the first addend, which differs only in the sign of an all -0 sum.
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class T>
T numpy_pairwise(const T* a, std::size_t n) {
  if (n < 8) {
    T res = a[0];
    for (std::size_t i = 1; i < n; ++i) res = res + a[i];
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (int k = 0; k < 8; ++k) r[k] = a[k];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int k = 0; k < 8; ++k) r[k] = r[k] + a[i + k];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res = res + a[i];
    return res;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return numpy_pairwise(a, half) + numpy_pairwise(a + half, n - half);
}

struct PairwiseSum {
  template <class T>
  T operator()(std::span<const T> x) const {
    return numpy_pairwise(x.data(), x.size());
  }
};

ACCUCHECK_REGISTER_BACKEND(per_format<PairwiseSum>("pairwise", "tree(numpy,{F})", Determinism::bitwise_deterministic,
                                                   "NumPy pairwise_sum: 8 accumulators up to 128, halving above",
                                                   every_format));

}  // namespace
}  // namespace accucheck::impls
