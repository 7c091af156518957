// Naive sequential accumulation, acc += g in order: the manual accumulation loop of every
// training framework, in the storage format itself.
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

struct NaiveSum {
  template <class T>
  T operator()(std::span<const T> x) const {
    T acc = x[0];
    for (std::size_t i = 1; i < x.size(); ++i) acc = acc + x[i];
    return acc;
  }
};

ACCUCHECK_REGISTER_BACKEND(per_format<NaiveSum>("naive", "recursive({F})", Determinism::bitwise_deterministic,
                                                "acc += g in step order, in the storage format", every_format));

}  // namespace
}  // namespace accucheck::impls
