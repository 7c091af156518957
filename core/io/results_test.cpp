// The results schema (results.h): what check --json writes reads back field for field, and a
// malformed file is refused naming the field.
#include "io/results.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace accucheck {
namespace {

// A built-in f32 backend's results with nothing counted yet.
BackendResults backend(const std::string& name) {
  BackendResults b;
  b.name = name;
  b.device = "cpu";
  b.storage = Format::f32;
  b.accumulation = "f32";
  b.bound = "recursive(f32)";
  b.determinism = "bitwise-deterministic";
  b.origin = "builtin";
  return b;
}

CampaignResults example() {
  CampaignResults r;
  r.tool = "accucheck trace";
  r.seed = 18446744073709551615ULL;
  r.cases_per_stream = 12;
  r.seconds = 1.5;
  r.notes = {"plugin x changed the floating-point environment while loading"};
  BackendResults b = backend("naive_f64");
  b.storage = Format::f64;
  b.accumulation = "f64";
  b.bound = "recursive(f64)";
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
  EXPECT_NE(error_of(replaced("\"max_ulps\":9223372036854775807", "\"max_ulps\":9223372036854775808"))
                .find("backends[0].max_ulps"),
            std::string::npos);
  EXPECT_NE(error_of("{").find("r.json: not valid JSON"), std::string::npos);
}

// merge_results: the shards of one campaign merge into what one process reports.
namespace merging {

// The sample of element n of the case at position 0.
ResultSample sample(std::uint64_t n, double ratio) {
  return ResultSample{"mixed_magnitudes", n, ratio * 1e-7, 1e-7, ratio, 1.0, 1.0, 1.0, Verdict::ok,
                      sample_key(0, n, 0)};
}

CampaignResults shard(std::uint64_t index, std::uint64_t count, std::uint64_t first_sample) {
  CampaignResults r;
  r.seed = 42;
  r.shard_index = index;
  r.shard_count = count;
  r.cases_per_stream = 10 + index;
  r.seconds = 1.0 + index;
  r.notes = {"common note"};
  BackendResults b = backend("naive_f32");
  b.cases = 100 + index;
  b.addends = 1000;
  b.max_ratio = 0.5 + 0.1 * index;
  b.max_ulps = 3 + index;
  b.verdicts = {{Verdict::ok, 90}, {Verdict::bound_exceeded, 1 + index}};
  b.violations = {{Verdict::bound_exceeded, 1 + index}};
  // Shard k found its bound-exceeded case at position 7 - 4k: the later shard's is the earlier.
  b.findings = {"f/bound_" + std::to_string(index) + ".json"};
  b.finding_origins = {{7 - 4 * index, Verdict::bound_exceeded}};
  b.failures = {"failure at " + std::to_string(9 - index)};
  b.failure_positions = {9 - index};
  for (std::uint64_t k = 0; k < 300; ++k) b.samples.push_back(sample(first_sample + k, 0.001 * k));
  r.backends = {b};
  return r;
}

TEST(MergeResults, CountsAddMaximaStayEarliestFindingsWin) {
  const MergedResults m = merge_results({shard(0, 2, 0), shard(1, 2, 1000)}, {"a.json", "b.json"});
  const CampaignResults& r = m.results;
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(r.shard_index, 0u);
  EXPECT_EQ(r.shard_count, 1u) << "shards 0 and 1 of 2 are the whole campaign";
  EXPECT_EQ(r.cases_per_stream, 21u);
  EXPECT_EQ(r.seconds, 2.0) << "the longest shard's";
  EXPECT_EQ(r.notes, std::vector<std::string>{"common note"}) << "a note both shards have, once";
  ASSERT_EQ(r.backends.size(), 1u);
  const BackendResults& b = r.backends[0];
  EXPECT_EQ(b.cases, 201u);
  EXPECT_EQ(b.addends, 2000u);
  EXPECT_DOUBLE_EQ(b.max_ratio, 0.6);
  EXPECT_EQ(b.max_ulps, 4);
  EXPECT_EQ(b.verdicts.at(Verdict::ok), 180u);
  EXPECT_EQ(b.violations.at(Verdict::bound_exceeded), 3u);
  EXPECT_EQ(b.findings, std::vector<std::string>{"f/bound_1.json"}) << "one finding per class: the earliest case's";
  ASSERT_EQ(b.finding_origins.size(), 1u);
  EXPECT_EQ(b.finding_origins[0].position, 3u);
  EXPECT_EQ(m.superseded, std::vector<std::string>{"f/bound_0.json"});
  EXPECT_EQ(b.failures, (std::vector<std::string>{"failure at 8", "failure at 9"})) << "by position";
  ASSERT_EQ(b.samples.size(), kMaxSamples);
  // The kMaxSamples of smallest key among all 600, whatever shard they came from.
  std::vector<std::uint64_t> keys;
  for (const auto& part : {shard(0, 2, 0), shard(1, 2, 1000)})
    for (const auto& s : part.backends[0].samples) keys.push_back(s.key);
  std::sort(keys.begin(), keys.end());
  for (std::size_t k = 0; k < kMaxSamples; ++k) EXPECT_EQ(b.samples[k].key, keys[k]) << k;
}

TEST(MergeResults, AFileTwoShardsBothWroteIsNeverSuperseded) {
  // Two shards minimized different cases to the same minimal case: the same file name (case
  // files are named by their content). The merged results keep it, so it is not to be removed.
  CampaignResults a = shard(0, 2, 0), b = shard(1, 2, 1000);
  b.backends[0].findings = a.backends[0].findings;
  const MergedResults m = merge_results({a, b}, {});
  EXPECT_EQ(m.results.backends[0].findings, a.backends[0].findings);
  EXPECT_TRUE(m.superseded.empty()) << m.superseded[0];
}

TEST(MergeResults, TheOrderOfTheShardsDoesNotMatter) {
  const auto ab = merge_results({shard(0, 3, 0), shard(1, 3, 500), shard(2, 3, 900)}, {});
  const auto ba = merge_results({shard(2, 3, 900), shard(0, 3, 0), shard(1, 3, 500)}, {});
  EXPECT_EQ(results_to_json(ab.results), results_to_json(ba.results));
}

TEST(MergeResults, SampleKeysNameWhereTheSampleWasJudged) {
  EXPECT_EQ(sample_key(5, 2, 0), sample_key(5, 2, 0));
  // Position, element and repeat each change it (and are not interchangeable).
  EXPECT_NE(sample_key(5, 2, 0), sample_key(6, 2, 0));
  EXPECT_NE(sample_key(5, 2, 0), sample_key(5, 3, 0));
  EXPECT_NE(sample_key(5, 2, 0), sample_key(5, 2, 1));
  EXPECT_NE(sample_key(5, 2, 0), sample_key(2, 5, 0));
  // Identical samples of different elements are kept as often as they occur: their keys differ,
  // so that a value repeated in many elements is not all or nothing of the sample.
  std::set<std::uint64_t> keys;
  for (std::uint64_t e = 0; e < 1000; ++e) keys.insert(sample_key(0, e, 0));
  EXPECT_EQ(keys.size(), 1000u);
  // Uniform: about half of the keys below 2^63.
  const auto low =
      std::count_if(keys.begin(), keys.end(), [](std::uint64_t k) { return k < (std::uint64_t(1) << 63); });
  EXPECT_GT(low, 430);
  EXPECT_LT(low, 570);
}

TEST(MergeResults, ShardsOfAShardAndPartialSets) {
  // Workers 0..2 of shard 1 of 2 (check --shard 1/2 --jobs 3): shards 1, 3, 5 of 6 make shard 1 of 2.
  const auto m = merge_results({shard(1, 6, 0), shard(3, 6, 0), shard(5, 6, 0)}, {});
  EXPECT_EQ(m.results.shard_index, 1u);
  EXPECT_EQ(m.results.shard_count, 2u);
  // Two of three: the count stays, a note names what is there.
  const auto partial = merge_results({shard(0, 3, 0), shard(2, 3, 0)}, {});
  EXPECT_EQ(partial.results.shard_count, 3u);
  EXPECT_NE(std::find(partial.results.notes.begin(), partial.results.notes.end(),
                      "these results hold shards 0, 2 of 3 only: the cases of the others are missing"),
            partial.results.notes.end());
}

std::string merge_error(const std::vector<CampaignResults>& parts) {
  try {
    merge_results(parts, {"a.json", "b.json"});
  } catch (const ResultsError& e) {
    return e.what();
  }
  return "(merged)";
}

TEST(MergeResults, RefusesWhatIsNotOneCampaign) {
  EXPECT_EQ(merge_error({shard(0, 2, 0), shard(0, 2, 0)}),
            "b.json: shard 0 of 2 is also a.json: its cases would count twice");
  EXPECT_EQ(merge_error({shard(0, 2, 0), shard(1, 3, 0)}),
            "b.json: shard_count: 3, where a.json has 2: not shards of one split");
  CampaignResults other_seed = shard(1, 2, 0);
  other_seed.seed = 43;
  EXPECT_EQ(merge_error({shard(0, 2, 0), other_seed}),
            "b.json: seed: 43, not the seed of a.json (42): not a shard of the same campaign");
  CampaignResults other_bound = shard(1, 2, 0);
  other_bound.backends[0].bound = "recursive(f64)";
  EXPECT_NE(merge_error({shard(0, 2, 0), other_bound}).find("b.json: backends[0]: naive_f32 stating recursive(f64)"),
            std::string::npos);
  EXPECT_EQ(merge_error({}), "no results to merge");
}

TEST(MergeResults, ShardFieldsReadBack) {
  const CampaignResults r = shard(2, 5, 0);
  const CampaignResults back = results_from_json(results_to_json(r), "r.json");
  EXPECT_EQ(back.shard_index, 2u);
  EXPECT_EQ(back.shard_count, 5u);
  ASSERT_EQ(back.backends[0].finding_origins.size(), 1u);
  EXPECT_EQ(back.backends[0].finding_origins[0].position, r.backends[0].finding_origins[0].position);
  EXPECT_EQ(back.backends[0].failure_positions, r.backends[0].failure_positions);
  EXPECT_EQ(back.backends[0].samples[7].key, r.backends[0].samples[7].key);
  std::string text = results_to_json(r);
  text.replace(text.find("\"shard_index\":2"), 15, "\"shard_index\":5");
  try {
    results_from_json(text, "r.json");
    ADD_FAILURE() << "shard 5 of 5 accepted";
  } catch (const ResultsError& e) {
    EXPECT_STREQ(e.what(), "r.json: shard_index: 5 is not below shard_count 5");
  }
}

}  // namespace merging

}  // namespace
}  // namespace accucheck
