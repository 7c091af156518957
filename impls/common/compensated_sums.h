// Compensated sums over one element's addends in T, shared by the kahan_* and neumaier_*
// backends and the summation benchmark (bench/sum_bench.cpp), which times the same code.
// Once the running sum is infinite or NaN the compensation is dropped: (t - s) would be
// inf - inf = NaN and turn a correct infinite sum into NaN.
#pragma once

#include <cmath>
#include <span>

#include "numerics/soft_float.h"

namespace accucheck::impls {

// Kahan's compensated summation (Kahan, CACM 8(1), 1965).
struct KahanSum {
  template <class T>
  T operator()(std::span<const T> x) const {
    T s = x[0], c = from_value<T>(0.0);
    for (std::size_t i = 1; i < x.size(); ++i) {
      const T y = x[i] - c;
      const T t = s + y;
      c = std::isfinite(to_value(t)) ? (t - s) - y : from_value<T>(0.0);
      s = t;
    }
    return s;
  }
};

// Kahan-Babuska-Neumaier summation (Neumaier, ZAMM 54, 1974): FastTwoSum with the magnitude
// branch, the compensation added once at the end.
struct NeumaierSum {
  template <class T>
  T operator()(std::span<const T> x) const {
    T s = x[0], c = from_value<T>(0.0);
    for (std::size_t i = 1; i < x.size(); ++i) {
      const T t = s + x[i];
      if (std::isfinite(to_value(t))) {
        if (std::fabs(to_value(s)) >= std::fabs(to_value(x[i])))
          c = c + ((s - t) + x[i]);
        else
          c = c + ((x[i] - t) + s);
      }
      s = t;
    }
    return std::isfinite(to_value(s)) ? s + c : s;
  }
};

}  // namespace accucheck::impls
