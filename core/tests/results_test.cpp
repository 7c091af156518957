// The results schema (results.h): what check --json writes reads back field for field, and a
// malformed file is refused naming the field.
#include "accucheck/results.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace accucheck {
namespace {

CampaignResults example() {
  CampaignResults r;
  r.tool = "accucheck trace";
  r.seed = 18446744073709551615ULL;
  r.cases_per_stream = 12;
  r.seconds = 1.5;
  r.notes = {"plugin x changed the floating-point environment while loading"};
  BackendResults b;
  b.name = "naive_f64";
  b.device = "cpu";
  b.storage = Format::f64;
  b.accumulation = "f64";
  b.bound = "recursive(f64)";
  b.determinism = "bitwise-deterministic";
  b.origin = "builtin";
  b.cases = 12;
  b.addends = 300;
  b.determinism_checks = 2;
  b.max_ratio = 0.75;
  b.max_ulps = std::numeric_limits<std::int64_t>::max();  // the saturated ulps of an f64 cancellation
  b.verdicts = {{Verdict::ok, 10}, {Verdict::bound_exceeded, 2}};
  b.violations = {{Verdict::bound_exceeded, 1}};
  b.findings = {"findings/naive_f64_bound-exceeded_0123456789abcdef.json"};
  b.failures = {"boom"};
  b.samples = {{"long_chain", 65, 1e-16, 2e-16, 0.5, INFINITY, 0.25, 3.0, Verdict::bound_exceeded}};
  b.seconds_to_ratio_0_9 = 0.25;  // --maximize; seconds_to_ratio_0_99 left unreached
  b.worst_case = "findings/worst/naive_f64.json";
  r.backends = {b};
  return r;
}

TEST(Results, ReadBackFieldForField) {
  const CampaignResults r = example();
  const CampaignResults back = results_from_json(results_to_json(r), "r.json");
  EXPECT_EQ(back.tool, r.tool);
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.cases_per_stream, r.cases_per_stream);
  EXPECT_EQ(back.seconds, r.seconds);
  EXPECT_EQ(back.notes, r.notes);
  ASSERT_EQ(back.backends.size(), 1u);
  const BackendResults &a = r.backends[0], &b = back.backends[0];
  EXPECT_EQ(b.name, a.name);
  EXPECT_EQ(b.device, a.device);
  EXPECT_EQ(b.storage, a.storage);
  EXPECT_EQ(b.accumulation, a.accumulation);
  EXPECT_EQ(b.bound, a.bound);
  EXPECT_EQ(b.determinism, a.determinism);
  EXPECT_EQ(b.origin, a.origin);
  EXPECT_EQ(b.cases, a.cases);
  EXPECT_EQ(b.addends, a.addends);
  EXPECT_EQ(b.determinism_checks, a.determinism_checks);
  EXPECT_EQ(b.max_ratio, a.max_ratio);
  EXPECT_EQ(b.max_ulps, a.max_ulps) << "2^63-1 exactly, not through a double";
  EXPECT_EQ(b.verdicts, a.verdicts);
  EXPECT_EQ(b.violations, a.violations);
  EXPECT_EQ(b.findings, a.findings);
  EXPECT_EQ(b.failures, a.failures);
  EXPECT_EQ(b.seconds_to_ratio_0_9, std::optional<double>(0.25));
  EXPECT_FALSE(b.seconds_to_ratio_0_99) << "not reached: absent, not 0";
  EXPECT_EQ(b.worst_case, a.worst_case);
  ASSERT_EQ(b.samples.size(), 1u);
  EXPECT_EQ(b.samples[0].family, "long_chain");
  EXPECT_EQ(b.samples[0].n, 65u);
  EXPECT_EQ(b.samples[0].kappa, INFINITY);
  EXPECT_EQ(b.samples[0].exact, 0.25);
  EXPECT_EQ(b.samples[0].abs_sum, 3.0);
  EXPECT_EQ(b.samples[0].verdict, Verdict::bound_exceeded);
  EXPECT_EQ(back.violation_count(), 1u);
  EXPECT_EQ(b.violation_text(), "bound-exceeded 1");
}

TEST(Results, MalformedFilesNameTheField) {
  const std::string good = results_to_json(example());
  const auto error_of = [](const std::string& text) -> std::string {
    try {
      results_from_json(text, "r.json");
    } catch (const ResultsError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  EXPECT_EQ(error_of(replaced("\"verdict\":\"bound-exceeded\"", "\"verdict\":\"fine\"")),
            "r.json: backends[0].samples[0].verdict: 'fine' is not a verdict (ok, bound-exceeded, overflow, ...)");
  EXPECT_EQ(error_of(replaced("\"storage\":\"f64\"", "\"storage\":\"f33\"")),
            "r.json: backends[0].storage: 'f33' is not a format (f64, f32, f16, bf16)");
  EXPECT_EQ(error_of(replaced("\"tool\":\"accucheck trace\"", "\"tool\":\"other\"")),
            "r.json: tool: 'other' is not an accucheck results file");
  EXPECT_NE(error_of(replaced("\"max_ulps\":9223372036854775807", "\"max_ulps\":9223372036854775808")).find("backends[0].max_ulps"),
            std::string::npos);
  EXPECT_NE(error_of("{").find("r.json: not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace accucheck
