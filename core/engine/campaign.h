// The campaign engine behind `accucheck check` (generated workloads) and `accucheck trace`
// (workloads read from a training run's gradients), usable from any front end: every workload is
// run on every selected backend of its storage format through the finding pipeline
// (findings.h: the stated bound on every element, the further properties on a sample), and every
// finding is minimized and written at once as a replayable case file, so a campaign killed at
// any moment keeps what it found. What it measured is a CampaignResults (results.h), the one
// schema its outputs are written from and `report` reads.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/families.h"
#include "checking/judge.h"
#include "engine/findings.h"
#include "io/results.h"

namespace accucheck {

// Asks every running campaign of this process to stop after the case it is judging, as if its
// budget were spent: its results and findings are complete up to there. Async-signal-safe (a
// SIGINT or SIGTERM handler calls it).
void request_campaign_stop() noexcept;
bool campaign_stop_requested() noexcept;
// The note of a campaign's results when it stopped so.
inline constexpr const char* kStoppedBySignalNote =
    "stopped early (SIGINT or SIGTERM): the results cover the cases judged before";

// A campaign that cannot start: a glob that matches nothing, no backend of the format, ...
struct CampaignError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct CampaignOptions {
  std::vector<std::string> backend_globs;
  // When not empty: exactly these backends instead of the registry's (characterize's copies
  // stating the derived bounds); backend_globs is then ignored.
  std::vector<Backend> backends;
  std::optional<Format> format;
  std::vector<std::string> families;
  std::optional<std::uint64_t> cases;  // cases per format; else run for `seconds`
  double seconds = 60;
  std::uint64_t seed = 0;
  std::string findings_dir = "findings";
  std::size_t findings_per_class = 1;  // case files written per backend and verdict class
  GenerationLimits limits;
  bool quiet = false;                    // no progress lines (FINDING lines are always written to stderr)
  bool stop_at_first_violation = false;  // end the campaign after the case that violated first
  // Climb toward each backend's bound (climb.h): between generated cases, each backend's worst
  // case so far is mutated and kept when its error/bound does not fall; the results record when
  // 0.9 and 0.99 of the bound were first reached, and the worst case is written as a case file
  // (<findings>/worst/<backend>.json) whenever it passes 0.5, 0.9, 0.99 or 1, and at the end.
  bool maximize = false;
  std::size_t climb_steps_per_case = 4;  // mutations per backend after each generated case
  // ... and as many of a challenger, a climb restarted from climb_start every this many of its
  // mutations; it replaces the worst case when it climbs above it.
  std::size_t climb_restart_after = 2000;
  // This campaign is shard `shard_index` of `shard_count`: it runs the case numbers c with
  // c mod shard_count == shard_index (each case is generated from the seed and its number alone),
  // so the shards of one seed together run the cases of one campaign, and merge_results
  // (results.h) makes their results those of one process (check --jobs, --shard).
  std::uint64_t shard_index = 0, shard_count = 1;
  // Called about once a second while generating (also when quiet): the cases per stream judged
  // so far and the violations (check --jobs: a worker tells its parent).
  std::function<void(std::uint64_t cases, std::size_t violations)> on_progress;
  bool generate = true;  // false: workloads come from evaluate() (trace), not from the families
  std::string tool = "accucheck check";
  std::string found_by;  // recorded in case files; default "accucheck check --seed S"
};

// --maximize: where a campaign with these options writes a backend's worst case,
// <findings>/worst/<backend>.json, or <backend>.shard-K-of-M.json for shard K of M (so that the
// shards of one campaign do not overwrite each other's).
std::string worst_case_file(const CampaignOptions& options, const std::string& backend);

// The case numbers below options.cases that shard_index of shard_count runs (1 at least: what
// a progress line divides by).
std::uint64_t cases_in_shard(const CampaignOptions& options);

struct BackendStats {
  const Backend* backend = nullptr;
  BackendResults results;  // what the results say of it
  std::map<Verdict, std::size_t> findings_by_class;
  // The kMaxSamples samples of smallest sample_key (results.h), as a max-heap on the key.
  std::vector<std::pair<std::uint64_t, ResultSample>> sample_heap;
  // The position it was last judged at and how many times (sample_key's `repeat`).
  std::uint64_t last_position = UINT64_MAX, judged_at_position = 0;

  void add_sample(const ResultSample& s);
  // results with the samples, in key order.
  BackendResults results_with_samples() const;

  // --maximize: the worst case so far (one element where the workload allows) and its ratio.
  std::optional<Workload> worst;
  double worst_ratio = -1;
  double worst_written_ratio = -1;
  std::optional<Workload> challenger;  // the restarted climb's current case
  double challenger_ratio = -1;
  std::size_t challenger_mutations = 0;
};

class Campaign {
 public:
  // Throws CampaignError.
  explicit Campaign(CampaignOptions options);
  // Generates and judges cases until the case count or the time is reached.
  void run();
  // Judges one workload on every selected backend of its storage format that runs its kind.
  // `family` labels its samples; `case_id` names its findings (and is the case's seed when
  // `has_seed`). The properties beyond the stated bound (determinism, correct rounding,
  // scaling, negation) are checked when `check_properties_now`. Returns the number of backends
  // that ran it.
  std::size_t evaluate(const Workload& w, const std::string& family, std::uint64_t case_id, bool has_seed,
                       bool check_properties_now);
  // Keeps only the backends for which `keep` holds (trace: those of the trace's formats).
  void retain(const std::function<bool(const Backend&)>& keep);
  bool empty() const { return stats_.empty(); }
  // "accucheck check: 84 backends, 11 format x workload streams, seed S, 60 s": what run() prints
  // first (check --jobs's parent adds its job count).
  std::string start_line() const;
  void set_cases_run(std::uint64_t cases, double seconds) {
    cases_run_ = cases;
    elapsed_seconds_ = seconds;
  }

  // What it measured so far.
  CampaignResults results() const;
  std::size_t violations() const;
  const std::vector<BackendStats>& stats() const { return stats_; }
  const CampaignOptions& options() const { return options_; }
  // Ends an open progress line (before other output on stderr).
  void end_progress_line();
  // worst_case_file for this campaign's options.
  std::string worst_case_path(const Backend& backend) const;

 private:
  void run_case(Format f, WorkloadKind kind, std::uint64_t case_number, std::size_t stream_index);
  // The position of the case being judged (FindingOrigin, results.h): case number x streams +
  // stream when generating; the count of evaluate() calls before it otherwise.
  std::uint64_t position_ = 0, evaluated_ = 0;
  // Judges w on one backend and accounts for it (cases, addends, verdicts, samples, findings,
  // the climb's worst case); returns the largest error/bound over w's elements and where.
  std::pair<double, std::size_t> judge_on(BackendStats& stats, const Workload& w, const std::vector<ExactSum>& exact,
                                          std::uint64_t addends, const std::string& family, const FindingPolicy& policy,
                                          std::uint64_t case_id, bool has_seed);
  // --maximize: the seeds (climb.h) on every backend that runs dense workloads, then, per
  // generated case, climb_steps_per_case mutations of each backend's worst case.
  void seed_climb();
  void climb(std::uint64_t case_number);
  // Judges a climb candidate (stated bound only) and keeps it as the worst case if it is one.
  // Returns its error/bound.
  double try_for_climb(BackendStats& stats, const Workload& candidate);
  void consider_for_climb(BackendStats& stats, const Workload& w, double ratio, std::size_t element);
  void write_worst_case(BackendStats& stats);
  const Family* pick_family(ChoiceStream& s, WorkloadKind kind) const;
  // Minimizes and writes a finding (the first per backend and verdict class).
  void record_finding(BackendStats& stats, const Workload& w, const Finding& finding, std::uint64_t case_id,
                      bool has_seed);
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
  std::chrono::steady_clock::time_point start_{}, last_report_{}, last_progress_call_{};
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::string budget_note_;  // what the end of the budget interrupted, for the summary
};

}  // namespace accucheck
