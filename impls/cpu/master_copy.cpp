// Mixed-precision training's f32 master buffer with a bf16 copy: the bf16 gradients of each
// step are added to an f32 master buffer, and after every step the model's bf16 copy is
// refreshed from it, copy = bf16(master); the copy is never fed back. The result is the last
// copy: one rounding of an f32 recursive sum, widened(recursive(f32),bf16) (and f16 alike).
// Feeding the copy back (master = copy + g) would be bf16 accumulation under an f32 claim:
// the planted mutant bf16_acc_claims_f32.
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

template <class Storage>
void master_copy_run(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    float master = static_cast<float>(w.initial[j]);
    Storage copy = from_value<Storage>(master);
    for (std::size_t t = 0; t < w.steps; ++t) {
      master = master + static_cast<float>(w.addend(t, j));
      copy = from_value<Storage>(master);  // the model's low-precision copy, refreshed every step
    }
    result[j] = to_value(copy);
  }
}

template <class Storage>
Backend master_copy() {
  constexpr Format f = storage_format_v<Storage>;
  return dense_backend(
      with_format("master_f32_copy_{F}", f), f, Format::f32, with_format("widened(recursive(f32),{F})", f),
      Determinism::bitwise_deterministic,
      with_format("f32 master buffer += g each step, a {F} copy refreshed from it (never fed back)", f),
      &master_copy_run<Storage>);
}

ACCUCHECK_REGISTER_BACKEND(master_copy<BFloat16>());
ACCUCHECK_REGISTER_BACKEND(master_copy<Half>());

}  // namespace
}  // namespace accucheck::impls
