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
//
// The per-architecture variants (tc_v100_f16_f32 .. tc_b200_fp8_f32) take K and the window from
// the simulators' public code (docs/bounds.md "How the shipped models differ") and, as there,
// round each fused sum toward zero: to FP32, or to 13 fraction bits (e8m13) on Hopper's FP8 path.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/per_element.h"

namespace accucheck::impls {
namespace {

constexpr int kWindowBits = 14;

// How a fused step treats its operands and its sum.
struct FusedArithmetic {
  int window = kWindowBits;  // W: bits kept from the largest operand's leading one
  int result_bits = 24;      // Q: significant bits of the rounded sum (FP32's 24, e8m13's 14)
  bool toward_zero = false;  // the sum truncated to Q bits, else rounded to nearest even in FP32
};

// s toward zero to `bits` significant bits on FP32's exponent range (its subnormal spacing
// 2^(-126-bits+1) below 2^-126); beyond FP32's range, the largest such value (IEEE's RZ overflow).
float truncate_to_bits(double s, int bits) {
  if (s == 0) return static_cast<float>(s);
  const double quantum = std::ldexp(1.0, std::max(std::ilogb(s), -126) - bits + 1);
  const double t = std::trunc(s / quantum) * quantum;
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - bits), 127);
  return static_cast<float>(std::fabs(t) > largest ? std::copysign(largest, s) : t);
}

// The fused step: c + sum(group) with every operand truncated to multiples of 2^(E-W+1). The
// operands are FP32 values, or (TF32 GEMM) exact products held in doubles.
template <class Addend>
double fused_step(double c, std::span<const Addend> group, const FusedArithmetic& a) {
  double largest = std::fabs(c);
  for (Addend t : group) largest = std::max(largest, std::fabs(static_cast<double>(t)));
  if (largest == 0 || !std::isfinite(largest)) {  // zeros (their IEEE sign), or IEEE's inf/NaN rules
    double s = c;
    for (Addend t : group) s += t;
    return static_cast<float>(s);
  }
  const double quantum = std::ldexp(1.0, std::ilogb(largest) - a.window + 1);
  // Exact: each truncated operand is a multiple of the quantum below 2^(E+1) = 2^W quanta
  // (at most 65 of them, W <= 46: below 2^53 quanta).
  double s = std::trunc(c / quantum) * quantum;
  for (Addend t : group) s += std::trunc(static_cast<double>(t) / quantum) * quantum;
  if (a.toward_zero) return truncate_to_bits(s, a.result_bits);
  return static_cast<float>(s);  // one rounding, to nearest even
}

// A chain of fused steps from `start`, the next K addends in each.
template <class Addend>
double fused_chain(double start, std::span<const Addend> addends, std::size_t addends_per_step,
                   const FusedArithmetic& a) {
  double c = start;
  for (std::size_t i = 0; i < addends.size(); i += addends_per_step)
    c = fused_step<Addend>(c, addends.subspan(i, std::min(addends_per_step, addends.size() - i)), a);
  return c;
}

// The promoted chain: `start` is the FP32 accumulator; each chunk of `period` addends is summed
// by fused steps from zero, then added to the accumulator.
float promoted_chain(float start, std::span<const float> addends, std::size_t addends_per_step, std::size_t period,
                     const FusedArithmetic& a) {
  float accumulator = start;
  for (std::size_t chunk = 0; chunk < addends.size(); chunk += period) {
    const double partial =
        fused_chain<float>(0, addends.subspan(chunk, std::min(period, addends.size() - chunk)), addends_per_step, a);
    accumulator += static_cast<float>(partial);  // exact conversion: fused_step rounded to FP32
  }
  return accumulator;
}

DenseRun fused_run(std::size_t addends_per_step, FusedArithmetic arithmetic) {
  return [=](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    sum_each_element<float>(w, result, [=](std::span<const float> x) {
      return static_cast<float>(fused_chain<float>(x[0], x.subspan(1), addends_per_step, arithmetic));
    });
  };
}

// x[0] starts the FP32 accumulator of the promoted chain.
DenseRun promoted_run(std::size_t addends_per_step, std::size_t period, FusedArithmetic arithmetic = {}) {
  return [=](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    sum_each_element<float>(w, result, [=](std::span<const float> x) {
      return promoted_chain(x[0], x.subspan(1), addends_per_step, period, arithmetic);
    });
  };
}

Backend fused(std::size_t addends_per_step) {
  const std::string k = std::to_string(addends_per_step), w = std::to_string(kWindowBits);
  return dense_backend("tc_fused" + k + "_w" + w + "_f32", Format::f32, Format::f32, "fused(" + k + "," + w + ",f32)",
                       Determinism::bitwise_deterministic,
                       "tensor-core model: " + k + " addends and the accumulator aligned to the largest exponent, " +
                           w + " bits kept (truncated below), added exactly, rounded once to FP32",
                       fused_run(addends_per_step, FusedArithmetic{}));
}

Backend promoted(std::size_t addends_per_step, std::size_t period) {
  const std::string k = std::to_string(addends_per_step), w = std::to_string(kWindowBits), n = std::to_string(period);
  return dense_backend("tc_fused" + k + "_w" + w + "_nc" + n + "_f32", Format::f32, Format::f32,
                       "fused_promoted(" + k + "," + w + "," + n + ",f32)", Determinism::bitwise_deterministic,
                       "tensor-core model promoted every " + n + " addends (DeepSeek-V3): " + k +
                           "-addend fused steps with a " + w +
                           "-bit window from zero, each chunk's sum added to an FP32 "
                           "accumulator",
                       promoted_run(addends_per_step, period));
}

// Hopper's FP8 arithmetic (K = 32, 14-bit window, sums cut to e8m13) promoted to an FP32
// accumulator every `period` addends: DeepSeek-V3's fix (sec. 3.3.2) on the hardware it ran on.
Backend hopper_fp8_promoted(std::size_t period) {
  const std::string n = std::to_string(period);
  return dense_backend(
      "tc_h100_fp8_nc" + n + "_f32", Format::f32, Format::f32, "fused_promoted(32,14," + n + ",14,f32)",
      Determinism::bitwise_deterministic,
      "tensor-core model of H100's FP8 MMA (32 addends, 14-bit window, sums cut to e8m13) promoted every " + n +
          " addends to an FP32 accumulator (DeepSeek-V3)",
      promoted_run(32, period, FusedArithmetic{14, 14, true}));
}

// One architecture's fused arithmetic: K, W = the kept fraction bits + 1, Q, each sum toward zero.
Backend architecture(const std::string& name, std::size_t addends_per_step, int window, int result_bits,
                     const std::string& which) {
  const std::string k = std::to_string(addends_per_step), w = std::to_string(window), q = std::to_string(result_bits);
  return dense_backend(name, Format::f32, Format::f32, "fused_truncated(" + k + "," + w + "," + q + ",f32)",
                       Determinism::bitwise_deterministic,
                       "tensor-core model of " + which + ": " + k + " addends and the accumulator aligned, " + w +
                           " bits kept (truncated), the sum truncated to " + q + " bits",
                       fused_run(addends_per_step, FusedArithmetic{window, result_bits, true}));
}

// FP8 GEMM on the tensor-core models: C += sum over t, k of A_t[m][k] B_t[k][n] with A and B each
// in E4M3 or E5M2 (mixed too, as Hopper's FP8 MMA allows), whose products are exact in FP32 (at
// most two 4-bit significands; exponents 2^-32 to 2^32). C starts the chain and the products follow in step and batch
// order, K to a fused step, the steps running on across the T GEMMs' batches: the dense model's chain on the column (C,
// products), so its bound with n = 1 + T K and A = |C| + sum |a b| (as the oracle forms them) holds as derived.
// (Separate GEMM calls per micro-batch would restart the groups at each step: more fused steps than ceil((n-1)/K),
// which these bounds do not count.) period 0: not promoted. Element (m, n)'s products A_t[m][k] B_t[k][n] in step and
// batch order, each formed by `product` (exactly), into `out` (steps * batch of them).
template <class Addend, class Product>
void products_of(const ProductWorkload& w, std::size_t m, std::size_t n, std::vector<Addend>& out,
                 const Product& product) {
  for (std::size_t t = 0; t < w.steps; ++t)
    for (std::size_t k = 0; k < w.batch; ++k) out[t * w.batch + k] = product(w.a_at(t, m, k), w.b_at(t, k, n));
}

ProductRun fp8_gemm_run(std::size_t addends_per_step, std::size_t period, FusedArithmetic arithmetic) {
  return [=](const ProductWorkload& w, std::span<double> result, const RunOptions&) {
    std::vector<float> products(w.steps * w.batch);
    each_product_element<float>(w, result, [&](std::size_t m, std::size_t n, float c) {
      products_of(w, m, n, products, [](double a, double b) { return static_cast<float>(a * b); });  // exact
      if (period != 0) return promoted_chain(c, products, addends_per_step, period, arithmetic);
      return static_cast<float>(fused_chain<float>(c, products, addends_per_step, arithmetic));  // a float's value
    });
  };
}

Backend fp8_gemm(const std::string& name, std::size_t period, int window, int result_bits, const std::string& bound,
                 const std::string& which) {
  Backend b = product_backend(name, Format::f32, Format::f32, bound, Determinism::bitwise_deterministic,
                              "FP8 GEMM C += A*B (E4M3/E5M2 inputs only) on the tensor-core model of " + which,
                              fp8_gemm_run(32, period, FusedArithmetic{window, result_bits, true}));
  b.fp8_inputs_only = true;
  return b;
}

// TF32 GEMM: C += sum over t, k of A_t[m][k] B_t[k][n] with FP32 inputs that the tensor core reads
// as TF32, truncated toward zero to 10 fraction bits (the low 13 bits of the FP32 encoding
// cleared, subnormals kept: MMA-Sim arithmetic.py `x >> 13 << 13`; Khattak & Mikaitis GEMM.m,
// round = 4). The products of two 11-bit significands are exact (in a double: their exponents can
// leave FP32's range), then the architecture's fused chain runs from C over them in step and
// batch order, as fp8_gemm_run does. Bound truncated_inputs(fused_truncated(...),11)
// (docs/bounds.md "Truncated inputs"): it needs normal inputs, so a workload with a subnormal
// in A or B is not run (Backend::normal_inputs_only).
float truncated_to_tf32(float x) {
  if (!std::isfinite(x)) return x;
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & ~std::uint32_t{0x1fff});
}

ProductRun tf32_gemm_run(std::size_t addends_per_step, FusedArithmetic arithmetic) {
  return [=](const ProductWorkload& w, std::span<double> result, const RunOptions&) {
    std::vector<double> products(w.steps * w.batch);
    each_product_element<float>(w, result, [&](std::size_t m, std::size_t n, float c) {
      products_of(w, m, n, products, [](double a, double b) {
        return static_cast<double>(truncated_to_tf32(static_cast<float>(a))) *
               truncated_to_tf32(static_cast<float>(b));  // exact
      });
      return static_cast<float>(fused_chain<double>(c, products, addends_per_step, arithmetic));
    });
  };
}

Backend tf32_gemm(const std::string& name, std::size_t addends_per_step, int window, const std::string& which) {
  const std::string k = std::to_string(addends_per_step), w = std::to_string(window);
  Backend b = product_backend(
      name, Format::f32, Format::f32, "truncated_inputs(fused_truncated(" + k + "," + w + ",24,f32),11)",
      Determinism::bitwise_deterministic,
      "TF32 GEMM C += A*B (FP32 inputs truncated to TF32; no subnormal inputs) on the tensor-core "
      "model of " +
          which + ": " + k + " products a step, " + w + "-bit window, sums cut to FP32",
      tf32_gemm_run(addends_per_step, FusedArithmetic{window, 24, true}));
  b.normal_inputs_only = true;
  return b;
}

ACCUCHECK_REGISTER_BACKEND(fused(4));
ACCUCHECK_REGISTER_BACKEND(fused(8));
ACCUCHECK_REGISTER_BACKEND(fused(16));
ACCUCHECK_REGISTER_BACKEND(fused(32));
ACCUCHECK_REGISTER_BACKEND(promoted(32, 32));
ACCUCHECK_REGISTER_BACKEND(promoted(32, 128));
ACCUCHECK_REGISTER_BACKEND(promoted(32, 512));
ACCUCHECK_REGISTER_BACKEND(architecture("tc_v100_f16_f32", 4, 24, 24, "V100 (fp16 inputs)"));
ACCUCHECK_REGISTER_BACKEND(architecture("tc_a100_f16_f32", 8, 25, 24, "A100 and Ada (fp16, bf16 inputs)"));
ACCUCHECK_REGISTER_BACKEND(architecture("tc_h100_f16_f32", 16, 26, 24, "H100 and B200 (fp16, bf16 inputs)"));
ACCUCHECK_REGISTER_BACKEND(architecture("tc_h100_fp8_f32", 32, 14, 14, "H100 (fp8 inputs; results cut to e8m13)"));
ACCUCHECK_REGISTER_BACKEND(architecture("tc_b200_fp8_f32", 32, 26, 24, "B200 (fp8 inputs)"));
ACCUCHECK_REGISTER_BACKEND(hopper_fp8_promoted(128));
// Ada's FP8 MMA adds 16 products per fused node (m16n8k32 runs as two chained k16 nodes), with
// Hopper's 14-bit window and e8m13 results (MMA-Sim simulator/nv_ptx.py, split-k and
// n_accum_fractional_bits = 13; MATLAB-tensor-core models/AdaTC.m fma = 16, neab = -10).
ACCUCHECK_REGISTER_BACKEND(architecture("tc_ada_fp8_f32", 16, 14, 14, "Ada (fp8 inputs; results cut to e8m13)"));
// TF32 MMA: A100 adds 4 products per node (m16n8k8 as two chained k4 nodes), H100 8; the windows of
// the fp16 paths (MMA-Sim nv_ptx.py; MATLAB A100TC.m fma = 4, H100TC.m fma = 8). The addends are the
// products of TF32 inputs (exact in FP32); tc_*_tf32_gemm_f32 below model the inputs' conversion.
ACCUCHECK_REGISTER_BACKEND(architecture("tc_a100_tf32_f32", 4, 25, 24, "A100 (tf32 inputs)"));
ACCUCHECK_REGISTER_BACKEND(architecture("tc_h100_tf32_f32", 8, 26, 24, "H100 (tf32 inputs)"));
ACCUCHECK_REGISTER_BACKEND(fp8_gemm("tc_h100_fp8_gemm_f32", 0, 14, 14, "fused_truncated(32,14,14,f32)",
                                    "H100 (32 products a step, 14-bit window, sums cut to e8m13)"));
ACCUCHECK_REGISTER_BACKEND(fp8_gemm("tc_h100_fp8_gemm_nc128_f32", 128, 14, 14, "fused_promoted(32,14,128,14,f32)",
                                    "H100 promoted to FP32 every 128 products (DeepSeek-V3)"));
ACCUCHECK_REGISTER_BACKEND(fp8_gemm("tc_b200_fp8_gemm_f32", 0, 26, 24, "fused_truncated(32,26,24,f32)",
                                    "B200 (32 products a step, 26-bit window, sums cut to FP32)"));
ACCUCHECK_REGISTER_BACKEND(tf32_gemm("tc_a100_tf32_gemm_f32", 4, 25, "A100"));
ACCUCHECK_REGISTER_BACKEND(tf32_gemm("tc_h100_tf32_gemm_f32", 8, 26, "H100"));

}  // namespace
}  // namespace accucheck::impls
