// The gradient-accumulation backends (issue 5) against independent models of what each one
// claims to compute, beyond the property suite (which checks every backend's stated bound,
// determinism and metamorphic properties on generated workloads):
//   - gemm_beta1 / manual_dot_then_add against plain float loops written here;
//   - the any-tree products bound (docs/bounds.md) by adversarial search in toy precisions,
//     and the sharper (N-1)u claim refuted by the same search (the check can fail);
//   - the OpenBLAS adapters: within products(f32) with K split into blocks, the same bits on
//     every run and at every buffer alignment, subnormals not flushed;
//   - the embedding orders: sorted segments == sequential scatter bit for bit, segment-then-add
//     == dense materialize as values, the atomic model's order a function of the seed;
//   - ElemwiseSum's kernel grouping, loss scaling by 2^16 == naive_f32 bit for bit, the f32
//     master copy == widened_bf16_acc_f32;
//   - ideal stochastic rounding's exact probabilities, with scripted random words.
#include <gtest/gtest.h>

#include <optional>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "accucheck/testing/backends.h"
#include "accucheck/testing/bits.h"
#include "accucheck/testing/workloads.h"
#include "checking/backend.h"
#include "checking/choice.h"
#include "checking/climb.h"
#include "checking/families.h"
#include "checking/judge.h"
#include "checking/properties.h"
#include "common/counter_rng.h"
#include "common/stochastic_round.h"

namespace accucheck {
namespace {

using test::random_product;
using test::same_bits;

const Backend& backend(const char* name) { return test::registered_backend(name); }
std::vector<double> run(const Backend& b, const Workload& w, RunOptions options = {}) {
  return test::results_of(b, w, options);
}

// Workloads of `kind` in format f from every adversarial family of the kind (and `extra`).
std::vector<Workload> generated(WorkloadKind kind, Format f, int per_family, GenerationLimits limits = {}) {
  std::vector<Workload> out;
  for (const Family* family : families_of(kind))
    for (int seed = 1; seed <= per_family; ++seed) {
      SeededChoiceStream s(static_cast<std::uint64_t>(seed) * 1000003 + family->name.size());
      Workload w = generate(s, f, limits, kind, family);
      if (validate(w).empty()) out.push_back(std::move(w));
    }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Products

// The backend's result for every element (m, n) of generated f32 product workloads equals
// model(p, m, n) bit for bit.
template <class Model>
void expect_products_model(const Backend& b, Model model) {
  for (const Workload& w : generated(WorkloadKind::product, Format::f32, 20)) {
    const auto& p = std::get<ProductWorkload>(w);
    const auto got = run(b, w);
    for (std::size_t m = 0; m < p.rows; ++m)
      for (std::size_t n = 0; n < p.cols; ++n)
        ASSERT_TRUE(same_bits(got[m * p.cols + n], model(p, m, n)))
            << p.family << " element (" << m << ", " << n << ")";
  }
}

float a_f32(const ProductWorkload& p, std::size_t t, std::size_t m, std::size_t k) {
  return static_cast<float>(p.a_at(t, m, k));
}
float b_f32(const ProductWorkload& p, std::size_t t, std::size_t k, std::size_t n) {
  return static_cast<float>(p.b_at(t, k, n));
}

TEST(Products, GemmBeta1IsOneFmaChainFromC) {
  expect_products_model(backend("gemm_beta1_f32"), [](const ProductWorkload& p, std::size_t m, std::size_t n) {
    float c = static_cast<float>(p.initial[m * p.cols + n]);
    for (std::size_t t = 0; t < p.steps; ++t)
      for (std::size_t k = 0; k < p.batch; ++k) c = std::fmaf(a_f32(p, t, m, k), b_f32(p, t, k, n), c);
    return c;
  });
}

TEST(Products, ManualPathIsADotProductThenAnAdd) {
  expect_products_model(backend("manual_dot_then_add_f32"), [](const ProductWorkload& p, std::size_t m, std::size_t n) {
    float acc = static_cast<float>(p.initial[m * p.cols + n]);
    for (std::size_t t = 0; t < p.steps; ++t) {
      float g = 0.0f;
      for (std::size_t k = 0; k < p.batch; ++k)
        g = k == 0 ? a_f32(p, t, m, 0) * b_f32(p, t, 0, n) : std::fmaf(a_f32(p, t, m, k), b_f32(p, t, k, n), g);
      if (p.batch) acc = acc + g;
    }
    return acc;
  });
}

// Round to nearest even with p significant bits and an unbounded exponent (the toy formats of
// the search below: every value used is exact in double, so double arithmetic is exact).
// One f32 dot product a . b into C = 0 (a 1 x 1 GEMM of depth a.size()), both inputs of
// `input_format` (f32 when none).
ProductWorkload dot_f32(std::vector<double> a, std::vector<double> b, std::optional<Format> input_format = {}) {
  ProductWorkload p;
  p.format = Format::f32;
  p.rows = p.cols = p.steps = 1;
  p.batch = a.size();
  p.initial = {0.0};
  p.a = std::move(a);
  p.b = std::move(b);
  p.input_format = input_format;
  return p;
}

double round_bits(double x, int p) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  const double scale = std::ldexp(1.0, p - e);
  return std::nearbyint(x * scale) / scale;  // the default rounding mode: ties to even
}

// Evaluation trees of C + sum a_k b_k: F a float leaf (C), P a rounded product, M an FMA
// adding a new exact product to a subtree, A an addition of two subtrees.
struct Tree {
  char kind;
  std::vector<Tree> children;
};
int terms(const Tree& t) {
  int n = t.kind == 'F' || t.kind == 'P' || t.kind == 'M' ? 1 : 0;
  for (const Tree& c : t.children) n += terms(c);
  return n;
}
int values_needed(const Tree& t) {
  int n = t.kind == 'F' ? 1 : t.kind == 'P' || t.kind == 'M' ? 2 : 0;
  for (const Tree& c : t.children) n += values_needed(c);
  return n;
}
struct Evaluated {
  double computed, exact, abs_sum;
};
Evaluated evaluate(const Tree& t, const std::vector<double>& v, std::size_t& i, int p) {
  switch (t.kind) {
    case 'F': {
      const double x = v[i++];
      return {x, x, std::fabs(x)};
    }
    case 'P': {
      const double product = v[i] * v[i + 1];
      i += 2;
      return {round_bits(product, p), product, std::fabs(product)};
    }
    case 'M': {
      const Evaluated c = evaluate(t.children[0], v, i, p);
      const double product = v[i] * v[i + 1];
      i += 2;
      return {round_bits(c.computed + product, p), c.exact + product, c.abs_sum + std::fabs(product)};
    }
    default: {
      const Evaluated l = evaluate(t.children[0], v, i, p);
      const Evaluated r = evaluate(t.children[1], v, i, p);
      return {round_bits(l.computed + r.computed, p), l.exact + r.exact, l.abs_sum + r.abs_sum};
    }
  }
}

Tree leaf(char k) { return Tree{k, {}}; }
Tree fma_of(Tree t) { return Tree{'M', {std::move(t)}}; }
Tree add_of(Tree l, Tree r) { return Tree{'A', {std::move(l), std::move(r)}}; }

// The largest error / (factor * u * A) an adversarial search finds for the tree: random
// restarts of a hill climb over p-bit values with exponents in [-4, 4].
double worst_ratio(const Tree& t, int p, double factor, std::mt19937_64& rng) {
  const int count = values_needed(t);
  std::uniform_int_distribution<int> mantissa(1 << (p - 1), (1 << p) - 1), exponent(-4, 4), coin(0, 1),
      slot(0, count - 1);
  auto draw = [&] { return (coin(rng) ? -1.0 : 1.0) * std::ldexp(mantissa(rng), exponent(rng) - p + 1); };
  const double u = std::ldexp(1.0, -p);
  auto ratio = [&](const std::vector<double>& v) {
    std::size_t i = 0;
    const Evaluated e = evaluate(t, v, i, p);
    return e.abs_sum == 0 ? 0.0 : std::fabs(e.computed - e.exact) / (factor * u * e.abs_sum);
  };
  double best = 0;
  for (int restart = 0; restart < 40; ++restart) {
    std::vector<double> v(count);
    for (double& x : v) x = draw();
    double current = ratio(v);
    for (int step = 0; step < 300; ++step) {
      std::vector<double> trial = v;
      trial[slot(rng)] = draw();
      const double r = ratio(trial);
      if (r >= current) {
        v = std::move(trial);
        current = r;
      }
    }
    best = std::max(best, current);
  }
  return best;
}

// docs/bounds.md, "Products in any tree": |computed - S| <= N u A for every tree of rounded
// additions, rounded products and FMAs over N terms. In binary64 and f32 a violation would be
// invisible to random tests; in 4-6 bit formats an adversarial search gets close to the worst
// case. OpenBLAS's structures are among the trees: chains from 0 added into C, K split into
// blocks, a single product added after a chain.
TEST(Products, AnyTreeBoundSurvivesAnAdversarialSearchInToyPrecisions) {
  const std::vector<std::pair<const char*, Tree>> trees = {
      {"C + chain(2)", add_of(leaf('F'), fma_of(leaf('P')))},
      {"(C + chain(2)) + P", add_of(add_of(leaf('F'), fma_of(leaf('P'))), leaf('P'))},
      {"(C + chain(3)) + P", add_of(add_of(leaf('F'), fma_of(fma_of(leaf('P')))), leaf('P'))},
      {"((C + chain(2)) + P) + P", add_of(add_of(add_of(leaf('F'), fma_of(leaf('P'))), leaf('P')), leaf('P'))},
      {"(C + chain(2)) + chain(2)", add_of(add_of(leaf('F'), fma_of(leaf('P'))), fma_of(leaf('P')))},
      {"chain(3) + chain(3)", add_of(fma_of(fma_of(leaf('P'))), fma_of(fma_of(leaf('P'))))},
      {"fma over a sum", fma_of(add_of(fma_of(leaf('P')), fma_of(leaf('F'))))},
      {"P + P", add_of(leaf('P'), leaf('P'))},
      {"fma chain from C", fma_of(fma_of(fma_of(leaf('F'))))},
  };
  std::mt19937_64 rng(20240601);
  for (int p : {4, 5, 6})
    for (const auto& [label, tree] : trees) {
      const double worst = worst_ratio(tree, p, terms(tree), rng);
      EXPECT_LE(worst, 1.0) << label << " in " << p << "-bit arithmetic: error above N u A";
    }
  // The search is strong enough to fail: (N-1) u A, which holds for float sums and for FMA
  // chains starting from C, does not hold once a chain starts from 0 (its first step rounds a
  // product) -- the reason products(F) counts N roundings for N terms.
  double refuted = 0;
  for (int p : {4, 5}) refuted = std::max(refuted, worst_ratio(add_of(leaf('F'), fma_of(leaf('P'))), p, 2.0, rng));
  EXPECT_GT(refuted, 1.0) << "the search should find C + chain(2) above (N-1) u A";
}

// ---------------------------------------------------------------------------------------------
// OpenBLAS

#ifdef ACCUCHECK_HAVE_OPENBLAS
TEST(OpenBlas, WithinProductsBoundWithKSplitIntoBlocks) {
  // K = 1000 exceeds every x86 sgemm kernel's K blocking (GEMM_Q <= 768 in OpenBLAS 0.3.21):
  // each element is then a sum of block chains added into C.
  for (const char* name : {"openblas_sgemm_beta1", "openblas_saxpy"})
    for (bool cancelling : {false, true}) {
      const Workload w = random_product(5, 7, 1000, 3, 7, cancelling);
      const BackendOutcome outcome = run_and_judge(backend(name), w);
      EXPECT_FALSE(outcome.violated()) << name << ": " << describe_violation(backend(name), w, outcome);
      EXPECT_GT(outcome.max_ratio, 0.0) << name;
      std::printf("%s, K = 1000%s: max error/bound %.3g\n", name, cancelling ? ", cancelling" : "", outcome.max_ratio);
    }
}

TEST(OpenBlas, SameBitsEveryRun) {
  const Workload w = random_product(33, 17, 70, 4, 11, true);
  for (const char* name : {"openblas_sgemm_beta1", "openblas_saxpy"}) {
    const auto first = run(backend(name), w);
    for (int again = 0; again < 20; ++again) {
      std::vector<char> pressure(static_cast<std::size_t>(again) * 24 + 8);  // shift what the allocator returns next
      const auto rerun =
          run(backend(name), w, RunOptions{static_cast<unsigned>(again % 4), static_cast<std::uint64_t>(again)});
      for (std::size_t e = 0; e < first.size(); ++e)
        ASSERT_TRUE(same_bits(first[e], rerun[e])) << name << " element " << e;
    }
  }
}

TEST(OpenBlas, SubnormalsSurvive) {
  // A stray FTZ/DAZ (DESIGN.md) would flush these products and sums to 0.
  ProductWorkload p;
  p.format = Format::f32;
  p.rows = p.cols = p.batch = p.steps = 1;
  p.initial = {std::ldexp(1.0, -149)};
  p.a = {std::ldexp(1.0, -75)};
  p.b = {std::ldexp(1.0, -70)};  // product 2^-145, subnormal
  for (const char* name : {"openblas_sgemm_beta1", "openblas_saxpy"}) {
    const auto got = run(backend(name), p);
    EXPECT_EQ(got[0], std::ldexp(1.0, -145) + std::ldexp(1.0, -149)) << name;
  }
}

// Which evaluation the library's kernel performs on this machine, for docs/bounds.md: printed,
// not asserted (the bound covers every tree; the kernel depends on the CPU).
TEST(OpenBlas, ReportsItsEvaluationOrder) {
  for (std::size_t batch : {std::size_t{1}, std::size_t{2}, std::size_t{64}, std::size_t{1000}}) {
    const Workload w = random_product(8, 8, batch, 1, 99 + batch, true);
    const auto& p = std::get<ProductWorkload>(w);
    const auto got = run(backend("openblas_sgemm_beta1"), w);
    int chain_from_c = 0, chain_from_zero_then_c = 0, unfused = 0;
    for (std::size_t m = 0; m < p.rows; ++m)
      for (std::size_t n = 0; n < p.cols; ++n) {
        const float c0 = static_cast<float>(p.initial[m * p.cols + n]);
        float from_c = c0, acc = 0.0f, plain = 0.0f;
        for (std::size_t k = 0; k < batch; ++k) {
          const float a = static_cast<float>(p.a_at(0, m, k)), b = static_cast<float>(p.b_at(0, k, n));
          from_c = std::fmaf(a, b, from_c);
          acc = std::fmaf(a, b, acc);
          plain = plain + a * b;
        }
        const double r = got[m * p.cols + n];
        chain_from_c += same_bits(r, from_c);
        chain_from_zero_then_c += same_bits(r, static_cast<float>(c0 + acc));
        unfused += same_bits(r, static_cast<float>(c0 + plain));
      }
    std::printf(
        "openblas_sgemm_beta1, K = %zu: of 64 elements, %d match an FMA chain from C, %d an FMA chain from 0 "
        "then + C, %d unfused products summed then + C\n",
        batch, chain_from_c, chain_from_zero_then_c, unfused);
  }
}
#endif

// ---------------------------------------------------------------------------------------------
// Embedding orders

TEST(Embedding, SortedSegmentsFromGAreTheSequentialScatter) {
  GenerationLimits limits;
  for (const Workload& w : generated(WorkloadKind::sparse, Format::f32, 25, limits)) {
    const auto scatter = run(backend("embedding_scatter_add_f32"), w),
               sorted = run(backend("embedding_sorted_segment_f32"), w);
    for (std::size_t e = 0; e < scatter.size(); ++e) ASSERT_TRUE(same_bits(scatter[e], sorted[e])) << family_of(w);
  }
}

// The EmbeddingGrad kernel's own block code run on the CPU (cuda_model_embedding_grad_F) against
// the independent scatter in pair order (common/scatter_order.h; a stable sort by row keeps each
// row's vectors in pair order), in both of the kernel's formats.
TEST(Embedding, KernelCodeOnTheCpuIsThePairOrderScatter) {
  GenerationLimits limits;
  for (Format f : {Format::f32, Format::f16}) {
    const std::string F(name(f));
    for (const Workload& w : generated(WorkloadKind::sparse, f, 25, limits)) {
      const auto kernel = run(backend(("cuda_model_embedding_grad_" + F).c_str()), w);
      const auto sorted = run(backend(("embedding_scatter_add_" + F).c_str()), w);
      for (std::size_t e = 0; e < kernel.size(); ++e)
        ASSERT_TRUE(same_bits(kernel[e], sorted[e])) << F << " " << family_of(w);
    }
  }
}

TEST(Embedding, SegmentThenAddIsTheDenseMaterializeOrder) {
  for (const Workload& w : generated(WorkloadKind::sparse, Format::f32, 25)) {
    const auto segment = run(backend("embedding_segment_then_add_f32"), w),
               dense = run(backend("embedding_dense_add_f32"), w);
    for (std::size_t e = 0; e < segment.size(); ++e)
      ASSERT_TRUE(segment[e] == dense[e] || (std::isnan(segment[e]) && std::isnan(dense[e]))) << family_of(w);
  }
}

TEST(Embedding, TheTwoOrdersDifferSomewhere) {
  // ((G + g1) + g2) vs G + (g1 + g2): the same three f32 values, two answers.
  SparseWorkload s;
  s.format = Format::f32;
  s.rows = 1;
  s.dim = 1;
  s.steps = 1;
  s.initial = {1.0};
  s.step_offsets = {0, 2};
  s.row_index = {0, 0};
  s.values = {std::ldexp(1.0, -24), std::ldexp(1.0, -24)};
  EXPECT_EQ(run(backend("embedding_sorted_segment_f32"), s)[0], 1.0);                           // two ties to even
  EXPECT_EQ(run(backend("embedding_segment_then_add_f32"), s)[0], 1.0 + std::ldexp(1.0, -23));  // 2^-23 is one ulp
}

TEST(Embedding, AtomicOrderIsAFunctionOfTheSeed) {
  const Backend& b = backend("embedding_atomic_order_f32");
  int differing_workloads = 0;
  for (const Workload& w : generated(WorkloadKind::sparse, Format::f32, 10)) {
    const auto first = run(b, w, RunOptions{0, 5});
    const auto again = run(b, w, RunOptions{0, 5});
    for (std::size_t e = 0; e < first.size(); ++e) ASSERT_TRUE(same_bits(first[e], again[e]));
    bool differs = false;
    for (std::uint64_t seed = 6; seed < 40 && !differs; ++seed) {
      const auto other = run(b, w, RunOptions{0, seed});
      for (std::size_t e = 0; e < first.size(); ++e) differs = differs || !same_bits(first[e], other[e]);
      const BackendOutcome outcome = run_and_judge(b, w, exact_sums(w), RunOptions{0, seed});
      ASSERT_FALSE(outcome.violated()) << describe_violation(b, w, outcome);
    }
    differing_workloads += differs;
  }
  EXPECT_GT(differing_workloads, 0) << "no seed changed any result: the order does not depend on the seed";
}

// ---------------------------------------------------------------------------------------------
// Multi-input sums, mixed precision

TEST(ElemwiseSum, KernelGroupingAsInMxnet) {
  // Up to 4 inputs the inputs are summed first, then added to out; from 5 on, out + (in0 + in1)
  // and then one input at a time.
  const Backend& b = backend("elemwise_sum_addto_f32");
  for (std::size_t m = 1; m <= 8; ++m) {
    DenseWorkload w;
    w.format = Format::f32;
    w.elements = 1;
    w.steps = m;
    w.initial = {1.0};
    std::mt19937_64 rng(m);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t i = 0; i < m; ++i) w.addends.push_back(static_cast<float>(std::ldexp(u(rng), -20)));
    float expected;
    if (m <= 4) {
      float sum = static_cast<float>(w.addends[0]);
      for (std::size_t i = 1; i < m; ++i) sum = sum + static_cast<float>(w.addends[i]);
      expected = 1.0f + sum;
    } else {
      expected = 1.0f + (static_cast<float>(w.addends[0]) + static_cast<float>(w.addends[1]));
      for (std::size_t i = 2; i < m; ++i) expected = expected + static_cast<float>(w.addends[i]);
    }
    EXPECT_TRUE(same_bits(run(b, w)[0], expected)) << m << " inputs";
  }
}

TEST(LossScaling, PowerOfTwoScaleIsNaiveBitForBit) {
  const Backend &scaled = backend("loss_scaled_pow2_f32"), &naive = backend("naive_f32"),
                &thousand = backend("loss_scaled_1000_f32");
  int differs_from_naive = 0;
  for (const Workload& w : generated(WorkloadKind::dense, Format::f32, 15)) {
    const auto a = run(scaled, w), b = run(naive, w), c = run(thousand, w);
    for (std::size_t e = 0; e < a.size(); ++e) {
      ASSERT_TRUE(same_bits(a[e], b[e])) << family_of(w) << " element " << e;
      differs_from_naive += !same_bits(c[e], b[e]);
    }
    const BackendOutcome outcome = run_and_judge(thousand, w);
    ASSERT_FALSE(outcome.violated()) << describe_violation(thousand, w, outcome);
  }
  EXPECT_GT(differs_from_naive, 0) << "a scale of 1000 should round somewhere";
}

TEST(MasterCopy, IsOneRoundingOfTheF32Sum) {
  for (const Workload& w : generated(WorkloadKind::dense, Format::bf16, 15)) {
    const auto a = run(backend("master_f32_copy_bf16"), w), b = run(backend("widened_bf16_acc_f32"), w);
    for (std::size_t e = 0; e < a.size(); ++e) ASSERT_TRUE(same_bits(a[e], b[e])) << family_of(w);
  }
}

// ---------------------------------------------------------------------------------------------
// Stochastic rounding: exact probabilities (the statistical tests over seeds are in
// properties/stochastic_test.cpp).

struct Scripted {
  std::vector<std::uint64_t> words;
  std::size_t at = 0;
  std::uint64_t operator()() { return at < words.size() ? words[at++] : 0; }
};

TEST(StochasticRounding, ProbabilityIsComparedExactly) {
  // p = 3/4: U < p exactly when the first word is below 0xC000...0.
  Scripted below{{0xBFFFFFFFFFFFFFFFULL}}, at{{0xC000000000000000ULL}};
  EXPECT_TRUE(impls::uniform_below(0.75, below));
  EXPECT_FALSE(impls::uniform_below(0.75, at));
  // p = 2^-100: the first word must be 0, the second below 2^28.
  Scripted tiny_yes{{0, (std::uint64_t{1} << 28) - 1}}, tiny_no{{0, std::uint64_t{1} << 28}}, tiny_first{{1}};
  EXPECT_TRUE(impls::uniform_below(std::ldexp(1.0, -100), tiny_yes));
  EXPECT_FALSE(impls::uniform_below(std::ldexp(1.0, -100), tiny_no));
  EXPECT_FALSE(impls::uniform_below(std::ldexp(1.0, -100), tiny_first));
  EXPECT_EQ(tiny_first.at, 1u) << "a decided comparison draws no further word";
}

TEST(StochasticRounding, CandidatesAndProbabilitiesInBf16) {
  // 256 + 1: neighbours 256 and 258 (spacing 2), away from zero with probability 1/2.
  auto s = impls::sr_setup(256, 1, Format::bf16);
  ASSERT_FALSE(s.exact);
  EXPECT_EQ(s.c.toward_zero, 256);
  EXPECT_EQ(s.c.away, 258);
  EXPECT_TRUE(s.c.p_is_away);
  EXPECT_EQ(s.c.p, 0.5);
  // 256 - 2^-60: not exact in double; the candidates are 256 and 255 (spacing 1 below 256),
  // 255 with probability 2^-60.
  s = impls::sr_setup(256, -std::ldexp(1.0, -60), Format::bf16);
  ASSERT_FALSE(s.exact);
  EXPECT_EQ(s.c.away, 256);
  EXPECT_EQ(s.c.toward_zero, 255);
  EXPECT_FALSE(s.c.p_is_away);
  EXPECT_EQ(s.c.p, std::ldexp(1.0, -60));
  // Exact sums come back as they are.
  s = impls::sr_setup(1.5, 0.5, Format::bf16);
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.value, 2.0);
  // Beyond the largest finite value: +inf with the probability of the excess over one spacing.
  const double big = largest_finite(Format::bf16);
  s = impls::sr_setup(big, ulp(big, Format::bf16) / 4, Format::bf16);
  ASSERT_FALSE(s.exact);
  EXPECT_EQ(s.c.away, std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.c.p, 0.25);
}

TEST(StochasticRounding, StagnationIsBrokenOnAverage) {
  // bf16 from 256, 64 steps of +1: round to nearest stays at 256 (every step a tie to even);
  // SR's mean over independent seeds is the exact 320.
  std::vector<double> column(65, 1.0);
  column[0] = 256;
  const DenseWorkload w = test::column_workload(Format::bf16, column);
  EXPECT_EQ(run(backend("naive_bf16"), w)[0], 256);
  double mean = 0;
  constexpr int kSeeds = 2000;
  for (int seed = 0; seed < kSeeds; ++seed)
    mean += run(backend("stochastic_bf16"), w, RunOptions{0, static_cast<std::uint64_t>(seed)})[0];
  mean /= kSeeds;
  // Each step moves by +-1 around the exact value (variance <= 1 per step): sd of the mean
  // <= sqrt(64 / 2000) = 0.18; 1.5 is more than 8 of them.
  EXPECT_NEAR(mean, 320.0, 1.5);
}

// ---------------------------------------------------------------------------------------------
// Tensor-core fused addition (impls/cpu/fused_window.cpp, fused(K,W,f32))

DenseWorkload one_column(std::vector<double> column) {
  DenseWorkload w;
  w.format = Format::f32;
  w.elements = 1;
  w.steps = column.size() - 1;
  w.initial = {column[0]};
  w.addends.assign(column.begin() + 1, column.end());
  return w;
}

TEST(FusedWindow, ReachesItsBoundOnTheAttainingStep) {
  // docs/bounds.md: the largest operand 1 + 2^-13 - 2^-23 keeps only its leading bit (the window
  // of 14 bits ends at 2^-13), the four addends 2^-13 - 2^-23 fall below it whole: the result is
  // 1 and the error 5 (2^-13 - 2^-23), against a bound of about 5 * 2^-13.
  const double lost = 0x1p-13 - 0x1p-23;
  const DenseWorkload w = one_column({1 + lost, lost, lost, lost, lost});
  const Backend& b = backend("tc_fused4_w14_f32");
  EXPECT_EQ(to_string(b.bound), "fused(4,14,f32)");
  const std::vector<double> result = run(b, w);
  EXPECT_EQ(result[0], 1.0);
  const BackendOutcome outcome = run_and_judge(b, w);
  EXPECT_EQ(outcome.worst, Verdict::ok);
  EXPECT_GT(outcome.max_ratio, 0.99);
  EXPECT_LE(outcome.max_ratio, 1.0);
}

TEST(FusedWindow, AlignsTheAccumulatorWithTheAddends) {
  // The accumulator 2^20 sets the window (quantum 2^(20-13) = 128): addends of 1 are truncated
  // away at every step, so the sum stagnates at 2^20, where a plain f32 sum adds them exactly.
  std::vector<double> column(1 + 4 * 50, 1.0);
  column[0] = 0x1p20;
  const std::vector<double> result = run(backend("tc_fused4_w14_f32"), one_column(column));
  EXPECT_EQ(result[0], 0x1p20);
  EXPECT_EQ(run(backend("naive_f32"), one_column(column))[0], 0x1p20 + 200);
  // In steps of 8 addends of 2^7 the window keeps them: 2^20 + 8 * 128 per step.
  std::vector<double> kept(1 + 8 * 3, 128.0);
  kept[0] = 0x1p20;
  EXPECT_EQ(run(backend("tc_fused8_w14_f32"), one_column(kept))[0], 0x1p20 + 24 * 128);
}

TEST(FusedWindow, PromotionRestartsTheChainFromZero) {
  // 2^20 then 128 ones: the unpromoted chain truncates every 1 (quantum 2^7 beside 2^20); promoted
  // every 32, each chunk sums its ones from zero (32, exact) and the FP32 additions keep them.
  std::vector<double> column(1 + 128, 1.0);
  column[0] = 0x1p20;
  EXPECT_EQ(run(backend("tc_fused32_w14_f32"), one_column(column))[0], 0x1p20);
  EXPECT_EQ(run(backend("tc_fused32_w14_nc32_f32"), one_column(column))[0], 0x1p20 + 128);
  EXPECT_EQ(run(backend("tc_fused32_w14_nc128_f32"), one_column(column))[0], 0x1p20 + 128);
  // Within one chunk the window still cuts: 1 + lost keeps only 1 and the 31 values lost
  // (2^-13 - 2^-23) go whole; the next chunk of 32 starts from zero and keeps its 32 exactly, so
  // N = 32 returns 1 + 32 lost where the chain of N = 128 (and no promotion) returns 1.
  const double lost = 0x1p-13 - 0x1p-23;
  std::vector<double> cut(1 + 64, lost);
  cut[0] = 0;
  cut[1] = 1 + lost;
  EXPECT_EQ(run(backend("tc_fused32_w14_nc32_f32"), one_column(cut))[0], 1 + 32 * lost);
  EXPECT_EQ(run(backend("tc_fused32_w14_nc128_f32"), one_column(cut))[0], 1.0);
  EXPECT_EQ(run(backend("tc_fused32_w14_f32"), one_column(cut))[0], 1.0);
  for (const char* name : {"tc_fused32_w14_nc32_f32", "tc_fused32_w14_nc128_f32"}) {
    const BackendOutcome outcome = run_and_judge(backend(name), one_column(cut));
    EXPECT_EQ(outcome.worst, Verdict::ok) << name;
    EXPECT_LE(outcome.max_ratio, 1.0) << name;
  }
  EXPECT_EQ(to_string(backend("tc_fused32_w14_nc128_f32").bound), "fused_promoted(32,14,128,f32)");
}

TEST(FusedWindow, ArchitectureModelsTruncateTheirSums) {
  // Hopper FP8 (K = 32, W = 14, sums cut to 14 bits): 2 - 2^-11 and 2^-11 + 2^-13 sit in the
  // window (quantum 2^-13) and add to 2 + 2^-13, which 14 bits at 2^1 (quantum 2^-12) cut to 2;
  // the round-to-nearest FP32 model keeps 2 + 2^-13.
  EXPECT_EQ(run(backend("tc_h100_fp8_f32"), one_column({2 - 0x1p-11, 0x1p-11 + 0x1p-13}))[0], 2.0);
  EXPECT_EQ(run(backend("tc_fused32_w14_f32"), one_column({2 - 0x1p-11, 0x1p-11 + 0x1p-13}))[0], 2 + 0x1p-13);
  // H100 fp16 (K = 16, W = 26, toward zero in FP32): 1 + 3 * 2^-25 is kept by the window and
  // truncated to 1, where a nearest rounding gives 1 + 2^-23; toward zero for negative sums too.
  EXPECT_EQ(run(backend("tc_h100_f16_f32"), one_column({1, 3 * 0x1p-25}))[0], 1.0);
  EXPECT_EQ(run(backend("naive_f32"), one_column({1, 3 * 0x1p-25}))[0], 1 + 0x1p-23);
  EXPECT_EQ(run(backend("tc_h100_f16_f32"), one_column({-1, -3 * 0x1p-25}))[0], -1.0);
  for (const char* name : {"tc_h100_fp8_f32", "tc_h100_f16_f32"}) {
    const BackendOutcome outcome = run_and_judge(backend(name), one_column({2 - 0x1p-11, 0x1p-11 + 0x1p-13}));
    EXPECT_EQ(outcome.worst, Verdict::ok) << name;
  }
  EXPECT_EQ(to_string(backend("tc_h100_fp8_f32").bound), "fused_truncated(32,14,14,f32)");
}

// Every fused model reaches 0.9 of its stated bound on the climb's window seeds (what
// `check --maximize` starts from): the bounds are attained within 10%, not only satisfied. The
// per-architecture models whose window is at least FP32's precision (W >= p = 24) only since
// fused_truncated counts what their steps can lose (docs/bounds.md "Truncated results", the
// tighter step).
TEST(FusedWindow, WindowSeedsReachNineTenthsOfEveryFusedBound) {
  int models = 0;
  for (const Backend& b : Registry::global().all()) {
    if (b.bound.kind != BoundKind::fused && b.bound.kind != BoundKind::fused_truncated &&
        b.bound.kind != BoundKind::fused_promoted)
      continue;
    double best = 0;
    for (const Workload& seed : window_climb_seeds(b.bound, b.storage, 65)) {
      ASSERT_EQ(validate(seed), "") << b.name;
      if (!b.runs(seed)) continue;
      const BackendOutcome outcome = run_and_judge(b, seed);
      ASSERT_EQ(outcome.worst, Verdict::ok) << b.name;
      best = std::max(best, outcome.max_ratio);
    }
    EXPECT_GE(best, 0.9) << b.name << " " << b.bound_text();
    std::printf("%s %s: the seeds reach %.4f of the bound\n", b.name.c_str(), b.bound_text().c_str(), best);
    ++models;
  }
  EXPECT_EQ(models, 19);
}

// The FP8 GEMM models (products of E4M3/E5M2 inputs) against the dense models they share the
// chain with, run on the column (C, the products in step and batch order, exact in FP32), bit
// for bit, on workloads of the gemm_fp8_inputs family; and only on FP8 inputs.
TEST(FusedWindow, Fp8GemmModelsAreTheDenseChainOnTheProducts) {
  const std::pair<const char*, const char*> pairs[] = {{"tc_h100_fp8_gemm_f32", "tc_h100_fp8_f32"},
                                                       {"tc_h100_fp8_gemm_nc128_f32", "tc_h100_fp8_nc128_f32"},
                                                       {"tc_b200_fp8_gemm_f32", "tc_b200_fp8_f32"}};
  GenerationLimits limits;
  limits.max_batch = 96;  // 1 + T K up to 385 terms: several fused steps and promotions
  limits.max_product_steps = 4;
  const Family* family = find_family("gemm_fp8_inputs");
  int nonfinite = 0, compared = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    SeededChoiceStream s(seed);
    const Workload w = generate(s, Format::f32, limits, WorkloadKind::product, family);
    const auto& p = std::get<ProductWorkload>(w);
    for (const auto& [gemm, dense] : pairs) {
      const std::vector<double> got = run(backend(gemm), w);
      for (std::size_t m = 0; m < p.rows; ++m)
        for (std::size_t n = 0; n < p.cols; ++n) {
          std::vector<double> column{p.initial[m * p.cols + n]};
          for (std::size_t t = 0; t < p.steps; ++t)
            for (std::size_t k = 0; k < p.batch; ++k) {
              const double product = p.a_at(t, m, k) * p.b_at(t, k, n);
              ASSERT_TRUE(std::isnan(product) || representable(product, Format::f32)) << product;
              column.push_back(product);
            }
          const double expected = run(backend(dense), one_column(column))[0];
          ASSERT_TRUE(same_bits(got[m * p.cols + n], expected))
              << gemm << " seed " << seed << ": " << got[m * p.cols + n] << " vs " << expected;
          nonfinite += !std::isfinite(expected);
          ++compared;
        }
    }
  }
  EXPECT_GT(nonfinite, 10);
  EXPECT_GT(compared, 1000);
  // 1 * 1 + 2^-7 * 2^-7 (E4M3 subnormals): 2^-14 falls below the 14-bit window at 2^0 (quantum
  // 2^-13) on Hopper, and within B200's 26 bits; FP32 FMAs keep it.
  const ProductWorkload one = dot_f32({1.0, 0x1p-7}, {1.0, 0x1p-7}, Format::e4m3);
  ASSERT_EQ(validate(Workload(one)), "");
  EXPECT_EQ(run(backend("tc_h100_fp8_gemm_f32"), one)[0], 1.0);
  EXPECT_EQ(run(backend("tc_b200_fp8_gemm_f32"), one)[0], 1 + 0x1p-14);
  EXPECT_EQ(run(backend("gemm_beta1_f32"), one)[0], 1 + 0x1p-14);
  EXPECT_EQ(run_and_judge(backend("tc_h100_fp8_gemm_f32"), one).worst, Verdict::ok);
  // Other inputs are not theirs: not run, and said so.
  ProductWorkload f32_inputs = one;
  f32_inputs.input_format.reset();
  for (const auto& [gemm, dense] : pairs) {
    EXPECT_TRUE(backend(gemm).fp8_inputs_only);
    EXPECT_TRUE(backend(gemm).runs(one));
    EXPECT_FALSE(backend(gemm).runs(f32_inputs));
    EXPECT_FALSE(backend(gemm).runs(one_column({1.0})));
    EXPECT_NE(backend(gemm).why_not(f32_inputs).find("FP8 inputs only"), std::string::npos);
    EXPECT_TRUE(backend("gemm_beta1_f32").runs(one));  // FP8 values are f32 values
  }
}

// TF32 input truncation, by arithmetic (the models clear bits): a normal x cut toward zero to 11
// significant bits.
double tf32_by_arithmetic(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double unit = std::ldexp(1.0, std::ilogb(x) - 10);
  return std::trunc(x / unit) * unit;
}

TEST(FusedWindow, Tf32GemmModelsAreTheDenseChainOnTheTruncatedProducts) {
  const std::vector<std::pair<const char*, const char*>> pairs{{"tc_a100_tf32_gemm_f32", "tc_a100_tf32_f32"},
                                                               {"tc_h100_tf32_gemm_f32", "tc_h100_tf32_f32"}};
  GenerationLimits limits;
  limits.max_batch = 40;
  limits.max_product_steps = 3;
  int compared = 0, truncation_showed = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    SeededChoiceStream s(seed);
    Workload w = generate(s, Format::f32, limits, WorkloadKind::product);
    auto& p = std::get<ProductWorkload>(w);
    flush_subnormal_inputs(p);
    ASSERT_FALSE(has_subnormal_input(p));
    for (const auto& [gemm, dense] : pairs) {
      ASSERT_TRUE(backend(gemm).runs(w));
      const std::vector<double> got = run(backend(gemm), w);
      for (std::size_t m = 0; m < p.rows; ++m)
        for (std::size_t n = 0; n < p.cols; ++n) {
          std::vector<double> column{p.initial[m * p.cols + n]};
          bool in_range = true;
          for (std::size_t t = 0; t < p.steps; ++t)
            for (std::size_t k = 0; k < p.batch; ++k) {
              const double product = tf32_by_arithmetic(p.a_at(t, m, k)) * tf32_by_arithmetic(p.b_at(t, k, n));
              in_range = in_range && (std::isnan(product) || representable(product, Format::f32));
              truncation_showed += product != p.a_at(t, m, k) * p.b_at(t, k, n);
              column.push_back(product);
            }
          if (!in_range) continue;  // the dense model's addends are FP32 values
          const double expected = run(backend(dense), one_column(column))[0];
          ASSERT_TRUE(same_bits(got[m * p.cols + n], expected))
              << gemm << " seed " << seed << ": " << got[m * p.cols + n] << " vs " << expected;
          ++compared;
        }
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(truncation_showed, 1000);
}

TEST(FusedWindow, Tf32GemmBoundsNeedTheirInputTermAndAreNearlyReached) {
  // a = b = 1 + 2^-10 - 2^-23: TF32 keeps 1, so each product loses 2^-9 - 2^-22 + (2^-10 - 2^-23)^2 of
  // its 1 + 2^-9 - ...: nearly all of the input term 2^-9 A, far beyond the fused chain's own bound.
  const double a = 1 + 0x1p-10 - 0x1p-23;
  const ProductWorkload p = dot_f32(std::vector<double>(8, a), std::vector<double>(8, a));
  ASSERT_EQ(validate(Workload(p)), "");
  for (const char* name : {"tc_a100_tf32_gemm_f32", "tc_h100_tf32_gemm_f32"}) {
    EXPECT_EQ(run(backend(name), p)[0], 8.0) << name;
    const BackendOutcome outcome = run_and_judge(backend(name), p);
    EXPECT_EQ(outcome.worst, Verdict::ok) << name;
    EXPECT_GT(outcome.max_ratio, 0.99) << name;
    Backend chain_only = backend(name);
    chain_only.bound = *backend(name).bound.inner;
    EXPECT_EQ(run_and_judge(chain_only, p).worst, Verdict::bound_exceeded) << name;
    // check --maximize's seeds for the bound hold such a workload.
    double seeded = 0;
    for (const Workload& seed : window_climb_seeds(backend(name).bound, Format::f32, 64))
      if (backend(name).runs(seed)) seeded = std::max(seeded, run_and_judge(backend(name), seed).max_ratio);
    EXPECT_GT(seeded, 0.99) << name;
  }
  // A subnormal input is not theirs; the property suite's workloads have none.
  ProductWorkload subnormal = p;
  subnormal.b[3] = 0x1p-140;
  EXPECT_FALSE(backend("tc_a100_tf32_gemm_f32").runs(subnormal));
  EXPECT_NE(backend("tc_a100_tf32_gemm_f32").why_not(subnormal).find("normal inputs only"), std::string::npos);
  EXPECT_TRUE(backend("gemm_beta1_f32").runs(subnormal));
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    SeededChoiceStream s(seed);
    const Workload w = generate_for_property(Property::special_values, backend("tc_h100_tf32_gemm_f32"),
                                             WorkloadKind::product, s, GenerationLimits{});
    EXPECT_TRUE(backend("tc_h100_tf32_gemm_f32").runs(w)) << seed;
  }
}

}  // namespace
}  // namespace accucheck
