// mxnet-17995: ElemwiseSum under req = kAddTo with more than 4 inputs double counted the
// running sum (out = out + (out + in_i)); FPN and ALBERT diverged with grad_req='add'
// (ALBERT's bias gradient read 315.06 instead of 19.947). Fixed in MXNet 1.7 (PR 17995).
//
// Real: the kernel (MXNet 1.6's ElementWiseSum default case, replicated here as it was; the
// fixed kernel is the registered elemwise_sum_addto_f32), kAddTo into an existing buffer,
// 2..8 inputs. Reconstructed: the gradient values: a bias vector of 4 elements whose exact
// gradient is 19.947 (element 0) and a few others of ALBERT-like size, split into m inputs.
#include <cmath>
#include <string>

#include "checking/choice.h"
#include "checking/float_gen.h"
#include "scenarios.h"

namespace accucheck::scenarios {
namespace {

// MXNet 1.6's ElemwiseSum, req = kAddTo: the specialised kernels for 2, 3, 4 inputs were right
// (out + (in0 + in1 [+ in2 [+ in3]])); the default case for more inputs assigned
// out += in0 + in1 and then, for each further input, Sum(out, in_i) with kAddTo, which
// computes out = out + (out + in_i).
void mxnet16_elemwise_sum(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    float out = static_cast<float>(w.initial[j]);
    const std::size_t m = w.steps;
    auto in = [&](std::size_t i) { return static_cast<float>(w.addend(i, j)); };
    if (m == 0) {
    } else if (m <= 4) {
      float sum = in(0);
      for (std::size_t i = 1; i < m; ++i) sum = sum + in(i);
      out = out + sum;
    } else {
      out = out + (in(0) + in(1));
      for (std::size_t i = 2; i < m; ++i) out = out + (out + in(i));  // the bug
    }
    result[j] = out;
  }
}

DenseWorkload bias_inputs(std::size_t m) {
  SeededChoiceStream s(17995 + m);
  DenseWorkload w;
  w.format = Format::f32;
  w.elements = 4;
  w.steps = m;
  w.initial.assign(4, 0.0);  // the first accumulation into a zeroed gradient
  const double totals[4] = {19.947, -3.25, 0.8125, 7.0};
  w.addends.assign(m * 4, 0.0);
  for (std::size_t j = 0; j < 4; ++j) {
    // m shares of the total: equal parts perturbed by up to +-25 %, the last one taking the rest.
    double left = totals[j];
    for (std::size_t i = 0; i + 1 < m; ++i) {
      const double share =
          totals[j] / static_cast<double>(m) * (0.75 + 0.5 * static_cast<double>(s.draw(1000)) / 1000.0);
      const float x = static_cast<float>(share);
      w.addends[i * 4 + j] = x;
      left -= x;
    }
    w.addends[(m - 1) * 4 + j] = static_cast<float>(left);
  }
  w.family = "mxnet-17995";
  return w;
}

}  // namespace

ScenarioResult mxnet_17995() {
  const Backend replica =
      dense_backend("mxnet16_elemwise_sum_f32 (replica)", Format::f32, Format::f32, "anyorder(f32)",
                    Determinism::bitwise_deterministic, "MXNet 1.6 ElemwiseSum, kAddTo", &mxnet16_elemwise_sum);
  ScenarioResult r{
      .name = "mxnet-17995",
      .title = "ElemwiseSum of m inputs under kAddTo: fixed kernel vs MXNet 1.6's double counting (MXNet PR 17995)",
      .provenance = {
          "real: the kernels (MXNet 1.6 default case replicated; the fix is elemwise_sum_addto_f32), kAddTo, m = 2 .. "
          "8 inputs",
          "reconstructed: the gradient values: a 4-element bias whose exact gradient is 19.947 (element 0, ALBERT's "
          "reported value), "
          "split into m perturbed shares",
      }};
  for (std::size_t m = 2; m <= 8; ++m) {
    const DenseWorkload w = bias_inputs(m);
    const auto exact = exact_sums(w);
    const std::string tensor = "bias_grad@" + std::to_string(m) + "_inputs";
    r.paths.push_back(run_path("fixed", tensor, registered("elemwise_sum_addto_f32"), w, exact, {4}));
    r.paths.push_back(run_path("mxnet-1.6", tensor, replica, w, exact, {4}));
    r.divergences.push_back(diverge(r.path("fixed", tensor), r.path("mxnet-1.6", tensor)));
    r.figures.push_back({tensor + ".read", r.path("mxnet-1.6", tensor).values[0],
                         "element 0 as MXNet 1.6 computes it (exact 19.947; ALBERT read 315.06)"});
  }
  r.story = formatted(
      "With up to 4 inputs both kernels are within anyorder(f32); from 5 inputs on, MXNet 1.6 adds the running sum to "
      "itself once per extra input, so a bias gradient of 19.947 reads %.5g with 5 inputs, %.5g with 7 and %.5g with 8 "
      "(ALBERT read 315.06) - a bound-exceeded verdict on every element, not a rounding effect.",
      r.figure("bias_grad@5_inputs.read"), r.figure("bias_grad@7_inputs.read"), r.figure("bias_grad@8_inputs.read"));
  return r;
}

}  // namespace accucheck::scenarios
