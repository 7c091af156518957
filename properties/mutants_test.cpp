// The harness against its planted bugs (impls/mutants/): every mutant must be caught by the
// property suite's checks within the CI budget (the same run_property, generators and RC_PARAMS
// as backend_properties_test.cpp). Each test prints how many cases each property needed, and
// the same budget with uniform random floats in [-1, 1] (the `uniform` family) beside it;
// docs/detection.md records the table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include <unistd.h>

#include "checking/judge.h"
#include "checking/shrink.h"
#include "harness.h"
#include "io/case_file.h"
#include "mutants/mutants.h"

namespace accucheck::props {
namespace {

using mutants::Mutant;

struct Detection {
  bool detected = false;
  int cases = 0;  // cases until the first failure of the detecting property (or the budget, when missed)
  Property property = Property::stated_bound;
  WorkloadKind kind = WorkloadKind::dense;
  std::string message;
};

// Runs every applicable property on every kind the mutant runs (for the uniform baseline: the
// dense kind only, the only one the uniform family makes); the detection that needed the
// fewest cases.
Detection detect(const Mutant& m, const Family* family, bool print) {
  HarnessOptions options = options_from_environment();
  options.rapidcheck_shrink = false;  // detection only: the finding test below shrinks
  options.shrink_budget = 0;
  options.write_finding = false;
  options.family = family;
  Detection best;
  int budget = 0;
  for (Property p : all_properties) {
    if (!property_applies(p, m.backend)) continue;
    for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::product, WorkloadKind::sparse}) {
      if (!m.backend.supports(kind) || (family && family->kind != kind)) continue;
      const PropertyRun run = run_property(m.backend, p, kind, options);
      budget = std::max(budget, run.cases);
      if (print)
        std::printf("  %-8s %-18s %-8s %s after %d case(s)\n", family ? std::string(family->name).c_str() : "suite",
                    std::string(name(p)).c_str(), std::string(name(kind)).c_str(), run.passed ? "held" : "DETECTED",
                    run.cases);
      if (!run.passed && (!best.detected || run.cases < best.cases)) {
        best = Detection{true, run.cases, p, kind, run.message};
      }
    }
  }
  if (!best.detected) best.cases = budget;
  return best;
}

class MutantDetected : public ::testing::TestWithParam<std::string> {};

TEST_P(MutantDetected, WithinCiBudget) {
  const Mutant* m = mutants::find(GetParam());
  ASSERT_NE(m, nullptr);
  std::printf("%s: %s (%s); claims %s, %s\n", m->backend.name.c_str(), m->bug.c_str(), m->origin.c_str(),
              m->backend.bound_text().c_str(), std::string(name(m->backend.determinism)).c_str());
  const Detection suite = detect(*m, nullptr, true);
  EXPECT_TRUE(suite.detected) << m->backend.name << " (" << m->bug << ") was not detected by any property within "
                              << suite.cases
                              << " cases per property and kind: a harness bug (strengthen the generators or checks)";
  const Family* uniform = find_family("uniform");
  const bool dense = m->backend.supports(WorkloadKind::dense);
  const Detection baseline = dense ? detect(*m, uniform, true) : Detection{};
  std::printf(
      "DETECTION %-38s suite: %-32s uniform: %s\n", m->backend.name.c_str(),
      suite.detected ? (std::string(name(suite.property)) + " after " + std::to_string(suite.cases)).c_str() : "MISSED",
      !dense              ? "n/a (no dense kind)"
      : baseline.detected ? (std::string(name(baseline.property)) + " after " + std::to_string(baseline.cases)).c_str()
                          : ("missed within " + std::to_string(baseline.cases)).c_str());
  if (suite.detected) std::printf("%s\n", suite.message.c_str());
}

INSTANTIATE_TEST_SUITE_P(Planted, MutantDetected, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto& m : mutants::all()) names.push_back(m.backend.name);
                           return names;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return parameter_name(info.param); });

TEST(Mutants, AtLeastTenNoneRegistered) {
  const auto& all = mutants::all();
  EXPECT_GE(all.size(), 10u);
  std::set<std::string> names;
  for (const Mutant& m : all) {
    EXPECT_TRUE(names.insert(m.backend.name).second) << "duplicate " << m.backend.name;
    EXPECT_EQ(Registry::global().find(m.backend.name), nullptr) << m.backend.name << " is in the product registry";
    EXPECT_TRUE(property_applies(m.expected, m.backend)) << m.backend.name;
  }
}

// Uniform random floats in [-1, 1] cannot catch what needs NaN or an all -0 element: the
// adversarial families exist for a reason (docs/detection.md has the statistical misses too).
TEST(Mutants, UniformBaselineMissesSome) {
  const Family* uniform = find_family("uniform");
  ASSERT_NE(uniform, nullptr);
  int missed = 0;
  for (const char* mutant : {"nan_skipped_f32", "correctly_rounded_positive_zero_f32"}) {
    const Mutant* m = mutants::find(mutant);
    ASSERT_NE(m, nullptr) << mutant;
    const Detection d = detect(*m, uniform, false);
    std::printf("uniform on %s: %s after %d case(s)\n", mutant, d.detected ? "detected" : "missed", d.cases);
    missed += !d.detected;
  }
  EXPECT_EQ(missed, 2);
}

// ---------------------------------------------------------------------------------------------
// The failure path end to end: RapidCheck's shrinking and shrink_workload make the case
// minimal, it is written as a case file, and the file replays the failure.

class MutantFinding : public ::testing::TestWithParam<std::string> {};

TEST_P(MutantFinding, ShrinksWritesAndReplays) {
  const Mutant* m = mutants::find(GetParam());
  ASSERT_NE(m, nullptr);
  HarnessOptions options = options_from_environment();
  options.findings_dir =
      (std::filesystem::temp_directory_path() / ("accucheck_findings_" + std::to_string(::getpid()))).string();
  options.registered = false;
  const WorkloadKind kind = m->backend.supports(WorkloadKind::dense)     ? WorkloadKind::dense
                            : m->backend.supports(WorkloadKind::product) ? WorkloadKind::product
                                                                         : WorkloadKind::sparse;
  const PropertyRun run = run_property(m->backend, m->expected, kind, options);
  ASSERT_FALSE(run.passed) << m->backend.name << " not detected by " << name(m->expected);
  std::printf("%s\n", run.message.c_str());
  ASSERT_TRUE(run.minimal && run.failure);
  ASSERT_FALSE(run.case_path.empty());
  EXPECT_NE(run.message.find("written to " + run.case_path), std::string::npos);

  // Minimal: one element, and no step can be removed without losing the failure.
  EXPECT_EQ(element_count(*run.minimal), 1u) << describe_shape(*run.minimal);

  // The file replays: same workload, same failure, the recorded backend and verdict.
  const CaseFile c = read_case_file(run.case_path);
  EXPECT_TRUE(c.workload == *run.minimal) << describe_shape(c.workload) << " vs " << describe_shape(*run.minimal);
  EXPECT_EQ(c.backend, m->backend.name);
  EXPECT_EQ(c.bound, m->backend.bound_text());
  EXPECT_EQ(c.verdict, run.failure->label);
  const auto again = check_property(m->expected, m->backend, c.workload);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->label, run.failure->label);
  if (m->expected == Property::stated_bound || m->expected == Property::special_values) {
    const BackendOutcome outcome = run_and_judge(m->backend, c.workload);
    EXPECT_TRUE(outcome.violated());
    EXPECT_EQ(std::string(name(outcome.worst)), c.verdict);
  }
  std::filesystem::remove_all(options.findings_dir);
}

// One mutant per workload kind and one per non-bound property.
INSTANTIATE_TEST_SUITE_P(Planted, MutantFinding,
                         ::testing::Values("elemwise_sum_double_count_f32", "ties_away_correctly_rounded_f32",
                                           "threaded_claims_bitwise_f32", "nan_skipped_f32",
                                           "embedding_scatter_overwrite_f32", "gemm_beta0_f32"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return parameter_name(info.param); });

// The mxnet-17995 double count needs more than 4 inputs: its minimal case has exactly 5 steps.
TEST(MutantFinding, DoubleCountShrinksToFiveInputs) {
  const Mutant* m = mutants::find("elemwise_sum_double_count_f32");
  ASSERT_NE(m, nullptr);
  HarnessOptions options = options_from_environment();
  options.write_finding = false;
  const PropertyRun run = run_property(m->backend, Property::stated_bound, WorkloadKind::dense, options);
  ASSERT_FALSE(run.passed);
  const auto& d = std::get<DenseWorkload>(*run.minimal);
  EXPECT_EQ(d.elements, 1u);
  EXPECT_EQ(d.steps, 5u) << describe_shape(*run.minimal);
  int nonzero = 0;
  for (double x : d.addends) nonzero += x != 0;
  nonzero += d.initial[0] != 0;
  EXPECT_LE(nonzero, 2) << "shrinking should leave one or two nonzero values";
}

}  // namespace
}  // namespace accucheck::props
