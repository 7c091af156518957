#include "checking/families.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

#include "checking/float_gen.h"
#include "checking/shapes.h"
#include "numerics/exact.h"

namespace accucheck {
namespace {

// Sizes the workload and returns a setter for element j's i-th addend (i = 0: initial value).
struct Columns {
  DenseWorkload& w;
  Columns(DenseWorkload& workload, std::size_t elements, std::size_t steps) : w(workload) {
    w.elements = elements;
    w.steps = steps;
    w.initial.assign(elements, 0.0);
    w.addends.assign(elements * steps, 0.0);
  }
  std::size_t n() const { return w.steps + 1; }
  void set(std::size_t j, std::size_t i, double value) {
    if (i == 0)
      w.initial[j] = value;
    else
      w.addends[(i - 1) * w.elements + j] = value;
  }
};

std::size_t draw_elements(ChoiceStream& s, const GenerationLimits& l) { return 1 + s.draw(l.max_elements - 1); }
std::size_t draw_steps(ChoiceStream& s, const GenerationLimits& l) {
  if (l.fixed_steps) return l.fixed_steps;
  if (!l.step_choices.empty()) return l.step_choices[s.pick(l.step_choices.size())];
  return 1 + s.draw(std::max<std::size_t>(l.max_steps, 1) - 1);
}
std::size_t draw_long_steps(ChoiceStream& s, const GenerationLimits& l) {
  if (l.fixed_steps) return l.fixed_steps;
  if (!l.step_choices.empty()) return l.step_choices[s.pick(l.step_choices.size())];
  const std::size_t scale = s.coin() ? l.max_long_steps : l.max_steps;
  return 1 + s.draw(std::max<std::size_t>(scale, 1) - 1);
}
// The usual shape: the element count, then the step count, drawn in that order.
Columns drawn_columns(ChoiceStream& s, const GenerationLimits& l, DenseWorkload& w) {
  const std::size_t elements = draw_elements(s, l);
  const std::size_t steps = draw_steps(s, l);
  return Columns(w, elements, steps);
}

// Loss scaling for the narrow formats, as training does: gradients of 1e-11..1e-7 are mostly
// below f16's range, so f16 gradients are scaled by 2^k (k drawn, 0 simplest).
int loss_scale_exponent(ChoiceStream& s, Format f) { return f == Format::f16 ? static_cast<int>(s.draw(24)) : 0; }

void mixed_magnitudes(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  Columns c = drawn_columns(s, l, w);
  const int k = loss_scale_exponent(s, f);
  for (std::size_t j = 0; j < w.elements; ++j)
    for (std::size_t i = 0; i < c.n(); ++i) {
      // A few large values (1e-3 .. 1) among transformer-sized gradients (1e-11 .. 1e-7).
      const bool large = s.chance(1, 16);
      c.set(j, i, large ? draw_band_float(s, f, -10 + k, 0 + k) : draw_band_float(s, f, -37 + k, -24 + k));
    }
}

void ill_conditioned(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // After Ogita, Rump & Oishi's GenDot (SIAM J. Sci. Comput. 26, 2005, sec. 6): the first half
  // spans exponents up to b = log2(kappa); the second half cancels the running exact sum down to
  // magnitudes decreasing to 2^e0, so S ~ 2^e0 while A ~ 2^(e0+b): kappa ~ 2^b up to a factor
  // about n (1 to 1e30 where the format's range allows). b = 0 gives positive addends only:
  // kappa = 1 exactly.
  const std::size_t elements = draw_elements(s, l);  // draws in order: elements, steps, b
  std::size_t steps = std::max<std::size_t>(1, draw_steps(s, l));
  const auto& t = traits(f);
  const int max_b = std::min(100, t.emax - t.emin - 8);
  int b = static_cast<int>(s.draw(static_cast<std::uint64_t>(max_b)));
  // Each cancelling step can lower the magnitude by at most p-2 bits (a smaller target is lost
  // in the rounding of the cancelling addend), so the chain is lengthened to reach 2^b, or b is
  // lowered when the length is fixed.
  const std::size_t per_step = static_cast<std::size_t>(t.precision - 2);
  const std::size_t cancelling = (static_cast<std::size_t>(b) + per_step - 1) / per_step;
  if (l.fixed_steps)
    b = std::min<int>(b, static_cast<int>(per_step * ((steps + 1) - (steps + 1) / 2)));
  else
    steps = std::max(steps, 2 * cancelling + 1);
  Columns c(w, elements, steps);
  const int e0 = std::clamp(-b / 2, t.emin, t.emax - b - 8);
  const std::size_t n = c.n(), half = std::max<std::size_t>(1, n / 2);
  for (std::size_t j = 0; j < w.elements; ++j) {
    BoostExactAccumulator running;
    for (std::size_t i = 0; i < n; ++i) {
      double v;
      if (i < half || b == 0) {
        const int e = e0 + (i == 0 ? b : static_cast<int>(s.draw(static_cast<std::uint64_t>(b))));
        v = draw_band_float(s, f, e, e, /*positive=*/b == 0);
      } else {
        const int e = e0 + static_cast<int>(
                               std::lround(double(b) * double(n - 1 - i) / double(std::max<std::size_t>(1, n - half))));
        const double target = draw_band_float(s, f, e, e);
        v = round_to_format(target - nearest_double(running.result().sum), f);
        if (!std::isfinite(v)) v = target;
      }
      running.add(v);
      c.set(j, i, v);
    }
  }
}

// +-2^-(18..27): how far a logit gradient is from 0.5 (sign first, then the exponent).
double nudge(ChoiceStream& s) {
  const double sign = s.coin() ? 1.0 : -1.0;
  return std::ldexp(sign, -18 - static_cast<int>(s.draw(10)));
}

void near_cancelling(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // The mxnet-16686 reproduction: two steps, g = p*h with p about +0.5 then -0.5 and hidden
  // activations h up to 7.5e-7: the steps nearly cancel (kappa about 5e6).
  Columns c(w, draw_elements(s, l), 2);
  const int k = f == Format::f16 ? 16 + static_cast<int>(s.draw(8)) : 0;
  for (std::size_t j = 0; j < w.elements; ++j) {
    const double h = draw_band_float(s, f, -30 + k, -21 + k, /*positive=*/true);
    const double p0 = 0.5 + nudge(s);
    const double p1 = -(0.5 + nudge(s));
    c.set(j, 0, s.chance(1, 4) ? draw_band_float(s, f, -50 + k, -40 + k) : 0.0);
    c.set(j, 1, round_to_format(round_to_format(p0, f) * h, f));
    c.set(j, 2, round_to_format(round_to_format(p1, f) * h, f));
  }
}

void stagnation(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // A running sum at 2^p (256 in bf16, 2048 in f16, 2^24 in f32), then many increments at or
  // below half an ulp: each is absorbed, the error grows by the increment every step.
  const std::size_t elements = 1 + s.draw(std::min<std::size_t>(l.max_elements, 2) - 1);
  const std::size_t steps = draw_long_steps(s, l);
  Columns c(w, elements, steps);
  const auto& t = traits(f);
  const std::uint64_t zig = s.draw(16);
  const int shift = zig % 2 == 0 ? static_cast<int>(zig / 2) : -static_cast<int>((zig + 1) / 2);
  const int e = std::clamp(t.precision + shift, t.emin + t.precision, t.emax - 2);
  const int mode = static_cast<int>(s.draw(3));
  const bool mixed_signs = s.chance(1, 4);
  for (std::size_t j = 0; j < w.elements; ++j) {
    double big = std::ldexp(1.0, e);
    for (std::uint64_t u = s.draw(3); u > 0; --u) big = next_up(big, f);
    c.set(j, 0, big);
    const double half_ulp = ulp(big, f) / 2;
    for (std::size_t i = 1; i < c.n(); ++i) {
      double inc;
      switch (mode) {
        case 0: inc = half_ulp; break;                // exact ties
        case 1: inc = next_down(half_ulp, f); break;  // just below a tie
        case 2: inc = draw_band_float(s, f, std::ilogb(half_ulp) - 8, std::ilogb(half_ulp), true); break;
        default: inc = s.chance(1, 8) ? 2 * half_ulp : half_ulp; break;
      }
      c.set(j, i, mixed_signs && s.coin() ? -inc : inc);
    }
  }
}

void long_chain(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  const std::size_t steps =
      l.fixed_steps ? l.fixed_steps
      : !l.step_choices.empty()
          ? l.step_choices[s.pick(l.step_choices.size())]
          : l.max_steps + s.draw(l.max_long_steps > l.max_steps ? l.max_long_steps - l.max_steps : 0);
  Columns c(w, 1 + s.draw(1), steps);
  const int low = -static_cast<int>(s.draw(20));
  const int width = static_cast<int>(s.draw(8));
  const bool same_sign = !s.chance(1, 4);
  SeededChoiceStream bulk(s.seed());  // bulk values from a sub-seed: few choices, any length
  for (std::size_t j = 0; j < w.elements; ++j)
    for (std::size_t i = 0; i < c.n(); ++i) c.set(j, i, draw_band_float(bulk, f, low, low + width, same_sign));
}

// A last addend x that makes the exact sum of the column a tie of the format: S is the midpoint
// between RNE(S') (S' the exact sum of the other addends) and its neighbour above or below.
// False (the column unchanged) when no value of the format does it exactly.
bool make_exact_sum_a_tie(ChoiceStream& s, Format f, Columns& c, std::size_t j) {
  const std::size_t n = c.n();
  if (n < 2) return false;
  BoostExactAccumulator others;
  for (std::size_t i = 0; i + 1 < n; ++i) others.add(i == 0 ? c.w.initial[j] : c.w.addend(i - 1, j));
  const FixedInt previous = others.result().sum;
  const double r = round_fixed(previous, f);
  if (!std::isfinite(r)) return false;
  const double neighbour = s.coin() ? next_up(r, f) : next_down(r, f);
  if (!std::isfinite(neighbour)) return false;
  const FixedInt twice_midpoint = to_fixed(r) + to_fixed(neighbour);
  if (twice_midpoint % 2 != 0) return false;  // subnormal f64 spacing: the midpoint is off the grid
  const FixedInt x_fixed = twice_midpoint / 2 - previous;
  const double x = nearest_double(x_fixed);
  if (!std::isfinite(x) || to_fixed(x) != x_fixed || !representable(x, f)) return false;
  c.set(j, n - 1, x);
  return true;
}

void exact_ties(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // Every in-order addition is an exact tie: the addend is an odd multiple of half an ulp of
  // the running (naive, format-f) sum. From a power of two, ties to even never move the sum.
  // Half of the time the last addend is replaced by one that makes the exact sum itself a tie
  // of the format, for the tie-breaking of correctly rounded backends.
  const std::size_t elements = draw_elements(s, l);  // draws in order: elements, then steps
  const std::size_t steps = s.chance(1, 4) ? draw_long_steps(s, l) : draw_steps(s, l);
  Columns c(w, elements, steps);
  for (std::size_t j = 0; j < w.elements; ++j) {
    double running = s.coin() ? draw_band_float(s, f, -4, 4) : std::ldexp(1.0, static_cast<int>(s.draw(8)) - 4);
    c.set(j, 0, running);
    for (std::size_t i = 1; i < c.n(); ++i) {
      const double half = std::max(ulp(running, f) / 2, smallest_subnormal(f));
      double x = half * (s.chance(1, 4) ? 3.0 : 1.0);
      if (s.chance(1, 8)) x = -x;
      x = round_to_format(x, f);
      c.set(j, i, x);
      running = round_to_format(running + x, f);
    }
    if (s.coin()) make_exact_sum_a_tie(s, f, c, j);
  }
}

void overflow_partials(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // Partial sums overflow while the exact sum is finite: +M, +M, ..., -M, -M, ...
  const std::size_t copies = 1 + s.draw(3);
  const std::size_t extra = s.draw(4);
  Columns c(w, draw_elements(s, l), 2 * copies + extra - 1);
  for (std::size_t j = 0; j < w.elements; ++j) {
    double m = largest_finite(f);
    for (std::uint64_t k = s.draw(3); k > 0; --k) m = next_down(m, f);
    std::size_t i = 0;
    for (std::size_t k = 0; k < copies; ++k) c.set(j, i++, m);
    for (std::size_t k = 0; k < copies; ++k) c.set(j, i++, -m);
    for (std::size_t k = 0; k < extra; ++k) {
      // Simple values, kept below 2^(emax-3) so that their exact sum stays finite.
      const double x = draw_simple_float(s, f);
      c.set(j, i++, std::fabs(x) < std::ldexp(1.0, traits(f).emax - 3) ? x : std::copysign(1.0, x));
    }
  }
}

void subnormal_only(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  Columns c = drawn_columns(s, l, w);
  const std::uint64_t top = (std::uint64_t{1} << (traits(f).precision - 1)) - 1;
  for (std::size_t j = 0; j < w.elements; ++j)
    for (std::size_t i = 0; i < c.n(); ++i) {
      const double v = static_cast<double>(1 + s.draw(top - 1)) * smallest_subnormal(f);
      c.set(j, i, s.coin() ? -v : v);
    }
}

void exact_zero(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // Values and their negations: S == 0 exactly (kappa infinite). An element is made of -0 only
  // with probability 1/3 (IEEE: its sum is -0; any other exact zero sum is +0).
  Columns c = drawn_columns(s, l, w);
  for (std::size_t j = 0; j < w.elements; ++j) {
    const bool all_negative_zero = s.chance(1, 3);
    const std::size_t n = c.n(), pairs = n / 2;
    for (std::size_t k = 0; k < pairs; ++k) {
      const double x = all_negative_zero ? -0.0 : draw_float(s, f, false);
      c.set(j, 2 * k, x);
      c.set(j, 2 * k + 1, all_negative_zero ? -0.0 : -x);
    }
    if (n % 2) c.set(j, n - 1, all_negative_zero || s.coin() ? -0.0 : 0.0);
  }
}

void special_mix(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  Columns c = drawn_columns(s, l, w);
  for (std::size_t j = 0; j < w.elements; ++j)
    for (std::size_t i = 0; i < c.n(); ++i)
      // A quarter special values, half of those NaN or an infinity (each a sixth of a quarter).
      c.set(j, i,
            !s.chance(1, 4) ? draw_float(s, f, false)
            : s.coin() ? std::array{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity()}[s.pick(3)]
                       : draw_special_float(s, f, false));
}

void uniform(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // The baseline a user writes first: uniform random floats in [-1, 1].
  Columns c = drawn_columns(s, l, w);
  for (std::size_t j = 0; j < w.elements; ++j)
    for (std::size_t i = 0; i < c.n(); ++i)
      // Choice c in [0, 2^53] maps to (c + 2^52 mod 2^53 + 1) 2^-52 - 1: choice 0 is 0.
      c.set(j, i,
            round_to_format(std::ldexp(static_cast<double>((s.draw(std::uint64_t{1} << 53) + (std::uint64_t{1} << 52)) %
                                                           ((std::uint64_t{1} << 53) + 1)),
                                       -52) -
                                1.0,
                            f));
}

// ---------------------------------------------------------------------------------------------
// Product workloads (GEMM with beta = 1): C += A_t * B_t.

struct ProductShape {
  ProductWorkload& p;
  ProductShape(Workload& w, std::size_t rows, std::size_t cols, std::size_t batch, std::size_t steps)
      : p(std::get<ProductWorkload>(w)) {
    p.rows = rows;
    p.cols = cols;
    p.batch = batch;
    p.steps = steps;
    p.initial.assign(rows * cols, 0.0);
    p.a.assign(steps * rows * batch, 0.0);
    p.b.assign(steps * batch * cols, 0.0);
  }
  double& a(std::size_t t, std::size_t m, std::size_t k) { return p.a[(t * p.rows + m) * p.batch + k]; }
  double& b(std::size_t t, std::size_t k, std::size_t n) { return p.b[(t * p.batch + k) * p.cols + n]; }
};

void product_near_cancelling(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  // mxnet-16686 CPU: dW1 (2 x hidden) += dlogits^T (2 x batch) * relu(h) (batch x hidden) over two
  // steps whose logit gradients are about +0.5 and -0.5; h in [0, 7.5e-7], some exactly 0 (relu).
  const std::size_t rows = 1 + s.draw(1), cols = 1 + s.draw(std::min<std::size_t>(l.max_elements, 8) - 1),
                    batch = 1 + s.draw(1);
  ProductShape c(w, rows, cols, batch, 2);
  const int k = f == Format::f16 ? 16 + static_cast<int>(s.draw(8)) : 0;
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t m = 0; m < c.p.rows; ++m)
      for (std::size_t b = 0; b < c.p.batch; ++b) {
        const double sign = ((t + m) % 2 == 0) ? 1.0 : -1.0;
        c.a(t, m, b) = round_to_format(sign * (0.5 + nudge(s)), f);
      }
  for (std::size_t b = 0; b < c.p.batch; ++b)
    for (std::size_t n = 0; n < c.p.cols; ++n) {
      const double h = s.chance(1, 2) ? 0.0 : draw_band_float(s, f, -30 + k, -21 + k, true);
      for (std::size_t t = 0; t < 2; ++t) c.b(t, b, n) = h;  // the same input at both steps
    }
}

void product_mixed_magnitudes(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  const std::size_t rows = 1 + s.draw(2), cols = 1 + s.draw(2), batch = 1 + s.draw(l.max_batch - 1),
                    steps = 1 + s.draw(3);
  ProductShape c(w, rows, cols, batch, steps);
  const int k = loss_scale_exponent(s, f) / 2;
  for (double& x : c.p.initial) x = s.chance(1, 2) ? 0.0 : draw_band_float(s, f, -37 + 2 * k, -20 + 2 * k);
  for (double& x : c.p.a) x = s.chance(1, 16) ? draw_band_float(s, f, -6, 0) : draw_band_float(s, f, -20 + k, -10 + k);
  for (double& x : c.p.b) x = s.chance(1, 8) ? 0.0 : draw_band_float(s, f, -20 + k, -8 + k);
}

void product_cancelling_batch(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  // Products that cancel across the batch: (a, b) then (a', -b) with a' close to a.
  const std::size_t half = 1 + s.draw(std::max<std::size_t>(l.max_batch / 2, 1) - 1);
  const std::size_t cols = 1 + s.draw(2), steps = 1 + s.draw(1);
  ProductShape c(w, 1, cols, 2 * half, steps);
  for (std::size_t t = 0; t < c.p.steps; ++t)
    for (std::size_t k = 0; k < half; ++k) {
      const double a = draw_band_float(s, f, -8, 4);
      c.a(t, 0, 2 * k) = a;
      c.a(t, 0, 2 * k + 1) = s.coin() ? a : next_up(a, f);
      for (std::size_t n = 0; n < c.p.cols; ++n) {
        const double b = draw_band_float(s, f, -8, 4);
        c.b(t, 2 * k, n) = b;
        c.b(t, 2 * k + 1, n) = -b;
      }
    }
  for (double& x : c.p.initial) x = s.coin() ? 0.0 : draw_band_float(s, f, -30, -10);
}

void product_accumulation(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  // Gradient accumulation of a dense layer's weight gradient over T micro-batches (16 vs 32 in
  // mxnet-16686; T up to max_product_steps), K = the batch: dW (rows x cols) += dY_t^T (rows x K) * X_t (K x cols),
  // logit gradients of either sign, relu activations (a third exactly 0), the previous gradient in C.
  const std::size_t rows = 1 + s.draw(1), cols = 1 + s.draw(std::min<std::size_t>(l.max_elements, 4) - 1);
  const std::size_t batch = 1 + s.draw(std::max<std::size_t>(l.max_batch, 1) - 1);
  const std::size_t steps = 1 + s.draw(std::max<std::size_t>(l.max_product_steps, 1) - 1);
  ProductShape c(w, rows, cols, batch, steps);
  const int k = loss_scale_exponent(s, f) / 2;
  for (double& x : c.p.initial) x = s.chance(1, 3) ? 0.0 : draw_band_float(s, f, -40 + 2 * k, -20 + 2 * k);
  for (double& x : c.p.a) x = draw_band_float(s, f, -12 + k, -1 + k);
  for (double& x : c.p.b) x = s.chance(1, 3) ? 0.0 : draw_band_float(s, f, -24 + k, -12 + k, /*positive=*/true);
}

void product_fp8_inputs(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  // FP8 training's weight-gradient GEMM, dW += dY^T X over T micro-batches: A = dY^T and B = X
  // both in E4M3 (DeepSeek-V3's recipe), the gradients dY in E5M2 and the activations X in E4M3
  // (Transformer Engine's HYBRID recipe), or both in E5M2, a third each. Per-tensor scaling puts
  // each operand's largest values near the top of its format, the rest spread over the binades
  // below, relu activations a third zero, and one value in 16 a special one of its format (the
  // largest finite value, subnormals, NaN, E5M2's infinities); C, the gradient so far, in the
  // storage format.
  const std::uint64_t recipe = s.draw(2);
  const Format a_in = recipe == 0 ? Format::e4m3 : Format::e5m2, b_in = recipe == 2 ? Format::e5m2 : Format::e4m3;
  const std::size_t rows = 1 + s.draw(1), cols = 1 + s.draw(std::min<std::size_t>(l.max_elements, 4) - 1);
  const std::size_t batch = 1 + s.draw(std::max<std::size_t>(l.max_batch, 1) - 1);
  const std::size_t steps = 1 + s.draw(std::max<std::size_t>(l.max_product_steps, 1) - 1);
  ProductShape c(w, rows, cols, batch, steps);
  c.p.input_format = a_in;
  if (b_in != a_in) c.p.b_input_format = b_in;
  // Operands below 2^6, products below 2^12 (f16 holds 16 of those at their largest) unless special.
  const int top = 5, spread = 2 + static_cast<int>(s.draw(static_cast<std::uint64_t>(top + 8)));
  auto operand = [&](Format in, bool positive) {
    if (s.chance(1, 16)) return draw_special_float(s, in, /*with_nonfinite=*/true);
    return draw_band_float(s, in, top - spread, top, positive);
  };
  for (double& x : c.p.a) x = operand(a_in, false);
  for (double& x : c.p.b) x = s.chance(1, 3) ? 0.0 : operand(b_in, true);
  for (double& x : c.p.initial) x = s.chance(1, 3) ? 0.0 : draw_band_float(s, f, -4, 10);
}

void product_special_values(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  // NaN, infinities and special finite values among C, A and B: inf * 0 is NaN, a huge
  // product overflows, and +inf and -inf products cancel to NaN.
  const std::size_t rows = 1 + s.draw(1), cols = 1 + s.draw(1),
                    batch = 1 + s.draw(std::min<std::size_t>(l.max_batch, 8) - 1), steps = 1 + s.draw(1);
  ProductShape c(w, rows, cols, batch, steps);
  auto value = [&] { return s.chance(1, 4) ? draw_special_float(s, f, true) : draw_float(s, f, false); };
  for (double& x : c.p.initial) x = value();
  for (double& x : c.p.a) x = value();
  for (double& x : c.p.b) x = value();
}

// ---------------------------------------------------------------------------------------------
// Sparse workloads (embedding gradients): rows repeat within and across steps.

struct SparseShape {
  SparseWorkload& w;
  SparseShape(Workload& workload, std::size_t rows, std::size_t dim, std::size_t steps)
      : w(std::get<SparseWorkload>(workload)) {
    w.rows = rows;
    w.dim = dim;
    w.steps = steps;
    w.initial.assign(rows * dim, 0.0);
    w.step_offsets.assign(1, 0);
    w.row_index.clear();
    w.values.clear();
  }
  // Appends a pair (its vector from `value()`), then closes steps: pairs are spread over the
  // steps in order, pair q in step t when pairs*t/steps <= q < pairs*(t+1)/steps.
  template <class Value>
  void add(std::uint32_t row, Value value) {
    w.row_index.push_back(row);
    for (std::size_t d = 0; d < w.dim; ++d) w.values.push_back(value());
  }
  void spread_steps() {
    const std::size_t pairs = w.row_index.size();
    w.step_offsets.assign(1, 0);
    for (std::size_t t = 1; t <= w.steps; ++t) w.step_offsets.push_back(pairs * t / w.steps);
  }
};

// Zipf's law over ranks: P(rank r) proportional to 1/(r+1)^exponent, by inversion of the exact
// cumulative weights (binary search), so that a uniform u = 0 (the zero choice) is rank 0, the
// hottest row. Word frequencies in text and token ids in NLP batches follow it with an exponent
// near 1 (Zipf 1935; Piantadosi, Psychon. Bull. Rev. 21, 2014).
class ZipfRows {
 public:
  ZipfRows(std::size_t rows, double exponent) : cumulative_(rows) {
    double total = 0;
    for (std::size_t r = 0; r < rows; ++r) cumulative_[r] = total += std::pow(static_cast<double>(r + 1), -exponent);
  }
  std::uint32_t draw(ChoiceStream& s) const {
    const double u = static_cast<double>(s.draw((std::uint64_t{1} << 32) - 1)) * 0x1p-32 * cumulative_.back();
    const auto at = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    return static_cast<std::uint32_t>(std::min<std::size_t>(at - cumulative_.begin(), cumulative_.size() - 1));
  }

 private:
  std::vector<double> cumulative_;
};

enum class Hotness { zipf, hot_row, uniform };

// rows, dim, steps, then the number of pairs (long: up to max_row_hits, when the hot row is the
// point), the loss-scale exponent, the initial gradient, and the pairs: a row by the hotness
// law, then its vector (transformer-sized gradients, or special values). Values of long pair
// lists come from a sub-seed (few choices, any length), as long_chain's do.
void fill_sparse(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w, Hotness hotness,
                 bool special = false) {
  const std::size_t rows = 1 + s.draw(std::max<std::size_t>(l.max_table_rows, 1) - 1);
  const std::size_t dim = 1 + s.draw(std::max<std::size_t>(l.max_dim, 1) - 1);
  const std::size_t steps = 1 + s.draw(std::min<std::size_t>(std::max<std::size_t>(l.max_steps, 1), 16) - 1);
  SparseShape c(w, rows, dim, steps);
  const bool long_list = hotness == Hotness::hot_row && !special && s.chance(1, 4) && l.max_row_hits > l.max_pairs;
  const std::size_t pairs =
      long_list ? s.draw(std::max(std::min(l.max_row_hits, l.max_long_steps), l.max_pairs)) : s.draw(l.max_pairs);
  const int k = loss_scale_exponent(s, f);
  for (double& x : c.w.initial) x = s.chance(1, 2) ? 0.0 : draw_band_float(s, f, -30 + k, -16 + k);
  const std::uint32_t hot = static_cast<std::uint32_t>(s.draw(rows - 1));
  const double exponent = 1.0 + 0.1 * static_cast<double>(s.draw(4));  // 1.0 .. 1.4
  const ZipfRows zipf(hotness == Hotness::zipf ? rows : 1, exponent);
  SeededChoiceStream bulk(long_list ? s.seed() : 0);
  ChoiceStream& v = long_list ? static_cast<ChoiceStream&>(bulk) : s;
  for (std::size_t q = 0; q < pairs; ++q) {
    std::uint32_t row;
    switch (hotness) {
      case Hotness::zipf: row = zipf.draw(v); break;
      case Hotness::hot_row: row = v.chance(1, 8) ? static_cast<std::uint32_t>(v.draw(rows - 1)) : hot; break;
      default: row = static_cast<std::uint32_t>(v.draw(rows - 1)); break;
    }
    c.add(row, [&] {
      if (!special) return draw_band_float(v, f, -26 + k, -12 + k);
      return v.chance(1, 4) ? draw_special_float(v, f, true) : draw_float(v, f, false);
    });
  }
  c.spread_steps();
}

void sparse_zipf(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  fill_sparse(s, f, l, w, Hotness::zipf);
}
void sparse_hot_row(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  fill_sparse(s, f, l, w, Hotness::hot_row);
}
void sparse_uniform_rows(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  fill_sparse(s, f, l, w, Hotness::uniform);
}
void sparse_special_values(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  fill_sparse(s, f, l, w, Hotness::hot_row, true);
}

void sparse_fp8_rows(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  // An embedding's gradient rows in FP8 (E4M3 or E5M2, half each, as fp8_gradients) into a table
  // of the storage format: rows Zipf-hot, each step's rows scaled as one tensor (the step's top
  // binade up to 7 below the format's), one value in 32 a special of the FP8 format; the table
  // starts at zero or at the gradient so far.
  const Format in = s.coin() ? Format::e5m2 : Format::e4m3;
  const std::size_t rows = 1 + s.draw(std::max<std::size_t>(l.max_table_rows, 1) - 1);
  const std::size_t dim = 1 + s.draw(std::max<std::size_t>(l.max_dim, 1) - 1);
  const std::size_t steps = 1 + s.draw(std::min<std::size_t>(std::max<std::size_t>(l.max_steps, 1), 16) - 1);
  SparseShape c(w, rows, dim, steps);
  c.w.input_format = in;
  const std::size_t pairs = s.draw(l.max_pairs);
  const int top = traits(in).emax, spread = 2 + static_cast<int>(s.draw(10));
  for (double& x : c.w.initial) x = s.chance(1, 2) ? 0.0 : draw_band_float(s, f, top - 8, top + 4);
  const ZipfRows zipf(rows, 1.0 + 0.1 * static_cast<double>(s.draw(4)));
  for (std::size_t t = 0; t < steps; ++t) {  // the pairs spread_steps() puts in step t
    const int step_top = top - static_cast<int>(s.draw(7));
    for (std::size_t q = pairs * t / steps; q < pairs * (t + 1) / steps; ++q)
      c.add(zipf.draw(s), [&] {
        return s.chance(1, 32) ? draw_special_float(s, in, /*with_nonfinite=*/true)
                               : draw_band_float(s, in, step_top - spread, step_top);
      });
  }
  c.spread_steps();
}

void sparse_token_batches(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  // mxnet-16686's GPU reproduction: each step is one token batch (B x L tokens, 2 x 14 there)
  // into a small vocabulary; one token repeats up to 7 times in a batch, other rows are absent
  // from some batches; each token's output gradient is a transformer-sized vector (1e-11 ..
  // 1e-7) of either sign. 16 or 32 accumulation steps are what the incident compared.
  const std::size_t rows = 1 + s.draw(std::max<std::size_t>(l.max_table_rows, 1) - 1);
  const std::size_t dim = 1 + s.draw(std::max<std::size_t>(l.max_dim, 1) - 1);
  const std::size_t steps = 1 + s.draw(std::min<std::size_t>(std::max<std::size_t>(l.max_steps, 1), 32) - 1);
  const std::size_t tokens = s.draw(std::min<std::size_t>(28, std::max<std::size_t>(l.max_pairs / steps, 1)));
  SparseShape c(w, rows, dim, steps);
  const int k = loss_scale_exponent(s, f);
  for (double& x : c.w.initial) x = s.chance(1, 4) ? 0.0 : draw_band_float(s, f, -37 + k, -20 + k);
  for (std::size_t t = 0; t < steps; ++t) {
    const std::uint32_t repeated = static_cast<std::uint32_t>(s.draw(rows - 1));
    const std::size_t repeats = std::min<std::size_t>(tokens, s.draw(6) + 1);  // up to 7 times
    const std::size_t vocabulary_used = 1 + s.draw(rows - 1);                  // rows above it are absent
    for (std::size_t i = 0; i < tokens; ++i) {
      const std::uint32_t row = i < repeats ? repeated : static_cast<std::uint32_t>(s.draw(vocabulary_used - 1));
      c.add(row, [&] { return draw_band_float(s, f, -37 + k, -24 + k); });
    }
    c.w.step_offsets.push_back(c.w.row_index.size());
  }
}

// ---------------------------------------------------------------------------------------------
// Multi-input sums (ElemwiseSum under kAddTo): a parameter used m times gets its m gradients
// summed into the existing buffer in one step. As a dense workload the steps are the m inputs.

void multi_input(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // m = 1 .. 8 inputs (mxnet-17995 double counted from 5 on), ALBERT-bias-like: the inputs of
  // one parameter share a scale, half of the time with mixed signs; the buffer holds an earlier
  // accumulation (grad_req 'add') of the same scale.
  const std::size_t elements = draw_elements(s, l);  // draws in order: elements, then inputs
  const std::size_t inputs = l.fixed_steps ? l.fixed_steps : 1 + s.draw(7);
  Columns c(w, elements, inputs);
  const int k = loss_scale_exponent(s, f);
  const int scale = -30 + static_cast<int>(s.draw(24)) + k;  // 2^-30 .. 2^-6 unscaled, within f16 once scaled
  const bool mixed_signs = s.coin();
  for (std::size_t j = 0; j < w.elements; ++j)
    for (std::size_t i = 0; i < c.n(); ++i) {
      const double x = draw_band_float(s, f, scale - 3, scale, /*positive=*/!mixed_signs);
      c.set(j, i, i == 0 && s.chance(1, 3) ? 0.0 : x);
    }
}

// ---------------------------------------------------------------------------------------------
// Reductions over ranks (all-reduce): a dense workload read as P = T + 1 ranks' buffers, rank 0's
// in the initial value (docs/bounds.md "All-reduce over ranks").

// P: small worlds in half the cases (and first: the zero choices), then powers of two and their
// neighbours (where the algorithms fold extra ranks or halve), then any P up to 1024; within the
// step limits. Small worlds also leave room for the boundary shapes' wide buffers (D x P values).
std::size_t draw_ranks(ChoiceStream& s, const GenerationLimits& l) {
  if (l.fixed_steps) return l.fixed_steps + 1;
  if (!l.step_choices.empty()) return l.step_choices[s.pick(l.step_choices.size())] + 1;
  const std::size_t most = std::clamp<std::size_t>(std::max(l.max_steps, l.max_long_steps) + 1, 2, 1024);
  std::size_t ranks = 0;
  switch (s.draw(3)) {
    case 0:
    case 1: ranks = 2 + s.draw(14); break;
    case 2: ranks = (std::size_t{1} << (1 + s.draw(9))) + s.draw(2) - 1; break;
    default: ranks = 2 + s.draw(1022); break;
  }
  return std::clamp<std::size_t>(ranks, 2, most);
}

// D: as other families, or next to a multiple of P (m P - 1, m P, m P + 1 for m = 1..4: where the
// rings' chunks and blocks change size) while the buffer stays within the boundary shapes'
// budget (none when they are off: the encoding could not hold it).
std::size_t draw_rank_elements(ChoiceStream& s, const GenerationLimits& l, std::size_t ranks) {
  const std::size_t ordinary = draw_elements(s, l);
  if (!s.chance(1, 3)) return ordinary;
  const std::size_t boundary = (1 + s.draw(3)) * ranks + s.draw(2) - 1;
  const bool fits = l.max_wide_values > 0 && boundary <= l.max_wide_elements &&
                    boundary * ranks <= std::min<std::size_t>(l.max_wide_values, std::size_t{1} << 16);
  return fits ? boundary : ordinary;
}

// Values of small reductions come from the stream itself (they shrink value by value); those of
// large ones from a sub-seed, as long chains' do.
constexpr std::size_t kMaxStreamedRankValues = 64;

void ranks_magnitudes(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // Data-parallel gradients whose scale differs by rank (unequal shards, a rank with a loss
  // spike): rank r's values within 3 binades below 2^e_r, e_r up to `spread` binades below the
  // largest (12 in f16, whose range is narrow; 40 otherwise); of one sign two times in three.
  const std::size_t ranks = draw_ranks(s, l);
  Columns c(w, draw_rank_elements(s, l, ranks), ranks - 1);
  const int top = -6 + loss_scale_exponent(s, f);
  const int spread = static_cast<int>(s.draw(f == Format::f16 ? 12 : 40));
  const bool same_sign = !s.chance(1, 3);
  const bool streamed = ranks * w.elements <= kMaxStreamedRankValues;
  SeededChoiceStream bulk(streamed ? 0 : s.seed());
  ChoiceStream& values = streamed ? s : bulk;
  for (std::size_t r = 0; r < ranks; ++r) {
    const int e = top - static_cast<int>(values.draw(static_cast<std::uint64_t>(spread)));
    for (std::size_t j = 0; j < w.elements; ++j) c.set(j, r, draw_band_float(values, f, e - 3, e, same_sign));
  }
}

void ranks_cancelling(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // Cancellation across ranks: rank pairs whose gradients nearly cancel (a value and its negation
  // moved by 0..3 units in the last place), neighbours (2i, 2i+1) or half a world apart (i, i +
  // P/2: the pair meets late in a tree and early or late around a ring); a rank without a
  // partner holds a value 2^-20 of the others'. The exact sum is orders below the values.
  const std::size_t ranks = draw_ranks(s, l);
  Columns c(w, draw_rank_elements(s, l, ranks), ranks - 1);
  const int top = -10 + loss_scale_exponent(s, f);
  const bool far_apart = s.coin();
  const bool streamed = ranks * w.elements <= kMaxStreamedRankValues;
  SeededChoiceStream bulk(streamed ? 0 : s.seed());
  ChoiceStream& values = streamed ? s : bulk;
  const std::size_t half = ranks / 2;
  for (std::size_t j = 0; j < w.elements; ++j) {
    for (std::size_t k = 0; k < half; ++k) {
      const std::size_t a = far_apart ? k : 2 * k, b = far_apart ? k + half : 2 * k + 1;
      const double x = draw_band_float(values, f, top - 8, top);
      double y = -x;
      for (std::uint64_t moves = values.draw(3); moves > 0; --moves)
        y = values.coin() ? next_up(y, f) : next_down(y, f);
      c.set(j, a, x);
      c.set(j, b, y);
    }
    if (ranks % 2 == 1) c.set(j, ranks - 1, draw_band_float(values, f, top - 28, top - 20));
  }
}

void fp8_gradients(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  // Micro-batch gradients that arrive in FP8 and are accumulated into a buffer of the storage
  // format: E4M3 for every tensor (DeepSeek-V3's recipe) or E5M2 for gradients (Transformer
  // Engine's HYBRID recipe), half each. Per-tensor scaling puts a step's largest values near
  // the top of the format, each step's scale its own (delayed scaling from an amax history
  // leaves the top up to 7 binades unused), the rest spread over the binades below; one value
  // in 32 a special one of its format (the largest finite value, subnormals, NaN, E5M2's
  // infinities). The buffer starts at zero or at the gradient so far, up to 2^4 times a step's
  // largest values: E5M2's 57344 doubles past f16's 65504 in two steps.
  const Format in = s.coin() ? Format::e5m2 : Format::e4m3;
  w.input_format = in;
  const std::size_t elements = draw_elements(s, l);
  Columns c(w, elements, draw_long_steps(s, l));
  const int top = traits(in).emax, spread = 2 + static_cast<int>(s.draw(10));
  for (std::size_t t = 1; t < c.n(); ++t) {
    const int step_top = top - static_cast<int>(s.draw(7));
    for (std::size_t j = 0; j < w.elements; ++j)
      c.set(j, t,
            s.chance(1, 32) ? draw_special_float(s, in, /*with_nonfinite=*/true)
                            : draw_band_float(s, in, step_top - spread, step_top));
  }
  for (std::size_t j = 0; j < w.elements; ++j)
    c.set(j, 0, s.chance(1, 3) ? 0.0 : draw_band_float(s, f, top - 8, top + 4));
}

template <void (*Fill)(ChoiceStream&, Format, const GenerationLimits&, DenseWorkload&)>
void dense(ChoiceStream& s, Format f, const GenerationLimits& l, Workload& w) {
  Fill(s, f, l, std::get<DenseWorkload>(w));
}

const std::vector<Family> kFamilies = {
    {"mixed_magnitudes", "a few large values among many in [1e-11, 1e-7] (transformer gradients)", true,
     WorkloadKind::dense, dense<mixed_magnitudes>},
    {"ill_conditioned", "prescribed condition number 1 .. 1e30 (after Ogita-Rump-Oishi GenDot)", true,
     WorkloadKind::dense, dense<ill_conditioned>},
    {"near_cancelling", "two steps of about +-0.5*h, h <= 7.5e-7 (mxnet-16686, kappa ~5e6)", true, WorkloadKind::dense,
     dense<near_cancelling>},
    {"stagnation", "a sum at 2^p (256 bf16, 2048 f16, 2^24 f32) absorbing increments <= half an ulp", true,
     WorkloadKind::dense, dense<stagnation>},
    {"long_chain", "long accumulation chains (10^4 in CI, 10^6 at night) of same-sign values", true,
     WorkloadKind::dense, dense<long_chain>},
    {"exact_ties", "every in-order addition an exact tie", true, WorkloadKind::dense, dense<exact_ties>},
    {"overflow_partials", "partial sums overflow while the exact sum is finite", true, WorkloadKind::dense,
     dense<overflow_partials>},
    {"subnormal_only", "only subnormal addends", true, WorkloadKind::dense, dense<subnormal_only>},
    {"exact_zero", "values and their negations: the exact sum is zero (sometimes all -0)", true, WorkloadKind::dense,
     dense<exact_zero>},
    {"special_values", "NaN, infinities and special finite values mixed in", true, WorkloadKind::dense,
     dense<special_mix>},
    {"uniform", "uniform random floats in [-1, 1] (baseline, not adversarial)", false, WorkloadKind::dense,
     dense<uniform>},
    {"gemm_near_cancelling", "dW += dY^T X over two steps with logit gradients +-0.5 (mxnet-16686)", true,
     WorkloadKind::product, product_near_cancelling},
    {"gemm_mixed_magnitudes", "GEMM beta=1 with gradient-sized products and a few large ones", true,
     WorkloadKind::product, product_mixed_magnitudes},
    {"gemm_cancelling_batch", "products that cancel pairwise across the batch", true, WorkloadKind::product,
     product_cancelling_batch},
    {"embedding_zipf", "embedding gradient, Zipf-distributed row hotness (exponent 1.0 .. 1.4), tail rows never hit",
     true, WorkloadKind::sparse, sparse_zipf},
    {"embedding_hot_row", "embedding gradient, one row hit by most pairs (up to max_row_hits times)", true,
     WorkloadKind::sparse, sparse_hot_row},
    {"embedding_uniform_rows", "embedding gradient, rows uniform, many never hit", true, WorkloadKind::sparse,
     sparse_uniform_rows},
    // Appended after the others of their kind: families_of(kind) keeps its earlier indices.
    {"gemm_special_values", "NaN, infinities and special finite values in C, A and B", true, WorkloadKind::product,
     product_special_values},
    {"embedding_special_values", "embedding gradient with NaN, infinities and special finite values, one hot row", true,
     WorkloadKind::sparse, sparse_special_values},
    // Gradient-accumulation workloads (issue 5), appended so that earlier indices stay put.
    {"multi_input", "ElemwiseSum of m = 1..8 inputs into the buffer (mxnet-17995), one scale per parameter", true,
     WorkloadKind::dense, dense<multi_input>},
    {"gemm_accumulation", "dW += dY^T X over T micro-batches (max_product_steps), K = batch, relu activations", true,
     WorkloadKind::product, product_accumulation},
    {"gemm_fp8_inputs",
     "dW += dY^T X with dY and X in E4M3 or E5M2 (per-tensor scaled, specials 1 in 16), C in the storage format", true,
     WorkloadKind::product, product_fp8_inputs},
    {"embedding_token_batches",
     "token batches (up to 2 x 14) into a table, one token up to 7 times, rows absent (mxnet-16686 GPU)", true,
     WorkloadKind::sparse, sparse_token_batches},
    // Reductions over P = T + 1 ranks (issue 20).
    {"ranks_magnitudes",
     "an all-reduce over P = 2..1024 ranks (T = P - 1) whose gradient scales differ by rank, D near multiples of P",
     true, WorkloadKind::dense, dense<ranks_magnitudes>},
    {"ranks_cancelling",
     "an all-reduce over P = 2..1024 ranks whose values cancel in pairs, neighbours or half a world apart", true,
     WorkloadKind::dense, dense<ranks_cancelling>},
    // FP8 storage (issue 19).
    {"fp8_gradients",
     "micro-batch gradients in E4M3 or E5M2 (per-tensor scaled, each step its own scale, specials 1 in 32) into a "
     "buffer of the storage format",
     true, WorkloadKind::dense, dense<fp8_gradients>},
    {"embedding_fp8_rows",
     "embedding gradient rows in E4M3 or E5M2 (Zipf-hot rows, each step its own scale, specials 1 in 32) into a table "
     "of the storage format",
     true, WorkloadKind::sparse, sparse_fp8_rows},
};

}  // namespace

const std::vector<Family>& families() { return kFamilies; }

const Family* find_family(std::string_view name) {
  for (const auto& f : kFamilies)
    if (f.name == name) return &f;
  return nullptr;
}

std::string_view name(Order o) {
  switch (o) {
    case Order::as_generated: return "as_generated";
    case Order::ascending_magnitude: return "ascending";
    case Order::descending_magnitude: return "descending";
    case Order::alternating_signs: return "alternating";
    case Order::shuffled: return "shuffled";
  }
  return "?";
}

void reorder(DenseWorkload& w, Order order, ChoiceStream& s) {
  if (order == Order::as_generated) return;
  const std::size_t first = w.first_movable_term();
  std::vector<double> column;
  for (std::size_t j = 0; j < w.elements; ++j) {
    w.column(j, column);
    const auto begin = column.begin() + static_cast<std::ptrdiff_t>(first);
    switch (order) {
      case Order::as_generated: break;
      case Order::ascending_magnitude:
        std::stable_sort(begin, column.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
        break;
      case Order::descending_magnitude:
        std::stable_sort(begin, column.end(), [](double a, double b) { return std::fabs(a) > std::fabs(b); });
        break;
      case Order::alternating_signs: {
        std::vector<double> positive, negative;
        for (auto x = begin; x != column.end(); ++x) (std::signbit(*x) ? negative : positive).push_back(*x);
        column.resize(first);
        for (std::size_t k = 0; k < std::max(positive.size(), negative.size()); ++k) {
          if (k < positive.size()) column.push_back(positive[k]);
          if (k < negative.size()) column.push_back(negative[k]);
        }
        break;
      }
      case Order::shuffled: shuffle(column, s, first); break;
    }
    w.initial[j] = column[0];
    for (std::size_t t = 0; t < w.steps; ++t) w.addends[t * w.elements + j] = column[t + 1];
  }
}

std::vector<const Family*> families_of(WorkloadKind kind) {
  std::vector<const Family*> found;
  for (const auto& fam : kFamilies)
    if (fam.adversarial && fam.kind == kind) found.push_back(&fam);
  return found;
}

const Family* special_values_family(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::dense: return find_family("special_values");
    case WorkloadKind::product: return find_family("gemm_special_values");
    case WorkloadKind::sparse: return find_family("embedding_special_values");
  }
  return nullptr;
}

Workload generate(ChoiceStream& s, Format f, const GenerationLimits& limits, WorkloadKind kind, const Family* family) {
  // Drawn first, so that short choice sequences (RapidCheck's early byte vectors) widen too; the
  // shape itself comes from a sub-seed drawn after the family's choices. Not drawn at all when
  // the limits allow no boundary shapes (the fuzzers' seeds keep their meaning).
  const bool wide = limits.max_wide_values > 0 && limits.wide_one_in > 0 && s.chance(1, limits.wide_one_in);
  if (!family) {
    const auto candidates = families_of(kind);
    family = candidates[s.pick(candidates.size())];
  }
  Workload w;
  switch (family->kind) {
    case WorkloadKind::dense: w = DenseWorkload{}; break;
    case WorkloadKind::product: w = ProductWorkload{}; break;
    case WorkloadKind::sparse: w = SparseWorkload{}; break;
  }
  std::visit([&](auto& x) { x.format = f; }, w);
  family->fill(s, f, limits, w);
  std::string label(family->name);
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    const auto order = static_cast<Order>(s.draw(4));
    reorder(*d, order, s);
    if (order != Order::as_generated) label += "/" + std::string(name(order));
  }
  if (wide) {
    // The sub-seed mixes a drawn word with the case's values: an exhausted byte stream (draws of
    // 0) still widens each case its own way.
    std::uint64_t seed = fnv1a_le64(s.seed());
    for_each_value_array(w, [&](const std::vector<double>& values) {
      for (double x : values) seed = fnv1a_le64(std::bit_cast<std::uint64_t>(x), seed);
    });
    SeededChoiceStream shape(seed);
    if (widen_at_boundaries(shape, limits, w)) label += "/wide";
  }
  if (kind_of(w) != WorkloadKind::product && limits.layout_one_in > 0 && s.chance(1, limits.layout_one_in)) {
    decode_layout(s, w);
    if (auto* d = std::get_if<DenseWorkload>(&w); d && !d->layout.contiguous()) label += "/strided";
    if (auto* sp = std::get_if<SparseWorkload>(&w); sp && !sp->layout.contiguous()) label += "/strided";
  }
  std::visit([&](auto& x) { x.family = label; }, w);
  return w;
}

}  // namespace accucheck
