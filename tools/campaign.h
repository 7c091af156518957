// The campaign behind `accucheck check` (generated workloads) and `accucheck trace` (workloads
// read from a training run's gradients): every workload is run on every selected backend of
// its storage format, judged element by element, re-checked for determinism on a sample, and
// every violation is shrunk and written at once as a replayable case file.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "accucheck/backend.h"
#include "accucheck/check.h"
#include "accucheck/families.h"
#include "accucheck/findings.h"
#include "accucheck/verdict.h"

namespace accucheck::cli {

struct CampaignOptions {
  std::vector<std::string> backend_globs;
  std::optional<Format> format;
  std::vector<std::string> families;
  std::optional<std::uint64_t> cases;  // cases per format; else run for `seconds`
  double seconds = 60;
  std::uint64_t seed = 0;
  std::string findings_dir = "findings";
  std::size_t findings_per_class = 1;  // case files written per backend and verdict class
  GenerationLimits limits;
  bool quiet = false;
  bool generate = true;  // false: workloads come from evaluate() (trace), not from the families
  std::string tool = "accucheck check";
  std::string found_by;  // recorded in case files; default "accucheck check --seed S"
};

// One judged element, kept (sampled) for reports.
struct Sample {
  std::string family;
  std::size_t n;
  double error, bound, ratio, kappa;
  double exact;    // S rounded to a double
  double abs_sum;  // A = sum |x| rounded to a double
  Verdict verdict;
};

struct BackendStats {
  const Backend* backend = nullptr;
  std::uint64_t cases = 0, addends = 0, determinism_checks = 0;
  double max_ratio = 0;
  std::int64_t max_ulps = 0;
  std::map<Verdict, std::uint64_t> verdicts, violations;
  std::map<Verdict, std::size_t> findings_by_class;
  std::vector<std::string> findings;
  std::vector<std::string> failures;  // messages of backend failures (first few)
  static constexpr std::size_t kMaxSamples = 400;
  std::vector<Sample> samples;
  std::uint64_t samples_seen = 0;

  void add_sample(const Sample& s, ChoiceStream& stream);
  std::string violation_text() const;
};

class Campaign {
 public:
  explicit Campaign(CampaignOptions options);
  // Generates and judges cases until the case count or the time is reached.
  void run();
  // Judges one workload on every selected backend of its storage format that runs its kind.
  // `family` labels its samples; `case_id` names its findings (and is the case's seed when
  // `has_seed`). The properties beyond the stated bound (determinism, correct rounding,
  // scaling, negation) are checked when `check_properties_now`. Returns the number of backends
  // that ran it.
  std::size_t evaluate(const Workload& w, const std::string& family, std::uint64_t case_id, bool has_seed,
                       bool check_properties_now, ChoiceStream& sampling);
  // Keeps only the backends for which `keep` holds (trace: those of the trace's formats).
  void retain(const std::function<bool(const Backend&)>& keep);
  bool empty() const { return stats_.empty(); }
  void set_cases_run(std::uint64_t cases, double seconds) {
    cases_run_ = cases;
    elapsed_seconds_ = seconds;
  }

  void print_table(std::FILE* out) const;
  std::string json() const;
  std::string junit() const;
  std::size_t violations() const;
  const std::vector<BackendStats>& stats() const { return stats_; }
  // Ends an open progress line (before other output on stderr).
  void end_progress_line();

 private:
  void run_case(Format f, WorkloadKind kind, std::uint64_t case_number);
  const Family* pick_family(ChoiceStream& s, WorkloadKind kind) const;
  // Minimizes and writes a finding (the first per backend and verdict class).
  void record_finding(BackendStats& stats, const Workload& w, const Finding& finding, std::uint64_t case_id, bool has_seed);

  // A time budget ends at deadline_: checked between backends, and plugin calls end by it
  // (PluginCallDeadline), so a slow or hanging plugin cannot stretch the budget.
  bool budget_spent() const;
  // The progress line (a terminal: every 0.2 s; otherwise every 5 s), between backends too.
  void report_progress();

  CampaignOptions options_;
  std::vector<BackendStats> stats_;
  std::set<std::pair<Format, WorkloadKind>> streams_;  // what to generate: each storage format x workload kind
  std::vector<const Family*> family_list_;
  std::uint64_t cases_run_ = 0;
  double elapsed_seconds_ = 0;
  bool progress_line_open_ = false;
  std::chrono::steady_clock::time_point start_{}, last_report_{};
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::string budget_note_;  // what the end of the budget interrupted, for the summary
};

// Writes the --json, --junit and --html outputs of a finished campaign (each atomically).
void write_campaign_outputs(const Campaign& campaign, const std::optional<std::string>& json_path,
                            const std::optional<std::string>& junit_path, const std::optional<std::string>& html_path);

// XML text with &, <, >, " and ' escaped (and control characters other than tab and newline
// dropped, which XML 1.0 cannot hold).
std::string xml_escape(std::string_view text);

}  // namespace accucheck::cli
