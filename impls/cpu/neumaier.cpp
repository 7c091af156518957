// Kahan-Babuska-Neumaier summation (Neumaier, ZAMM 54, 1974): FastTwoSum with the magnitude
// branch, the compensation added once at the end. Non-finite running sums skip the
// compensation for the same reason as in kahan.cpp.
#include <cmath>

#include "common/per_element.h"

namespace accucheck::impls {
namespace {

struct NeumaierSum {
  template <class T>
  T operator()(std::span<const T> x) const {
    T s = x[0], c = from_value<T>(0.0);
    for (std::size_t i = 1; i < x.size(); ++i) {
      const T t = s + x[i];
      if (std::isfinite(to_value(t))) {
        if (std::fabs(to_value(s)) >= std::fabs(to_value(x[i]))) c = c + ((s - t) + x[i]);
        else c = c + ((x[i] - t) + s);
      }
      s = t;
    }
    return std::isfinite(to_value(s)) ? s + c : s;
  }
};

ACCUCHECK_REGISTER_PER_FORMAT(NeumaierSum, "neumaier", "neumaier({F})", Determinism::bitwise_deterministic,
                              "Kahan-Babuska-Neumaier summation in the storage format", every_format);

}  // namespace
}  // namespace accucheck::impls
