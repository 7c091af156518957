// Mixed precision: addends of a narrow format accumulated in order in a wider one, rounded
// once into the storage format at the end (what MXNET_SAFE_ACCUMULATION and fp32 master
// gradients do).
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class Storage, class Accumulator>
DenseRun widened_run() {
  return [](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    sum_each_element<Storage>(w, result, [](std::span<const Storage> x) {
      Accumulator acc = from_value<Accumulator>(to_value(x[0]));
      for (std::size_t i = 1; i < x.size(); ++i) acc = acc + from_value<Accumulator>(to_value(x[i]));
      return from_value<Storage>(to_value(acc));  // one rounding into the storage format
    });
  };
}

template <class Storage, class Accumulator>
Backend widened(const char* name) {
  constexpr Format storage = storage_format_v<Storage>, accumulation = storage_format_v<Accumulator>;
  return dense_backend(name, storage, accumulation, recursive_then_rounded_bound(storage, accumulation),
                       Determinism::bitwise_deterministic,
                       "in-order sum in a wider format, rounded once into the storage format",
                       widened_run<Storage, Accumulator>());
}

ACCUCHECK_REGISTER_BACKEND(widened<Half, float>("widened_f16_acc_f32"));
ACCUCHECK_REGISTER_BACKEND(widened<BFloat16, float>("widened_bf16_acc_f32"));
ACCUCHECK_REGISTER_BACKEND(widened<Half, double>("widened_f16_acc_f64"));
ACCUCHECK_REGISTER_BACKEND(widened<BFloat16, double>("widened_bf16_acc_f64"));
ACCUCHECK_REGISTER_BACKEND(widened<float, double>("widened_f32_acc_f64"));

}  // namespace
}  // namespace accucheck::impls
