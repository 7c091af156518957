// The HTML report of `accucheck report` and `check --html`: one self-contained file (inline CSS
// and SVG, no scripts, nothing fetched) built from the campaign JSON that `check --json` and
// `trace --json` write. docs/report.md describes what each plot shows.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/results.h"

namespace accucheck::cli {

struct ReportSample {
  std::string family;
  double n = 0, error = 0, bound = 0, ratio = 0, kappa = 0, exact = 0, abs_sum = 0;
  std::string verdict;
  bool violation = false;
};

struct ReportBackend {
  std::string name, device, storage, accumulation, bound, determinism, origin;
  int precision = 0;  // of the storage format, with the implicit bit
  std::uint64_t cases = 0, addends = 0, determinism_checks = 0;
  double max_ratio = 0;
  std::int64_t max_ulps = 0;
  std::map<std::string, std::uint64_t> violations;
  std::vector<std::string> findings, failures;
  std::vector<ReportSample> samples;
  // --maximize: seconds to 0.9 and 0.99 of the bound (the first input's that reached it), the worst case.
  std::optional<double> seconds_to_ratio_0_9, seconds_to_ratio_0_99;
  std::string worst_case;
};

struct ReportInput {
  std::string source, tool;
  std::uint64_t seed = 0, cases = 0, violations = 0;
  double seconds = 0;
};

struct ReportData {
  std::vector<ReportInput> inputs;
  std::vector<ReportBackend> backends;  // merged by name over the inputs, in first-seen order
};

// Adds one results file's JSON (read through results_from_json, results.h); a malformed file is
// a UsageError naming `source` and the field.
void add_results(ReportData& data, std::string_view json_text, const std::string& source);
// Adds one campaign's results (`check --html` reports the campaign it ran).
void add_results(ReportData& data, const CampaignResults& results, const std::string& source);
// The report as one HTML document.
std::string render_report(const ReportData& data);

}  // namespace accucheck::cli
