// The campaign behind `accucheck check`.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "accucheck/backend.h"
#include "accucheck/families.h"
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
};

// One judged element, kept (sampled) for reports.
struct Sample {
  std::string family;
  std::size_t n;
  double error, bound, ratio, kappa;
  Verdict verdict;
};

struct BackendStats {
  const Backend* backend;
  std::uint64_t cases = 0, addends = 0, determinism_checks = 0;
  double max_ratio = 0;
  std::int64_t max_ulps = 0;
  std::map<Verdict, std::uint64_t> verdicts, violations;
  std::map<Verdict, std::size_t> findings_by_class;
  std::vector<std::string> findings;
  static constexpr std::size_t kMaxSamples = 400;
  std::vector<Sample> samples;
  std::uint64_t samples_seen = 0;

  void add_sample(const Sample& s, ChoiceStream& stream);
  std::string violation_text() const;
};

class Campaign {
 public:
  explicit Campaign(CampaignOptions options);
  void run();
  void print_table(std::FILE* out) const;
  std::string json() const;
  std::string junit() const;
  std::size_t violations() const;

 private:
  void run_case(Format f, WorkloadKind kind, std::uint64_t case_number);
  const Family* pick_family(ChoiceStream& s, WorkloadKind kind) const;
  void record_finding(BackendStats& stats, const Workload& w, Verdict verdict, const std::string& detail,
                      std::uint64_t case_seed, bool shrink);

  CampaignOptions options_;
  std::vector<BackendStats> stats_;
  std::set<std::pair<Format, WorkloadKind>> streams_;  // what to generate: each storage format x workload kind
  std::vector<const Family*> family_list_;
  std::uint64_t cases_run_ = 0;
  double elapsed_seconds_ = 0;
  bool progress_line_open_ = false;
};

}  // namespace accucheck::cli
