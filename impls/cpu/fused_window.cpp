// A model of tensor-core accumulation: each step adds K addends and the FP32 accumulator in one
// fused operation that aligns them to the largest exponent E among them, keeps W bits from
// there (weights 2^E .. 2^(E-W+1); what falls below is truncated toward zero), adds exactly, and
// rounds once into FP32 (to nearest even). This is the multi-term fused addition of the
// bit-accurate models of MMA-Sim (arXiv 2511.10909) and Khattak & Mikaitis (arXiv 2512.07004);
// W = 14 is the accumulation precision DeepSeek-V3 (technical report, 2024, sec. 3.3) measured
// for FP8 GEMM on H800 (about 14 bits). The addends are FP32 values (an FP8 product is one).
//
// The promoted variants are DeepSeek-V3's remedy (sec. 3.3.2, "Increasing Accumulation
// Precision"): the tensor core's fused chain restarts from zero every N_C addends and its sum is
// added to an FP32 accumulator on the CUDA cores (one FP32 addition, round to nearest even).
// N_C = 128 is the report's choice (four WGMMAs of K = 32 on H800); 32 and 512 bracket it.
#include <cmath>
#include <string>

#include "common/per_element.h"

namespace accucheck::impls {
namespace {

constexpr int kWindowBits = 14;

// The fused step: c + sum(group) with every operand truncated to multiples of 2^(E-W+1).
double fused_step(double c, std::span<const float> group, int window) {
  double largest = std::fabs(c);
  for (float t : group) largest = std::max(largest, std::fabs(static_cast<double>(t)));
  if (largest == 0 || !std::isfinite(largest)) {  // zeros (their IEEE sign), or IEEE's inf/NaN rules
    double s = c;
    for (float t : group) s += t;
    return static_cast<float>(s);
  }
  const double quantum = std::ldexp(1.0, std::ilogb(largest) - window + 1);
  // Exact: each truncated operand is a multiple of the quantum below 2^(E+1) = 2^W quanta
  // (at most 65 of them, W <= 46: below 2^53 quanta).
  double s = std::trunc(c / quantum) * quantum;
  for (float t : group) s += std::trunc(static_cast<double>(t) / quantum) * quantum;
  return static_cast<float>(s);  // one rounding, to nearest even
}

DenseRun fused_run(std::size_t addends_per_step, int window) {
  return [=](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    sum_each_element<float>(w, result, [=](std::span<const float> x) {
      double c = x[0];
      for (std::size_t i = 1; i < x.size(); i += addends_per_step)
        c = fused_step(c, x.subspan(i, std::min(addends_per_step, x.size() - i)), window);
      return static_cast<float>(c);
    });
  };
}

// The promoted chain: x[0] starts the FP32 accumulator; each chunk of `period` addends is summed
// by fused steps from zero, then added to the accumulator.
DenseRun promoted_run(std::size_t addends_per_step, std::size_t period, int window) {
  return [=](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    sum_each_element<float>(w, result, [=](std::span<const float> x) {
      float accumulator = x[0];
      for (std::size_t chunk = 1; chunk < x.size(); chunk += period) {
        const std::span<const float> addends = x.subspan(chunk, std::min(period, x.size() - chunk));
        double partial = 0;
        for (std::size_t i = 0; i < addends.size(); i += addends_per_step)
          partial = fused_step(partial, addends.subspan(i, std::min(addends_per_step, addends.size() - i)), window);
        accumulator += static_cast<float>(partial);  // exact conversion: fused_step rounded to FP32
      }
      return accumulator;
    });
  };
}

Backend fused(std::size_t addends_per_step) {
  const std::string k = std::to_string(addends_per_step), w = std::to_string(kWindowBits);
  return dense_backend("tc_fused" + k + "_w" + w + "_f32", Format::f32, Format::f32, "fused(" + k + "," + w + ",f32)",
                       Determinism::bitwise_deterministic,
                       "tensor-core model: " + k + " addends and the accumulator aligned to the largest exponent, " + w +
                           " bits kept (truncated below), added exactly, rounded once to FP32",
                       fused_run(addends_per_step, kWindowBits));
}

Backend promoted(std::size_t addends_per_step, std::size_t period) {
  const std::string k = std::to_string(addends_per_step), w = std::to_string(kWindowBits), n = std::to_string(period);
  return dense_backend("tc_fused" + k + "_w" + w + "_nc" + n + "_f32", Format::f32, Format::f32,
                       "fused_promoted(" + k + "," + w + "," + n + ",f32)", Determinism::bitwise_deterministic,
                       "tensor-core model promoted every " + n + " addends (DeepSeek-V3): " + k +
                           "-addend fused steps with a " + w + "-bit window from zero, each chunk's sum added to an FP32 "
                           "accumulator",
                       promoted_run(addends_per_step, period, kWindowBits));
}

ACCUCHECK_REGISTER_BACKEND(fused(4));
ACCUCHECK_REGISTER_BACKEND(fused(8));
ACCUCHECK_REGISTER_BACKEND(fused(16));
ACCUCHECK_REGISTER_BACKEND(fused(32));
ACCUCHECK_REGISTER_BACKEND(promoted(32, 32));
ACCUCHECK_REGISTER_BACKEND(promoted(32, 128));
ACCUCHECK_REGISTER_BACKEND(promoted(32, 512));

}  // namespace
}  // namespace accucheck::impls
