// The planted bugs. Each is a small variation of a correct backend (impls/cpu/) or of a real
// framework kernel, with the claim the correct version would make.
#include "mutants.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <thread>

#include "cuda/cub/binned_accumulator.h"
#include "numerics/exact.h"
#include "numerics/fast_exact.h"
#include "numerics/soft_float.h"

namespace accucheck::mutants {
namespace {

// Element j's addends in order, the initial value first.
std::vector<double> column(const DenseWorkload& w, std::size_t j) {
  std::vector<double> x;
  w.column(j, x);
  return x;
}

// A dense f32 mutant from a per-element function of the addends (as floats).
template <class Sum>
DenseRun per_element_f32(Sum sum) {
  return [sum](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    for (std::size_t j = 0; j < w.elements; ++j) {
      const auto x = column(w, j);
      std::vector<float> f(x.begin(), x.end());
      result[j] = static_cast<double>(sum(f));
    }
  };
}

Mutant dense(const char* name, const char* bound, Determinism d, const char* summary, DenseRun run, const char* bug,
             const char* origin, Property expected, Format storage = Format::f32, Format accumulation = Format::f32) {
  return Mutant{dense_backend(name, storage, accumulation, bound, d, summary, std::move(run)), bug, origin, expected};
}

// 1. Kahan whose compensation is computed but never applied: y = x instead of y = x - c.
float kahan_lost(const std::vector<float>& x) {
  float s = x[0], c = 0.0f;
  for (std::size_t i = 1; i < x.size(); ++i) {
    const float y = x[i];  // BUG: should be x[i] - c
    const float t = s + y;
    c = (t - s) - y;
    s = t;
  }
  (void)c;
  return s;
}

// 2. The running sum kept in an f16 register while the buffer and the claim are f32.
float f16_accumulator(const std::vector<float>& x) {
  Half acc(static_cast<double>(x[0]));
  for (std::size_t i = 1; i < x.size(); ++i) acc = acc + Half(static_cast<double>(x[i]));
  return static_cast<float>(acc.value());
}

// 3. mxnet-17995: ElemwiseSum with more than 4 inputs under kAddTo computed, in its loop,
// out = out + (out + in_i), counting the running sum again. Inputs = the steps; out starts as
// the buffer's value. Up to 4 inputs the specialised kernels were right.
void elemwise_sum(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    float out = static_cast<float>(w.initial[j]);
    const std::size_t m = w.steps;
    auto in = [&](std::size_t i) { return static_cast<float>(w.addend(i, j)); };
    if (m <= 4) {
      for (std::size_t i = 0; i < m; ++i) out = out + in(i);
    } else {
      out = out + (in(0) + in(1));                                    // KERNEL_ASSIGN(out, kAddTo, in0 + in1)
      for (std::size_t i = 2; i < m; ++i) out = out + (out + in(i));  // BUG: Sum(out, in_i) with kAddTo
    }
    result[j] = out;
  }
}

// 4. grad_req 'write' semantics where 'add' was asked: the buffer's value is overwritten.
float initial_overwritten(const std::vector<float>& x) {
  if (x.size() == 1) return 0.0f;  // BUG: nothing added to the (discarded) buffer
  float acc = x[1];                // BUG: starts from the first step, not from the buffer
  for (std::size_t i = 2; i < x.size(); ++i) acc = acc + x[i];
  return acc;
}

// 5. A loop unrolled by 16 whose remainder loop stops one short: chains longer than 16 lose
// their last addend.
float last_step_dropped(const std::vector<float>& x) {
  const std::size_t end = x.size() > 17 ? x.size() - 1 : x.size();  // BUG: off by one past 16 steps
  float acc = x[0];
  for (std::size_t i = 1; i < end; ++i) acc = acc + x[i];
  return acc;
}

// 6. A long accumulator whose final rounding breaks ties away from zero (round-half-away, as
// std::round does) while claiming correct rounding (ties to even).
double round_ties_away(const ExactSum& e, Format f) {
  const double r = e.rounded(f);
  if (e.special != Special::none || !std::isfinite(r)) return r;
  const FixedInt at = to_fixed(r);
  if (at == e.sum) return r;
  const double other = e.sum > at ? next_up(r, f) : next_down(r, f);
  if (!std::isfinite(other)) return r;
  if (e.sum * 2 == at + to_fixed(other) && std::fabs(other) > std::fabs(r))
    return other;  // BUG: the tie goes away from 0
  return r;
}
void ties_away(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j) result[j] = round_ties_away(fast_exact_sum(column(w, j)), w.format);
}

// 7. Subnormal inputs and results flushed to zero (a stray -ffast-math or DAZ/FTZ), while the
// claim is the plain recursive bound, not ftz(...).
float flush(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
float ftz_undeclared(const std::vector<float>& x) {
  float acc = flush(x[0]);
  for (std::size_t i = 1; i < x.size(); ++i) acc = flush(acc + flush(x[i]));
  return acc;
}

// 8, 13. The plain loop, which is right; the claims are wrong.
float naive(const std::vector<float>& x) {
  float acc = x[0];
  for (std::size_t i = 1; i < x.size(); ++i) acc = acc + x[i];
  return acc;
}

// 9. impls/cpu/threaded.cpp (chunks on threads, partials combined in completion order),
// claiming bitwise determinism.
void threaded(const DenseWorkload& w, std::span<double> result, const RunOptions& options) {
  const std::size_t n = w.steps + 1;
  const unsigned threads =
      static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(options.threads ? options.threads : 4, n)));
  auto addend = [&](std::size_t i, std::size_t j) { return i == 0 ? w.initial[j] : w.addend(i - 1, j); };
  std::vector<float> total(w.elements);
  std::vector<bool> started(w.elements, false);
  std::mutex combine;
  auto work = [&](std::size_t begin, std::size_t end) {
    std::vector<float> partial(w.elements);
    for (std::size_t j = 0; j < w.elements; ++j) {
      float acc = static_cast<float>(addend(begin, j));
      for (std::size_t i = begin + 1; i < end; ++i) acc = acc + static_cast<float>(addend(i, j));
      partial[j] = acc;
    }
    std::lock_guard lock(combine);
    for (std::size_t j = 0; j < w.elements; ++j) {
      total[j] = started[j] ? total[j] + partial[j] : partial[j];
      started[j] = true;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < threads; ++k) {
    const std::size_t begin = n * k / threads, end = n * (k + 1) / threads;
    if (begin < end) pool.emplace_back(work, begin, end);
  }
  for (auto& t : pool) t.join();
  for (std::size_t j = 0; j < w.elements; ++j) result[j] = total[j];
}

// 10. NaN addends skipped (a "robust" sum that filters x != x).
float nan_skipped(const std::vector<float>& x) {
  float acc = std::isnan(x[0]) ? 0.0f : x[0];
  for (std::size_t i = 1; i < x.size(); ++i)
    if (!std::isnan(x[i])) acc = acc + x[i];  // BUG: NaN must propagate
  return acc;
}

// 11. Neumaier's loop with the final correction s + c forgotten.
float neumaier_no_correction(const std::vector<float>& x) {
  float s = x[0], c = 0.0f;
  for (std::size_t i = 1; i < x.size(); ++i) {
    const float t = s + x[i];
    if (std::isfinite(t)) c += std::fabs(s) >= std::fabs(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
    s = t;
  }
  (void)c;
  return s;  // BUG: should be s + c
}

// 12. A correctly rounded sum that starts its accumulator from +0.0 (as NumPy's loop does), so
// that a sum of -0 addends comes out +0.
void positive_zero(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    const double r = fast_exact_sum(column(w, j)).rounded(w.format);
    result[j] = r == 0.0 ? 0.0 : r;  // BUG: -0 only when every addend is -0, and then it must stay -0
  }
}

// 14. bf16 buffer whose accumulation is claimed to be f32 but is done in bf16: stops absorbing
// +1 at 256 (tt-metal PR 53386).
void bf16_claims_f32(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    BFloat16 acc(w.initial[j]);
    for (std::size_t t = 0; t < w.steps; ++t) acc = acc + BFloat16(w.addend(t, j));
    result[j] = acc.value();
  }
}

// 15. Embedding backward whose scatter-add reads the row's value at the start of the step and
// writes base + v for every pair (a non-atomic parallel scatter: the last writer wins), so a
// row repeated within one step keeps only its last vector.
void scatter_overwrite(const SparseWorkload& w, std::span<double> result, const RunOptions&) {
  std::vector<float> table(w.initial.begin(), w.initial.end());
  for (std::size_t t = 0; t < w.steps; ++t) {
    const std::vector<float> base = table;
    for (std::size_t q = w.step_offsets[t]; q < w.step_offsets[t + 1]; ++q)
      for (std::size_t d = 0; d < w.dim; ++d) {
        const std::size_t at = w.row_index[q] * w.dim + d;
        table[at] = base[at] + static_cast<float>(w.values[q * w.dim + d]);  // BUG: base, not table
      }
  }
  std::copy(table.begin(), table.end(), result.begin());
}

// 16. GEMM called with beta = 0 where grad_req 'add' needs beta = 1: C is overwritten.
void gemm_beta0(const ProductWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t m = 0; m < w.rows; ++m)
    for (std::size_t n = 0; n < w.cols; ++n) {
      float acc = 0.0f;  // BUG: should start from C[m][n]
      for (std::size_t t = 0; t < w.steps; ++t)
        for (std::size_t k = 0; k < w.batch; ++k)
          acc = acc + static_cast<float>(w.a_at(t, m, k)) * static_cast<float>(w.b_at(t, k, n));
      result[m * w.cols + n] = acc;
    }
}

// 17-21. Mistakes at the element dimension's boundaries: each kernel is right for small D and
// loops, tiles or partitions over the elements the way SIMD loops, CUDA grids and thread pools
// are written, getting one boundary wrong (the class of CTranslate2 #351, MNN #4590 and
// gemma.cpp #194: kernels right below a size and wrong past it). Each element's own sum is the
// plain f32 loop, in which the claim, recursive(f32), holds.

// Element j accumulated onto `out` (its buffer value on the first pass, as a second block that
// also writes j adds onto what the first left).
float accumulate_onto(const DenseWorkload& w, std::size_t j, float out) {
  for (std::size_t t = 0; t < w.steps; ++t) out = out + static_cast<float>(w.addend(t, j));
  return out;
}

// A dense f32 mutant that accumulates element j `passes(D, j)` times (0: the buffer keeps its
// value, 2: the addends are added twice).
template <class Passes>
DenseRun element_passes(Passes passes) {
  return [passes](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    for (std::size_t j = 0; j < w.elements; ++j) {
      float out = static_cast<float>(w.initial[j]);
      for (int pass = passes(w.elements, j); pass > 0; --pass) out = accumulate_onto(w, j, out);
      result[j] = out;
    }
  };
}

// 17. An 8-wide SIMD loop whose scalar epilogue was lost: from D = 8 on, the last D mod 8
// elements are never written (below 8 the scalar path runs alone and is right).
int simd_tail_dropped(std::size_t d, std::size_t j) { return d >= 8 && j >= d / 8 * 8 ? 0 : 1; }

// 18. A 16-wide loop whose remainder loop starts one element late: from D = 17 on, the first
// element after the last full vector (16 floor(D/16)) is skipped when D mod 16 != 0.
int remainder_off_by_one(std::size_t d, std::size_t j) { return d > 16 && d % 16 != 0 && j == d / 16 * 16 ? 0 : 1; }

// 19. Blocks of 256 threads whose range is inclusive, [256 b, min(256 (b + 1), D - 1)]: each
// block edge 256 (b + 1) < D is accumulated by two blocks, its addends counted twice.
int block_edge_twice(std::size_t d, std::size_t j) { return j > 0 && j % 256 == 0 && j < d ? 2 : 1; }

// 20. A grid sized for the layers it was written for, min(ceil(D / 256), 4) blocks of 256
// threads, and no grid-stride loop: elements from 1024 on are never touched.
int grid_without_stride(std::size_t, std::size_t j) { return j < 1024 ? 1 : 0; }

// 21. A thread pool that splits D among 4 threads in chunks of floor(D / 4) from D = 1024 on
// (smaller buffers run serially): the last D mod 4 elements belong to no thread.
int partition_remainder_lost(std::size_t d, std::size_t j) { return d >= 1024 && j >= d / 4 * 4 ? 0 : 1; }

// cub::DeviceReduce::Sum with gpu_to_gpu determinism as CCCL 3.5.0 ships it (cub/detail/rfa.cuh),
// in one thread: impls/cuda/cub/binned_accumulator.h lists where it departs from the design.
template <class T>
void cub_rfa_3_5(const DenseWorkload& w, std::span<double> result, const RunOptions&) {
  for (std::size_t j = 0; j < w.elements; ++j)
    result[j] = cuda_models::binned_sum<T, cuda_models::Binned::cub_3_5>(column(w, j));
}

std::vector<Mutant> make_all() {
  using D = Determinism;
  std::vector<Mutant> m;
  m.push_back(dense(
      "kahan_lost_compensation_f32", "kahan(f32)", D::bitwise_deterministic, "Kahan, compensation never applied",
      per_element_f32(kahan_lost), "y = x instead of y = x - c: plain recursive summation under Kahan's bound",
      "a refactoring slip in a compensated optimizer state (AnyPrecisionAdamW-style Kahan)", Property::stated_bound));
  m.push_back(dense("f16_acc_claims_f32", "recursive(f32)", D::bitwise_deterministic, "f32 buffer, f16 running sum",
                    per_element_f32(f16_accumulator), "accumulates in f16 while claiming f32's recursive bound",
                    "half-precision partial sums (PyTorch PR 60387)", Property::stated_bound));
  m.push_back(dense("elemwise_sum_double_count_f32", "recursive(f32)", D::bitwise_deterministic,
                    "MXNet ElemwiseSum, kAddTo", elemwise_sum, "for more than 4 inputs out = out + (out + in_i)",
                    "mxnet-17995", Property::stated_bound));
  m.push_back(dense("initial_overwritten_f32", "recursive(f32)", D::bitwise_deterministic,
                    "grad_req write instead of add", per_element_f32(initial_overwritten),
                    "the buffer's initial value is overwritten, not added to",
                    "kWriteTo where kAddTo was requested (mxnet-16686's add path)", Property::stated_bound));
  m.push_back(dense("last_step_dropped_f32", "recursive(f32)", D::bitwise_deterministic,
                    "unrolled loop, remainder off by one", per_element_f32(last_step_dropped),
                    "drops the last step of chains longer than 16",
                    "an off-by-one in the remainder loop of an unrolled kernel", Property::stated_bound));
  m.push_back(dense("ties_away_correctly_rounded_f32", "correctly_rounded", D::order_independent,
                    "long accumulator, ties away", ties_away,
                    "rounds exact ties away from zero while claiming round-to-nearest-even",
                    "std::round / round-half-away in a final conversion", Property::correctly_rounded));
  m.push_back(dense("ftz_undeclared_f32", "recursive(f32)", D::bitwise_deterministic, "subnormals flushed",
                    per_element_f32(ftz_undeclared), "flushes subnormal inputs and results without declaring ftz(...)",
                    "-ffast-math / --use_fast_math setting FTZ/DAZ", Property::stated_bound));
  m.push_back(dense("recursive_claims_pairwise_f32", "tree(pairwise,f32)", D::bitwise_deterministic,
                    "plain loop, pairwise claim", per_element_f32(naive),
                    "recursive summation stating the pairwise tree bound ceil(log2 n) u A",
                    "a backend documented as pairwise whose fast path is a plain loop", Property::stated_bound));
  m.push_back(dense("threaded_claims_bitwise_f32", "anyorder(f32)", D::bitwise_deterministic,
                    "threads, completion order", threaded,
                    "combines per-thread partials in completion order while claiming bitwise determinism",
                    "atomics / unordered reductions (PyTorch 15359, TensorFlow 39751)", Property::determinism));
  m.push_back(dense("nan_skipped_f32", "recursive(f32)", D::bitwise_deterministic, "skips NaN addends",
                    per_element_f32(nan_skipped), "NaN addends are skipped instead of propagated",
                    "a 'robust' reduction that filters x != x", Property::special_values));
  m.push_back(dense("neumaier_no_correction_f32", "neumaier(f32)", D::bitwise_deterministic, "Neumaier without s + c",
                    per_element_f32(neumaier_no_correction), "returns s instead of s + c", "a dropped final line",
                    Property::stated_bound));
  m.push_back(dense("correctly_rounded_positive_zero_f32", "correctly_rounded", D::order_independent,
                    "long accumulator from +0", positive_zero, "a sum of -0 addends gives +0",
                    "accumulators initialised with 0.0 (NumPy's loop starts from 0.0)", Property::correctly_rounded));
  m.push_back(dense("naive_claims_order_independent_f32", "recursive(f32)", D::order_independent,
                    "plain loop, order claim", per_element_f32(naive),
                    "recursive summation claiming the same bits under any permutation",
                    "a reduction documented as reproducible that is merely deterministic", Property::determinism));
  m.push_back(dense("bf16_acc_claims_f32", "widened(recursive(f32),bf16)", D::bitwise_deterministic,
                    "bf16 buffer, bf16 running sum", bf16_claims_f32,
                    "accumulates in bf16 while claiming f32 accumulation",
                    "bf16 stops absorbing +1 at 256 (tt-metal PR 53386; DeepSpeed 2768)", Property::stated_bound,
                    Format::bf16, Format::f32));
  m.push_back(
      Mutant{sparse_backend("embedding_scatter_overwrite_f32", Format::f32, Format::f32, "recursive(f32)",
                            Determinism::bitwise_deterministic, "embedding backward, racy scatter", scatter_overwrite),
             "a row repeated within one step keeps only its last vector",
             "non-atomic scatter-add (mxnet-16686 GPU path)", Property::stated_bound});
  m.push_back(Mutant{product_backend("gemm_beta0_f32", Format::f32, Format::f32, "products(f32)",
                                     Determinism::bitwise_deterministic, "GEMM with beta = 0", gemm_beta0),
                     "C is overwritten (beta = 0) instead of accumulated (beta = 1)",
                     "mxnet-16686 CPU add path with the wrong beta", Property::stated_bound});
  // Not planted: a real library's code, modelled on the CPU (not yet run on a GPU).
  m.push_back(dense("cub_rfa_3_5_f32", "reproducible_binned(3,13,f32)", D::order_independent,
                    "CUB 3.5 gpu_to_gpu Sum, as shipped", &cub_rfa_3_5<float>,
                    "an all-zero column sums to -2^-122-ish garbage (no bins), an inf addend gives NaN",
                    "CCCL 3.5.0 cub/detail/rfa.cuh (nvidia-cuda-cccl 13.3.5.0.6)", Property::stated_bound));
  m.push_back(dense("cub_rfa_3_5_f64", "reproducible_binned(3,40,f64)", D::order_independent,
                    "CUB 3.5 gpu_to_gpu Sum, as shipped", &cub_rfa_3_5<double>,
                    "f32's two, plus: subnormal-only columns sum to 0, |sum| >= 2^984 comes back scaled by 2^-132",
                    "CCCL 3.5.0 cub/detail/rfa.cuh (nvidia-cuda-cccl 13.3.5.0.6)", Property::stated_bound, Format::f64,
                    Format::f64));
  const auto boundary = [&](const char* name, int (*passes)(std::size_t, std::size_t), const char* summary,
                            const char* bug, const char* origin) {
    m.push_back(dense(name, "recursive(f32)", D::bitwise_deterministic, summary, element_passes(passes), bug, origin,
                      Property::stated_bound));
  };
  boundary("simd_tail_dropped_f32", simd_tail_dropped, "8-wide loop, no scalar epilogue",
           "from D = 8 on, the last D mod 8 elements keep their buffer value",
           "a vectorized loop whose remainder loop was lost");
  boundary("remainder_off_by_one_f32", remainder_off_by_one, "16-wide loop, remainder starts late",
           "from D = 17 on, element 16 floor(D/16) is skipped when D mod 16 != 0",
           "an off-by-one in a SIMD remainder loop");
  boundary("block_edge_twice_f32", block_edge_twice, "256-thread blocks, inclusive range",
           "each block edge 256 k < D is accumulated twice",
           "an inclusive upper bound in a CUDA block's element range");
  boundary("grid_without_stride_f32", grid_without_stride, "grid capped at 4 x 256 threads",
           "elements from 1024 on are never accumulated", "a fixed-size grid without a grid-stride loop");
  boundary("partition_remainder_lost_f32", partition_remainder_lost, "4 threads, chunks of floor(D/4)",
           "from D = 1024 on, the last D mod 4 elements belong to no thread",
           "a manual thread partition that forgets the remainder");
  return m;
}

}  // namespace

const std::vector<Mutant>& all() {
  static const std::vector<Mutant> mutants = make_all();
  return mutants;
}

const Mutant* find(std::string_view name) {
  for (const auto& m : all())
    if (m.backend.name == name) return &m;
  return nullptr;
}

}  // namespace accucheck::mutants
