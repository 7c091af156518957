// The finding pipeline (findings.h): one list of properties, the stated bound first, policies
// that choose what is checked, the minimizer and the case writer. Backends are defined here
// (no registry), each wrong in one known way.
#include "engine/findings.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>

#include "io/case_file.h"

namespace accucheck {
namespace {

DenseWorkload dense(std::size_t elements, std::size_t steps, double value) {
  DenseWorkload w;
  w.format = Format::f32;
  w.elements = elements;
  w.steps = steps;
  w.initial.assign(elements, value);
  w.addends.assign(elements * steps, value);
  return w;
}

using ElementSum = std::function<double(const DenseWorkload&, std::size_t element, double naive)>;

// A sequential f32 sum, changed by `change` (which sees the workload, the element and the right sum).
Backend f32_sum(std::string name, const char* bound, Determinism determinism, ElementSum change) {
  return dense_backend(std::move(name), Format::f32, Format::f32, bound, determinism, "test",
                       [change](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
                         std::vector<double> x;
                         for (std::size_t j = 0; j < w.elements; ++j) {
                           w.column(j, x);
                           float acc = 0;
                           for (double v : x) acc += static_cast<float>(v);
                           result[j] = change(w, j, acc);
                         }
                       });
}

TEST(Findings, TheStatedBoundNamesItsElementAndTheMinimizerStartsThere) {
  // Wrong by 1 on an element that starts at 3 (element 2 here) once there are 3 steps or more.
  const Backend b = f32_sum("test_off_by_one", "recursive(f32)", Determinism::bitwise_deterministic,
                            [](const DenseWorkload& w, std::size_t j, double sum) {
                              return w.initial[j] == 3 && w.steps >= 3 ? sum + 1 : sum;
                            });
  DenseWorkload w = dense(4, 6, 0.25);
  w.initial[2] = 3;
  const Judgement j = find_violations(b, w, exact_sums(w));
  ASSERT_TRUE(j.violated());
  const Finding& f = j.findings.front();
  EXPECT_EQ(f.property, Property::stated_bound);
  EXPECT_EQ(f.label, "bound-exceeded");
  EXPECT_EQ(f.element, std::optional<std::size_t>(2));
  const Workload minimal = minimize_finding(b, w, f);
  const auto& d = std::get<DenseWorkload>(minimal);
  EXPECT_EQ(d.elements, 1u) << "started from the failing element alone";
  EXPECT_EQ(d.steps, 3u) << "no step can go without losing the failure";
  EXPECT_TRUE(still_shows(b, minimal, f));
}

// A kernel wrong only past an element count (a vector tail, a second block) fails on no element
// alone: the minimizer removes elements until one more would hide the failure.
TEST(Findings, TheMinimizerReducesTheElementCountToTheSmallestThatFails) {
  const Backend b = f32_sum("test_wide_tail", "recursive(f32)", Determinism::bitwise_deterministic,
                            [](const DenseWorkload& w, std::size_t j, double sum) {
                              return w.elements > 16 && j == w.elements - 1 ? sum + 1 : sum;  // the tail element
                            });
  const DenseWorkload w = dense(1000, 3, 0.25);
  const Judgement j = find_violations(b, w, exact_sums(w));
  ASSERT_TRUE(j.violated());
  const Workload minimal = minimize_finding(b, w, j.findings.front());
  const auto& d = std::get<DenseWorkload>(minimal);
  EXPECT_EQ(d.elements, 17u);
  EXPECT_EQ(d.steps, 0u) << "the failure needs no step";
  EXPECT_EQ(d.initial.size(), 17u);
}

// A wide buffer whose bug needs both a size and a remainder (4 threads in chunks of floor(D/4)
// from D = 1024 on, the last D mod 4 elements lost): halving chunks meet sizes that do not fail
// and spend the budget on positions; cutting to boundary sizes first reaches 1025 directly.
TEST(Findings, AWideBufferShrinksToItsThresholdWithinTheBudget) {
  const Backend b = f32_sum("test_partition_remainder", "recursive(f32)", Determinism::bitwise_deterministic,
                            [](const DenseWorkload& w, std::size_t j, double sum) {
                              return w.elements >= 1024 && j >= w.elements / 4 * 4 ? w.initial[j] : sum;
                            });
  const DenseWorkload w = dense(131070, 3, 0.25);
  const Judgement j = find_violations(b, w, exact_sums(w));
  ASSERT_TRUE(j.violated());
  const Workload minimal = minimize_finding(b, w, j.findings.front(), 300);
  const auto& d = std::get<DenseWorkload>(minimal);
  EXPECT_EQ(d.elements, 1025u) << "the smallest D >= 1024 with D mod 4 != 0";
  EXPECT_TRUE(still_shows(b, minimal, j.findings.front()));
}

TEST(Findings, ProductAndSparseShrinkTheirElementDimensionsToo) {
  // Product: wrong when C has more than 5 columns or more than 2 rows (the last element).
  const Backend product = product_backend(
      "test_product_edge", Format::f32, Format::f32, "products(f32)", Determinism::bitwise_deterministic, "test",
      [](const ProductWorkload& w, std::span<double> result, const RunOptions&) {
        for (std::size_t m = 0; m < w.rows; ++m)
          for (std::size_t n = 0; n < w.cols; ++n) {
            double c = w.initial[m * w.cols + n];
            for (std::size_t t = 0; t < w.steps; ++t)
              for (std::size_t k = 0; k < w.batch; ++k) c += w.a_at(t, m, k) * w.b_at(t, k, n);
            const bool last = m == w.rows - 1 && n == w.cols - 1;
            result[m * w.cols + n] = static_cast<float>(last && w.cols > 5 && w.rows > 2 ? c + 1 : c);
          }
      });
  ProductWorkload p;
  p.format = Format::f32;
  p.rows = 7;
  p.cols = 40;
  p.batch = 2;
  p.steps = 2;
  p.initial.assign(p.rows * p.cols, 0.5);
  p.a.assign(p.steps * p.rows * p.batch, 0.25);
  p.b.assign(p.steps * p.batch * p.cols, 0.5);
  const Judgement jp = find_violations(product, p, exact_sums(p));
  ASSERT_TRUE(jp.violated());
  const Workload minimal_product = minimize_finding(product, p, jp.findings.front());
  const auto& mp = std::get<ProductWorkload>(minimal_product);
  EXPECT_EQ(mp.cols, 6u);
  EXPECT_EQ(mp.rows, 3u);
  EXPECT_EQ(mp.initial.size(), 18u);
  EXPECT_EQ(mp.a.size(), mp.steps * mp.rows * mp.batch);
  EXPECT_EQ(mp.b.size(), mp.steps * mp.batch * mp.cols);

  // Sparse: a scatter wrong in the last embedding column once dim exceeds 3.
  const Backend sparse =
      sparse_backend("test_sparse_edge", Format::f32, Format::f32, "recursive(f32)", Determinism::bitwise_deterministic,
                     "test", [](const SparseWorkload& w, std::span<double> result, const RunOptions&) {
                       std::vector<float> table(w.initial.begin(), w.initial.end());
                       for (std::size_t q = 0; q < w.pairs(); ++q)
                         for (std::size_t d = 0; d < w.dim; ++d)
                           table[w.row_index[q] * w.dim + d] += static_cast<float>(w.values[q * w.dim + d]);
                       for (std::size_t e = 0; e < table.size(); ++e)
                         result[e] = table[e] + (w.dim > 3 && e % w.dim == w.dim - 1 ? 1 : 0);
                     });
  SparseWorkload s;
  s.format = Format::f32;
  s.rows = 2;
  s.dim = 64;
  s.steps = 1;
  s.initial.assign(s.rows * s.dim, 0.0);
  s.row_index = {0, 1, 0};
  s.step_offsets = {0, 3};
  s.values.assign(3 * s.dim, 0.125);
  const Judgement js = find_violations(sparse, s, exact_sums(s));
  ASSERT_TRUE(js.violated());
  const Workload minimal_sparse = minimize_finding(sparse, s, js.findings.front());
  const auto& ms = std::get<SparseWorkload>(minimal_sparse);
  EXPECT_EQ(ms.dim, 4u);
  EXPECT_EQ(ms.initial.size(), ms.rows * 4);
  EXPECT_EQ(ms.values.size(), ms.pairs() * 4);
}

TEST(Findings, FurtherPropertiesAreOneListThatPoliciesChooseFrom) {
  std::atomic<int> runs{0};
  // Deterministic by claim, but every other run adds the smallest f32 step.
  const Backend b = f32_sum("test_flaky", "recursive(f32)", Determinism::bitwise_deterministic,
                            [&runs](const DenseWorkload&, std::size_t j, double sum) {
                              const bool odd = j == 0 && (runs++ % 2 == 1);
                              return odd ? static_cast<double>(std::nextafter(static_cast<float>(sum), 1e30f)) : sum;
                            });
  const std::vector<Property> expected = {Property::determinism, Property::scaling, Property::negation};
  EXPECT_EQ(further_properties(b), expected) << "recursive(f32), deterministic: not correctly_rounded";
  const Workload w = dense(1, 2, 0.5);
  FindingPolicy bound_only;
  bound_only.further_properties = false;
  EXPECT_FALSE(find_violations(b, w, exact_sums(w), bound_only).violated()) << "the stated bound holds";
  const Judgement every = find_violations(b, w, exact_sums(w));
  ASSERT_TRUE(every.violated());
  EXPECT_EQ(every.findings.front().property, Property::determinism);
  EXPECT_EQ(every.findings.front().label, "nondeterministic");
}

TEST(Findings, OnlyChecksTheOneProperty) {
  // |sum|: right for positive sums, so only negation sees it.
  const Backend b = f32_sum("test_abs", "recursive(f32)", Determinism::bitwise_deterministic,
                            [](const DenseWorkload&, std::size_t, double sum) { return std::fabs(sum); });
  const Workload w = dense(2, 3, 0.75);
  FindingPolicy negation;
  negation.only = Property::negation;
  const Judgement j = find_violations(b, w, exact_sums(w), negation);
  ASSERT_EQ(j.findings.size(), 1u);
  EXPECT_EQ(j.findings[0].label, "negation-mismatch");
  FindingPolicy bound;
  bound.only = Property::stated_bound;
  EXPECT_FALSE(find_violations(b, w, exact_sums(w), bound).violated());
}

TEST(Findings, ExemptionsAreRegisteredWithTheBackend) {
  const Backend b = exempt_from(f32_sum("test_exempt", "recursive(f32)", Determinism::bitwise_deterministic,
                                        [](const DenseWorkload&, std::size_t, double sum) { return sum; }),
                                Property::scaling, "rounds at a position set by |S|");
  EXPECT_EQ(property_exclusion(Property::scaling, b), "rounds at a position set by |S|");
  const std::vector<Property> expected = {Property::determinism, Property::negation};
  EXPECT_EQ(further_properties(b), expected);
}

TEST(Findings, ATimedOutBackendIsNotRerunToShrink) {
  std::atomic<int> runs{0};
  const Backend b = f32_sum("test_counted", "recursive(f32)", Determinism::bitwise_deterministic,
                            [&runs](const DenseWorkload&, std::size_t, double sum) {
                              ++runs;
                              return sum;
                            });
  Finding hung;
  hung.label = "backend-failed";
  hung.verdict = Verdict::backend_failed;
  hung.failure = FailureKind::timeout;
  const Workload w = dense(3, 5, 1.0);
  EXPECT_EQ(std::get<DenseWorkload>(minimize_finding(b, w, hung)).addends, std::get<DenseWorkload>(w).addends);
  EXPECT_EQ(runs.load(), 0);
}

TEST(Findings, TheOracleIsCheckedFirstWhenAsked) {
  const Backend b = f32_sum("test_right", "recursive(f32)", Determinism::bitwise_deterministic,
                            [](const DenseWorkload&, std::size_t, double sum) { return sum; });
  const Workload w = dense(1, 2, 0.5);
  std::vector<ExactSum> wrong = exact_sums(w);
  wrong[0].sum += 1;  // one unit of 2^-1074 off
  EXPECT_FALSE(oracle_finding(w, exact_sums(w)).has_value());
  FindingPolicy policy;
  policy.cross_check_oracle = true;
  const Judgement j = find_violations(b, w, wrong, policy);
  ASSERT_EQ(j.findings.size(), 1u);
  EXPECT_EQ(j.findings[0].label, "oracle-disagreement");
  EXPECT_NE(j.findings[0].detail.find("differ in S"), std::string::npos) << j.findings[0].detail;
}

TEST(Findings, TheCaseWriterNamesFilesByLabelAndContent) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "findings_test";
  std::filesystem::remove_all(dir);
  const Backend b = f32_sum("test_written", "recursive(f32)", Determinism::bitwise_deterministic,
                            [](const DenseWorkload&, std::size_t, double sum) { return sum; });
  Finding f;
  f.property = Property::scaling;
  f.verdict = Verdict::metamorphic_mismatch;
  f.label = "scaling-mismatch";
  f.detail = "the report\n";
  f.backend_output = "'hello\\n'";
  const Workload one = dense(1, 1, 1.0), other = dense(1, 1, 2.0);
  const std::string a = write_finding(dir.string(), b, f, one, {"findings_test", 7});
  EXPECT_EQ(write_finding(dir.string(), b, f, one, {"findings_test", 7}), a) << "the same finding, the same file";
  EXPECT_NE(write_finding(dir.string(), b, f, other, {"findings_test", 7}), a);
  EXPECT_EQ(std::filesystem::path(a).filename().string().rfind("test_written_scaling-mismatch_", 0), 0u) << a;
  const CaseFile c = read_case_file(a);
  EXPECT_EQ(c.verdict, "scaling-mismatch");
  EXPECT_EQ(c.seed, std::optional<std::uint64_t>(7));
  EXPECT_EQ(c.note, "property scaling: the report\n  the backend wrote to its output: 'hello\\n'\n");
  EXPECT_EQ(std::get<DenseWorkload>(c.workload).initial, std::get<DenseWorkload>(one).initial);
}

}  // namespace
}  // namespace accucheck
