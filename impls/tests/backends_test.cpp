// Every registered backend on fixed adversarial workloads, judged by judge() against the
// bound it states: no violation verdicts. correctly_rounded_* equal the oracle's RNE(S) bit for
// bit, naive_f32 equals a plain float loop, the tree backends follow their order models, and
// judge() does flag deliberately wrong results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "accucheck/testing/bits.h"
#include "accucheck/testing/order_models.h"
#include "accucheck/testing/seed.h"
#include "accucheck/testing/workloads.h"
#include "checking/backend.h"
#include "checking/bound.h"
#include "checking/verdict.h"
#include "checking/workload.h"
#include "numerics/exact.h"
#include "numerics/fast_exact.h"
#include "numerics/format.h"

namespace accucheck {
namespace {

using test::column_workload;
using test::random_dense;
using test::same_bits;
using test::test_seed;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Case {
  std::string label;
  std::vector<double> column;  // initial value first, then one addend per step
};

// Hand-built adversarial columns in format f (cases whose values are not values of f are
// dropped by the caller).
std::vector<Case> adversarial_cases(Format f) {
  const auto& t = traits(f);
  const int p = t.precision;
  const double two_p = std::ldexp(1.0, p);
  const double u = std::ldexp(1.0, -p);
  const double big = largest_finite(f), sn = smallest_normal(f), ss = smallest_subnormal(f);
  std::vector<Case> cases = {
      {"tie down", {two_p, 1}},
      {"tie up", {two_p, 3}},
      {"two ties", {two_p, 1, 1}},
      {"negative tie", {-two_p, -1}},
      {"tie then sticky", {two_p, 1, ss}},
      {"cancellation", {2 * two_p, 1, -2 * two_p}},
      {"cancellation to zero", {1.5, -1.5}},
      {"catastrophic", {1, u, -1}},
      {"huge spread", {std::ldexp(1.0, t.emax), ss, -std::ldexp(1.0, t.emax)}},
      {"subnormals", {ss, ss, ss, ss, ss}},
      {"subnormal into normal", {sn - ss, ss, ss}},
      {"normal minus subnormal", {sn, -ss}},
      {"negative subnormals", {-ss, -ss, -3 * ss}},
      {"largest subnormal", {sn - ss, -(sn - ss), ss}},
      {"all negative zeros", {-0.0, -0.0, -0.0}},
      {"mixed zeros", {0.0, -0.0}},
      {"one negative zero", {-0.0}},
      {"single value", {-1.75}},
      {"near overflow inside the precondition", {std::ldexp(1.0, t.emax - 1), std::ldexp(1.0, t.emax - 2)}},
      {"overflowing partial sums", {big, big, -big}},
      {"overflowing then back", {big, -big, big}},
      {"to infinity", {big, big}},
      {"nan", {1, kNaN, 2}},
      {"plus infinity", {kInf, 1, -2}},
      {"minus infinity", {-1, -kInf, -kInf}},
      {"both infinities", {kInf, 1, -kInf}},
      {"nan and infinity", {kNaN, -kInf}},
      {"Kahan counterexample", {-22, -(0x1p54 + 4), -(0x1p56 - 8), 8}},
  };
  // Half-ulp addends that naive summation drops (each a tie to even).
  {
    Case c{"many half ulps", {1}};
    for (int i = 0; i < 1000; ++i) c.column.push_back(u / 2);
    cases.push_back(c);
  }
  // Descending powers of two across the range, alternating signs.
  {
    Case c{"descending powers", {}};
    for (int e = t.emax; e >= t.emin - p + 1; e -= 3) c.column.push_back((e % 2 ? -1 : 1) * std::ldexp(1.0, e));
    cases.push_back(c);
  }
  // Long chains of 10^4: 0.1 in f, and random values of f in [-1, 1] after a large initial value.
  {
    Case c{"10^4 tenths", {0.0}};
    for (int i = 0; i < 10000; ++i) c.column.push_back(round_to_format(0.1, f));
    cases.push_back(c);
  }
  {
    std::mt19937_64 rng(static_cast<unsigned>(p));
    Case c{"10^4 random", {round_to_format(1000.0, f)}};
    for (int i = 0; i < 10000; ++i) {
      const double x = round_to_format(std::ldexp(static_cast<double>(rng() >> 11), -53) * 2 - 1, f);
      c.column.push_back(x);
    }
    cases.push_back(c);
  }
  // Stagnation: bf16 sums of ones stop at 256, f16 at 2048.
  {
    Case c{"3000 ones", {}};
    c.column.assign(3000, 1.0);
    cases.push_back(c);
  }
  // Sums that cancel to a small result over many terms (kappa large).
  {
    std::mt19937_64 rng(static_cast<unsigned>(p) * 7);
    Case c{"cancelling pairs", {}};
    for (int i = 0; i < 500; ++i) {
      const double x = round_to_format(
          std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53), static_cast<int>(rng() % 20) - 10), f);
      c.column.push_back(x);
      c.column.push_back(-x);
    }
    c.column.push_back(ss);
    std::shuffle(c.column.begin(), c.column.end(), rng);
    cases.push_back(c);
  }
  return cases;
}

void run_and_judge(const Backend& b, const DenseWorkload& w, const std::string& label, unsigned threads = 0) {
  ASSERT_EQ(w.validate(), "") << label;
  std::vector<double> result(w.elements, 12345.0);
  RunOptions options;
  options.threads = threads;
  b.run_dense(w, result, options);
  for (std::size_t j = 0; j < w.elements; ++j) {
    const ExactSum exact = exact_element(w, j);
    const ElementVerdict v = judge(b.bound, b.storage, exact, result[j]);
    EXPECT_FALSE(is_violation(v.verdict))
        << b.name << " on '" << label << "' element " << j << ": " << name(v.verdict) << ", computed "
        << hex_float(result[j]) << ", RNE(S) " << hex_float(v.correctly_rounded) << ", exact " << fixed_hex(exact.sum)
        << ", error " << v.error << ", bound " << v.bound;
    if (b.bound.kind == BoundKind::correctly_rounded) {
      EXPECT_TRUE(same_bits(result[j], exact.rounded(b.storage)))
          << b.name << " on '" << label << "': " << hex_float(result[j]) << " vs "
          << hex_float(exact.rounded(b.storage));
    }
  }
}

// Backends with a dense runner and a deterministic claim per element: a stochastic bound holds
// with a probability, so one element beyond it is not a violation (it is checked
// statistically over seeds, not here).
std::vector<const Backend*> dense_backends() {
  std::vector<const Backend*> out;
  for (const auto& b : Registry::global().all())
    if (b.run_dense && b.bound.kind != BoundKind::stochastic) out.push_back(&b);
  return out;
}

// A name is a file name in findings/ and a word on a command line.
TEST(Backends, NamesAreNeitherHiddenFilesNorOptions) {
  for (const char* name : {"naive_f32", "example.kahan_f32", "a-b", "x", "a.", "a..b", "9lives"})
    EXPECT_TRUE(valid_backend_name(name)) << name;
  for (const char* name : {"", ".", "..", ".hidden", "-f", "--backend", "a b", "a/b", "a*", "\xc3\xa9"})
    EXPECT_FALSE(valid_backend_name(name)) << name;
  EXPECT_FALSE(valid_backend_name(std::string(129, 'a')));
  Registry registry;
  EXPECT_THROW(
      registry.add(dense_backend(".", Format::f32, Format::f32, "recursive(f32)", Determinism::bitwise_deterministic,
                                 "", [](const DenseWorkload&, std::span<double>, const RunOptions&) {})),
      std::invalid_argument);
}

TEST(Backends, RegistryIsPopulated) {
  const auto all = dense_backends();
  EXPECT_GE(all.size(), 37u);
  for (const char* name : {"naive_f32", "naive_bf16", "pairwise_f16", "blocked64_f64", "lanes8_f32", "kahan_f64",
                           "neumaier_f32", "widened_f16_acc_f32", "threaded_f32", "correctly_rounded_bf16"})
    EXPECT_NE(Registry::global().find(name), nullptr) << name;
  for (const Backend* b : all) {
    EXPECT_TRUE(valid_backend_name(b->name));
    EXPECT_TRUE(parse_bound(b->bound_text()).has_value()) << b->name;
  }
}

TEST(Backends, AdversarialCasesNoViolation) {
  for (const Backend* b : dense_backends()) {
    for (const Case& c : adversarial_cases(b->storage)) {
      bool representable_case = true;
      for (double x : c.column) representable_case = representable_case && representable(x, b->storage);
      if (!representable_case) continue;
      run_and_judge(*b, column_workload(b->storage, c.column), c.label);
    }
  }
}

TEST(Backends, RandomMultiElementWorkloads) {
  for (const Backend* b : dense_backends()) {
    for (std::uint64_t seed : {1, 2}) {
      const DenseWorkload w = random_dense(b->storage, 37, seed == 1 ? 1 : 300, test_seed(seed));
      run_and_judge(*b, w, "random " + std::to_string(seed));
    }
  }
}

TEST(Backends, ThreadCountsAndOrders) {
  for (const Backend* b : dense_backends()) {
    if (b->determinism != Determinism::run_to_run_nondeterministic) continue;
    const DenseWorkload w = random_dense(b->storage, 9, 500, test_seed(3));
    for (unsigned threads : {1u, 2u, 3u, 7u, 64u, 1000u})
      run_and_judge(*b, w, "threads " + std::to_string(threads), threads);
  }
}

// Backends that promise determinism give the same bits on every run (and any thread count).
TEST(Backends, DeterministicClassesRepeat) {
  for (const Backend* b : dense_backends()) {
    if (b->determinism == Determinism::run_to_run_nondeterministic) continue;
    const DenseWorkload w = random_dense(b->storage, 5, 200, test_seed(4));
    std::vector<double> first(w.elements), again(w.elements);
    b->run_dense(w, first, RunOptions{});
    for (unsigned threads : {1u, 4u}) {
      RunOptions options;
      options.threads = threads;
      b->run_dense(w, again, options);
      for (std::size_t j = 0; j < w.elements; ++j) EXPECT_TRUE(same_bits(first[j], again[j])) << b->name;
    }
  }
  // order_independent: a permutation of each column gives the same bits.
  for (const Backend* b : dense_backends()) {
    if (b->determinism != Determinism::order_independent) continue;
    for (const Case& c : adversarial_cases(b->storage)) {
      bool ok = true;
      for (double x : c.column) ok = ok && representable(x, b->storage);
      if (!ok) continue;
      std::vector<double> reversed(c.column.rbegin(), c.column.rend());
      double r1[1], r2[1];
      b->run_dense(column_workload(b->storage, c.column), r1, RunOptions{});
      b->run_dense(column_workload(b->storage, reversed), r2, RunOptions{});
      EXPECT_TRUE(same_bits(r1[0], r2[0])) << b->name << " " << c.label;
    }
  }
}

TEST(Backends, NaiveF32IsAPlainFloatLoop) {
  const Backend* naive = Registry::global().find("naive_f32");
  ASSERT_TRUE(naive);
  std::vector<Case> cases = adversarial_cases(Format::f32);
  const DenseWorkload random = random_dense(Format::f32, 1, 2000, test_seed(9));
  std::vector<double> column;
  random.column(0, column);
  cases.push_back({"random", column});
  for (const Case& c : cases) {
    bool ok = true;
    for (double x : c.column) ok = ok && representable(x, Format::f32);
    if (!ok) continue;
    volatile float acc = static_cast<float>(c.column[0]);
    for (std::size_t i = 1; i < c.column.size(); ++i) acc = acc + static_cast<float>(c.column[i]);
    double result[1];
    naive->run_dense(column_workload(Format::f32, c.column), result, RunOptions{});
    EXPECT_TRUE(same_bits(result[0], acc)) << c.label << ": " << hex_float(result[0]) << " vs " << hex_float(acc);
  }
}

// Neumaier's running sum is a plain recursive sum: it can overflow while A + neumaier(F) is
// below the threshold (found by fuzz_dense: corpora/fuzz_dense/regressions). In f16, 32768 and
// then 48s: each 48 is a tie between +32 and +64 past a multiple of 64 and goes to +64, so the
// running sum reaches 65520 (rounds to inf) after 512 steps while S = 57728 and
// A + neumaier(f16) is about 64480 < 65504. The bound assumes no intermediate overflows, so the
// precondition must count the running sum's reach A (1 + (n-1)u): the verdict is
// precondition-not-met, not overflow.
TEST(Backends, NeumaierRunningSumOverflowFailsThePrecondition) {
  std::vector<double> column(521, 48.0);
  column[0] = 32768.0;
  const Backend* b = Registry::global().find("neumaier_f16");
  ASSERT_TRUE(b);
  const DenseWorkload w = column_workload(Format::f16, column);
  double result[1];
  b->run_dense(w, result, RunOptions{});
  EXPECT_TRUE(std::isinf(result[0])) << hex_float(result[0]);
  const ExactSum exact = exact_element(w, 0);
  EXPECT_EQ(exact.rounded(Format::f16), 57728.0);
  const ElementVerdict v = judge(b->bound, b->storage, exact, result[0]);
  EXPECT_EQ(v.verdict, Verdict::precondition_not_met) << name(v.verdict) << ", bound " << v.bound;
  EXPECT_LT(57728.0 + v.bound, 65504.0);  // the result's own bound alone would have admitted it
  // Kahan's running sum carries the compensation at every step: no overflow, within its bound.
  const Backend* kahan = Registry::global().find("kahan_f16");
  ASSERT_TRUE(kahan);
  kahan->run_dense(w, result, RunOptions{});
  EXPECT_EQ(judge(kahan->bound, kahan->storage, exact, result[0]).verdict, Verdict::ok) << hex_float(result[0]);
}

TEST(Backends, StagnationIsReportedAsVacuous) {
  // 3000 ones: naive bf16 stops at 256 and naive f16 at 2048 (1 is half an ulp there, and ties
  // go to the even neighbour); both bounds are vacuous at that length, not violated.
  const std::vector<double> ones(3000, 1.0);
  for (const auto& [backend, stuck] : {std::pair{"naive_bf16", 256.0}, std::pair{"naive_f16", 2048.0}}) {
    const Backend* b = Registry::global().find(backend);
    ASSERT_TRUE(b);
    const DenseWorkload w = column_workload(b->storage, ones);
    double result[1];
    b->run_dense(w, result, RunOptions{});
    EXPECT_EQ(result[0], stuck) << backend;
    const ElementVerdict v = judge(b->bound, b->storage, exact_element(w, 0), result[0]);
    EXPECT_EQ(v.verdict, Verdict::bound_vacuous) << backend;
    EXPECT_EQ(v.error, 3000.0 - stuck);
  }
  // Where the bound is not vacuous yet (256 ones in bf16, 2048 in f16) naive is exact.
  const Backend* bf = Registry::global().find("naive_bf16");
  double result[1];
  bf->run_dense(column_workload(Format::bf16, std::vector<double>(256, 1.0)), result, RunOptions{});
  EXPECT_EQ(result[0], 256.0);
  // A wider accumulator does not stagnate: 3000 ones summed in f32, rounded once to bf16, whose
  // spacing is 16 there: 3000 is the midpoint of 2992 = 187*16 and 3008 = 188*16, ties to 3008.
  const Backend* wide = Registry::global().find("widened_bf16_acc_f32");
  wide->run_dense(column_workload(Format::bf16, ones), result, RunOptions{});
  EXPECT_EQ(result[0], 3008.0);
}

// The check can fail: judge() flags results that are deliberately wrong.
TEST(Backends, JudgeFlagsWrongResults) {
  const Backend* naive = Registry::global().find("naive_f32");
  const Backend* cr = Registry::global().find("correctly_rounded_f32");
  ASSERT_TRUE(naive && cr);
  const DenseWorkload w = random_dense(Format::f32, 4, 100, 5);
  std::vector<double> result(w.elements);
  naive->run_dense(w, result, RunOptions{});
  for (std::size_t j = 0; j < w.elements; ++j) {
    const ExactSum exact = exact_element(w, j);
    EXPECT_FALSE(is_violation(judge(naive->bound, Format::f32, exact, result[j]).verdict));
    // Far outside (n-1) u A: the result moved by A / 2.
    const double wrong = static_cast<double>(static_cast<float>(result[j] + nearest_double(exact.abs_sum) / 2));
    EXPECT_EQ(judge(naive->bound, Format::f32, exact, wrong).verdict, Verdict::bound_exceeded);
    EXPECT_EQ(judge(naive->bound, Format::f32, exact, kInf).verdict, Verdict::overflow);
    EXPECT_EQ(judge(naive->bound, Format::f32, exact, std::nextafter(result[j], kInf)).verdict,
              Verdict::not_representable);
  }
  cr->run_dense(w, result, RunOptions{});
  for (std::size_t j = 0; j < w.elements; ++j) {
    const ExactSum exact = exact_element(w, j);
    EXPECT_EQ(judge(cr->bound, Format::f32, exact, result[j]).verdict, Verdict::ok);
    EXPECT_EQ(judge(cr->bound, Format::f32, exact, next_up(result[j], Format::f32)).verdict,
              Verdict::not_correctly_rounded);
  }
  // A special-value rule broken: NaN addend, finite result.
  const DenseWorkload nan = column_workload(Format::f32, {1.0, kNaN});
  EXPECT_EQ(judge(naive->bound, Format::f32, exact_element(nan, 0), 1.0).verdict, Verdict::special_value_mismatch);
}

// The tree backends follow the order models that core's tree heights are checked against
// (testing/order_models.h; core/checking/bound_test.cpp): bit-identical results on f32 data.
TEST(TreeHeight, ModelsAreTheBackendsOrders) {
  const Backend* pairwise = Registry::global().find("pairwise_f32");
  const Backend* blocked = Registry::global().find("blocked64_f32");
  const Backend* lanes = Registry::global().find("lanes8_f32");
  ASSERT_TRUE(pairwise && blocked && lanes);
  EXPECT_EQ(to_string(pairwise->bound), "tree(numpy,f32)");
  EXPECT_EQ(to_string(blocked->bound), "tree(blocked:64,f32)");
  EXPECT_EQ(to_string(lanes->bound), "tree(lanes:8,f32)");
  std::mt19937_64 rng(test_seed(41));
  for (std::size_t n : {1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 129, 130, 136, 255, 256, 257, 1000, 4097}) {
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<float> x(n);
      for (auto& v : x)
        v = std::ldexp(static_cast<float>(rng() >> 40) + 1.0f, static_cast<int>(rng() % 40) - 30) *
            ((rng() & 1) ? -1.0f : 1.0f);
      const DenseWorkload w = column_workload(Format::f32, std::vector<double>(x.begin(), x.end()));
      double result[1];
      pairwise->run_dense(w, result, RunOptions{});
      EXPECT_EQ(result[0], test::model_numpy(x.data(), n)) << "pairwise n=" << n;
      blocked->run_dense(w, result, RunOptions{});
      EXPECT_EQ(result[0], test::model_blocked(x.data(), n, 64)) << "blocked n=" << n;
      lanes->run_dense(w, result, RunOptions{});
      EXPECT_EQ(result[0], test::model_lanes8(x.data(), n)) << "lanes n=" << n;
    }
  }
}

// 2^e as a fixed-point integer.
FixedInt pow2(int e) { return FixedInt(1) << (e + fixed_scale); }

// BOUNDS.md's counterexample (the kahan(f64) bound is core's; kahan_f64 is the backend): Kahan's loop on (-22,
// -(2^54+4), -(2^56-8), 8) in binary64 errs by 22 = 2.2 u A, more than the textbook 2u A, but within kahan(f64) = (3u +
// 70u^2) A.
TEST(BoundEval, KahanCounterexample) {
  const std::vector<double> x = {-22.0, -(0x1p54 + 4), -(0x1p56 - 8), 8.0};
  // Kahan's loop written here, in plain double.
  volatile double s = x[0], c = 0.0;
  for (std::size_t i = 1; i < x.size(); ++i) {
    const double y = x[i] - c;
    const double t = s + y;
    c = (t - s) - y;
    s = t;
  }
  const Backend* kahan = Registry::global().find("kahan_f64");
  ASSERT_TRUE(kahan);
  EXPECT_EQ(to_string(kahan->bound), "kahan(f64)");
  double result[1];
  kahan->run_dense(column_workload(Format::f64, x), result, RunOptions{});
  EXPECT_EQ(result[0], s);
  const ExactSum exact = boost_exact_sum(x);
  // S = -(2^56 + 2^54) - 10, A = 2^56 + 2^54 + 26 (by hand).
  EXPECT_EQ(exact.sum, -(pow2(56) + pow2(54) + 10 * pow2(0)));
  EXPECT_EQ(exact.abs_sum, pow2(56) + pow2(54) + 26 * pow2(0));
  FixedInt error = to_fixed(result[0]) - exact.sum;
  if (error < 0) error = -error;
  EXPECT_EQ(error, 22 * pow2(0));
  // 2 u A = A / 2^52 = 20.000000000000004 < 22.
  EXPECT_GT(error * (FixedInt(1) << 52), exact.abs_sum);
  const BoundCheck check = check_error_bound(kahan->bound, Format::f64, exact, error);
  EXPECT_TRUE(check.within);
  EXPECT_TRUE(check.precondition_met);
  EXPECT_FALSE(check.vacuous);
  EXPECT_GT(check.bound, 30.0);
  EXPECT_LT(check.bound, 30.000001);
}

}  // namespace
}  // namespace accucheck
