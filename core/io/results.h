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

#include "checking/verdict.h"
#include "numerics/format.h"

namespace accucheck {

class JsonWriter;
struct JudgedElement;

// One judged element as `replay --json` and accucheck.torch.watch write it (docs/case-format.md,
// "Replaying").
void write_element_json(JsonWriter& out, const JudgedElement& e);

// One judged element, kept (sampled) for reports.
struct ResultSample {
  std::string family;
  std::uint64_t n = 0;  // terms of the element
  double error = 0, bound = 0, ratio = 0, kappa = 0;
  double exact = 0;    // S rounded to a double (NaN when the file did not say)
  double abs_sum = 0;  // A = sum |x| rounded to a double (NaN when the file did not say)
  Verdict verdict = Verdict::ok;
  std::uint64_t key = 0;  // sample_key: which samples are kept
};

// Where a finding came from: the position of its case in the campaign's order (case number x
// streams + stream for check; the case's index for trace) and its class, so that the results of
// a campaign's shards merge into what one process would have found (merge_results).
struct FindingOrigin {
  std::uint64_t position = 0;
  Verdict verdict = Verdict::ok;
};

inline constexpr std::size_t kMaxSamples = 400;        // samples kept per backend
inline constexpr std::size_t kMaxFailureMessages = 5;  // backend-failure messages kept per backend

// The key that chooses the samples a campaign keeps: the kMaxSamples of smallest key (a bottom-k
// sample, uniform over the elements judged). A hash of where the element was judged: the case's
// position (FindingOrigin), the element, and the how-manieth judgement of that backend at that
// position it was (--maximize judges several); not of the order the cases were judged in, so the
// samples of shards merge into the samples of one process.
std::uint64_t sample_key(std::uint64_t position, std::uint64_t element, std::uint64_t repeat);

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
  // Parallel to findings and failures: where each came from (empty in files of earlier versions).
  std::vector<FindingOrigin> finding_origins;
  std::vector<std::uint64_t> failure_positions;
  std::vector<ResultSample> samples;  // in the order of sample_key
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
  // The share of the campaign's cases these results cover: the case numbers c with
  // c mod shard_count = shard_index (check --shard K/M); 0 of 1: all of them.
  std::uint64_t shard_index = 0, shard_count = 1;
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
// The results of a campaign's shards merged (check --jobs, check --shard K/M, accucheck merge):
// what one process running all their cases would have reported. Counts add up (cases per stream
// too), maxima stay maxima, seconds is the longest shard's; per backend and verdict class the
// findings_per_class findings of the earliest cases are kept, the first failures by position,
// the samples of smallest key; --maximize: the worst case of the shard that climbed highest and
// the earliest times to 0.9 and 0.99. `superseded` lists the case files the merged results no
// longer name (later findings of a class, the other shards' worst cases). The parts must be of
// one campaign: the same seed, tool and backends, distinct shards of the same count (a
// ResultsError names the source that differs). The shards K + mj (j < n) of n x m merge into
// shard K of m (all n x m of them: the whole campaign); any other set keeps the count, the lowest
// index, and a note naming the shards it holds.
struct MergedResults {
  CampaignResults results;
  std::vector<std::string> superseded;
};
MergedResults merge_results(const std::vector<CampaignResults>& parts, const std::vector<std::string>& sources,
                            std::size_t findings_per_class = 1);

// Reads what results_to_json wrote (and files of earlier versions without the optional fields);
// `source` names the file in errors. Throws ResultsError.
CampaignResults results_from_json(std::string_view json_text, const std::string& source);

}  // namespace accucheck
