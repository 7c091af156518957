// Gradient accumulation under loss scaling (mixed-precision training's GradScaler): the
// backward produces gradients scaled by s, y = fl(s*g); they accumulate scaled in f32,
// T = fl(T + y) from T = fl(s*G); the optimizer unscales once, r = fl(T * inv) with
// inv = fl(1/s) computed in f32 (PyTorch: inv_scale = scale.double().reciprocal().float()).
// A non-finite value appearing from finite inputs makes the scaler back off: s halves and the
// window is recomputed (down to s = 1, no scaling), as a skipped step does.
//
//   loss_scaled_pow2_f32: s = 2^16. Multiplying by a power of two is exact wherever nothing
//     overflows (values that were subnormal only move into the normal range, where sums of
//     them stay exact as they were), so the result is naive_f32's bit for bit:
//     recursive(f32).
//   loss_scaled_1000_f32: s = 1000 (a user's init_scale; halving keeps it a non-power of two).
//     Every scale and the unscale round: fl(s*g) is a rounded product, so the scaled sum is a
//     dot product of (s, g_i) and T/s is within products(f32); the multiplication by the
//     rounded inverse and its rounding add one widening each:
//     widened(widened(products(f32),f32),f32) (derivation in docs/bounds.md, "Loss scaling").
//     Scaling by 2^k does not commute with it near underflow and overflow; it says so
//     (exempt_from at its registration), so the scaling property does not apply to it.
#include <cmath>

#include "checking/backend.h"
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

// One attempt at scale s; false if a non-finite value appeared (the scaler's overflow check).
bool scaled_sum(const DenseWorkload& w, std::size_t j, float s, float& out) {
  const float inv = static_cast<float>(1.0 / static_cast<double>(s));
  float total = s * static_cast<float>(w.initial[j]);
  bool finite = std::isfinite(total);
  for (std::size_t t = 0; t < w.steps; ++t) {
    const float y = s * static_cast<float>(w.addend(t, j));
    total = total + y;
    finite = finite && std::isfinite(y) && std::isfinite(total);
  }
  out = total * inv;
  return finite && std::isfinite(out);
}

template <int kScale>
void loss_scaled_run(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    bool inputs_finite = std::isfinite(w.initial[j]);
    for (std::size_t t = 0; t < w.steps && inputs_finite; ++t) inputs_finite = std::isfinite(w.addend(t, j));
    float out = 0;
    float s = static_cast<float>(kScale);
    if (!inputs_finite) {
      // Non-finite gradients: the scaler skips the step and the values are what they are; a
      // scaled finite addend could overflow to the other infinity and turn inf into NaN.
      scaled_sum(w, j, 1.0f, out);
    } else {
      while (!scaled_sum(w, j, s, out)) {
        if (s <= 1.0f) break;              // unscaled and still non-finite: that is the sum's own overflow
        s = s / 2 >= 1.0f ? s / 2 : 1.0f;  // back off, down to no scaling
      }
    }
    result[j] = static_cast<double>(out);
  }
}

ACCUCHECK_REGISTER_BACKEND(dense_backend(
    "loss_scaled_pow2_f32", Format::f32, Format::f32, "recursive(f32)", Determinism::bitwise_deterministic,
    "loss scale 2^16: fl(s*g) accumulated, unscaled by fl(1/s); backs off on overflow", &loss_scaled_run<65536>));
// fl(1/s) has 24 significant bits: the unscale rounds at a position set by |S|, so near the
// underflow threshold result(2^k w) and 2^k result(w) round differently (and near overflow the
// scaled workload makes the scaler back off to another s).
ACCUCHECK_REGISTER_BACKEND(
    exempt_from(dense_backend("loss_scaled_1000_f32", Format::f32, Format::f32,
                              "widened(widened(products(f32),f32),f32)", Determinism::bitwise_deterministic,
                              "loss scale 1000: fl(s*g) accumulated, unscaled by fl(1/s); backs off on overflow",
                              &loss_scaled_run<1000>),
                Property::scaling,
                "multiplies by s = 1000 and fl(1/s): the unscale rounds at a position set by |S|, not by the "
                "workload's grid, and a "
                "scaled workload can make the scaler back off to another scale"));

}  // namespace
}  // namespace accucheck::impls
