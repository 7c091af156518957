// The results of a campaign (`check`, `trace`): one schema, written by `--json` and read back
// by `report` through the same types. docs/report.md lists the fields.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "accucheck/format.h"
#include "accucheck/verdict.h"

namespace accucheck {

// One judged element, kept (sampled) for reports.
struct ResultSample {
  std::string family;
  std::uint64_t n = 0;                       // terms of the element
  double error = 0, bound = 0, ratio = 0, kappa = 0;
  double exact = 0;    // S rounded to a double (NaN when the file did not say)
  double abs_sum = 0;  // A = sum |x| rounded to a double (NaN when the file did not say)
  Verdict verdict = Verdict::ok;
};

struct BackendResults {
  std::string name, device, bound, determinism, origin;
  Format storage = Format::f32;
  std::string accumulation;
  std::uint64_t cases = 0, addends = 0, determinism_checks = 0;
  double max_ratio = 0;
  std::int64_t max_ulps = 0;
  std::map<Verdict, std::uint64_t> verdicts, violations;  // elements per verdict; violations per class
  std::vector<std::string> findings;                      // case files written
  std::vector<std::string> failures;                      // messages of backend failures (the first few)
  std::vector<ResultSample> samples;
  // --maximize (campaign.h): seconds from the start until max_ratio first reached 0.9 and 0.99
  // (absent: not reached, or not maximizing), and the case file of the worst case.
  std::optional<double> seconds_to_ratio_0_9, seconds_to_ratio_0_99;
  std::string worst_case;

  std::uint64_t violation_count() const;
  // "0", or "bound-exceeded 3, overflow 1".
  std::string violation_text() const;
};

struct CampaignResults {
  std::string tool = "accucheck check";
  std::uint64_t seed = 0, cases_per_stream = 0;
  double seconds = 0;
  std::vector<std::string> notes;  // plugin warnings, the end of the time budget
  std::vector<BackendResults> backends;

  std::uint64_t violation_count() const;
};

// A results file that cannot be read: "<source>: backends[2].max_ulps: must be an integer ...".
struct ResultsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int kResultsFormatVersion = 1;

std::string results_to_json(const CampaignResults& results);

// The verdict table of a campaign (check, trace, the Python API): one line per backend, the
// backend failures, the notes and the summary line. `generated`: cases per format x workload
// stream and the seed (check); else a count of cases (trace).
std::string campaign_table(const CampaignResults& results, const std::string& findings_dir, bool generated);

// An ulps count for a table: exact below 10^7, else in e-notation.
std::string ulps_text(std::int64_t ulps);
// Reads what results_to_json wrote (and files of earlier versions without the optional fields);
// `source` names the file in errors. Throws ResultsError.
CampaignResults results_from_json(std::string_view json_text, const std::string& source);

}  // namespace accucheck
