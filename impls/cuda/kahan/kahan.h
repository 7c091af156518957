// Kahan's compensated summation as the CUDA Kahan kernel runs it (one thread per element, the
// element's terms in order) and as its CPU model runs it: one function for both. As in
// impls/cpu/kahan.cpp, the compensation is dropped once the running sum is infinite or NaN
// ((t - s) would be inf - inf = NaN and turn a correct infinite sum into NaN).
#pragma once

#include <cstdint>

#include "cuda/common/hd.h"

namespace accucheck::cuda_tree {

// True for a finite value: x - x is 0 for finite x and NaN for infinities and NaN.
template <class T>
ACCUCHECK_HD_INLINE bool finite_value(T x) {
  const T d = x - x;
  return d == d;
}

template <class T, class Load>
ACCUCHECK_HD_INLINE T kahan_sum(Load load, std::uint64_t n) {
  T s = load(0), c = T(0);
  for (std::uint64_t i = 1; i < n; ++i) {
    const T y = load(i) - c;
    const T t = s + y;
    c = finite_value(t) ? (t - s) - y : T(0);
    s = t;
  }
  return s;
}

}  // namespace accucheck::cuda_tree
