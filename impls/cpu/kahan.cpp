// Kahan's compensated summation (Kahan, CACM 8(1), 1965), in the storage format.
// Once the running sum is infinite or NaN the compensation is dropped: (t - s) would be
// inf - inf = NaN and turn a correct infinite sum into NaN.
#include <cmath>

#include "common/per_element.h"

namespace accucheck::impls {
namespace {

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

ACCUCHECK_REGISTER_PER_FORMAT(KahanSum, "kahan", "kahan({F})", Determinism::bitwise_deterministic,
                              "Kahan compensated summation in the storage format", every_format);

}  // namespace
}  // namespace accucheck::impls
