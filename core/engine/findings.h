// The one finding pipeline: "is this result wrong", its smallest reproduction, its case file.
//
// Every engine calls these and nothing else decides what is wrong: the property suite
// (properties/harness.cpp), every fuzz target (fuzzers/common/fuzz_check.cpp), `check` and
// `trace` (the campaign, campaign.h), `replay`:
//
//   generate (or read) a workload
//     -> find_violations(backend, workload, exact sums, policy)   the stated bound, then every
//                                                                   property that applies
//     -> minimize_finding(backend, workload, finding)              one minimizer
//     -> write_finding(directory, backend, finding, minimal, ...)  one case writer
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/judge.h"
#include "checking/properties.h"
#include "checking/shrink.h"

namespace accucheck {

// One thing wrong with a backend's result on a workload.
struct Finding {
  Property property = Property::stated_bound;  // which promise broke (stated_bound: the verdicts)
  Verdict verdict = Verdict::ok;               // the worst verdict, nondeterministic, metamorphic-mismatch, ...
  std::string label;   // the case files' `verdict`: a verdict name, "scaling-mismatch", "negation-mismatch",
                       // "oracle-disagreement" (the exact oracle itself), "invalid-workload" (the generator)
  std::string detail;  // the readable report
  std::optional<std::size_t> element;  // the element it shows on, when one does (shrinking starts there)
  std::optional<FailureKind> failure;  // the backend failed instead of returning (typed, not its message)
  std::string backend_output;          // what the backend wrote to its output in that run (plugins)
};

// Which checks find_violations makes.
struct FindingPolicy {
  // The properties beyond the stated bound (correct rounding, determinism, scaling, negation:
  // each re-runs the backend): every one that applies, or none (a campaign samples them).
  bool further_properties = true;
  // Only this property (the property suite checks one per test; special_values is the stated
  // bound on the special-value workloads it generates).
  std::optional<Property> only;
  // Before anything else, the fast exact sums are compared with the Boost reference
  // (exact_sums_disagreement): a disagreement is a finding labelled "oracle-disagreement".
  bool cross_check_oracle = false;
};

// The properties checked beyond the stated bound for a backend: those of all_properties that
// apply to it (property_applies), other than stated_bound and special_values (the stated bound
// again, on other workloads). The one list.
const std::vector<Property>& further_properties(const Backend& backend);

struct Judgement {
  BackendOutcome outcome;         // the stated bound's run, element by element
  std::vector<Finding> findings;  // the oracle's, the stated bound's, then the further properties', in that order
  bool violated() const { return !findings.empty(); }
};

// Runs the backend on w, judges every element against the stated bound (run_and_judge with the
// given exact sums), then checks the further properties the policy asks for against that run.
Judgement find_violations(const Backend& backend, const Workload& w, const std::vector<ExactSum>& exact,
                          const FindingPolicy& policy = {});

// The exact oracle itself: the fast exact sums the verdicts use against the Boost reference
// (exact_sums_disagreement), labelled "oracle-disagreement"; nullopt when they agree. Once per
// workload, before any backend (find_violations makes it with FindingPolicy::cross_check_oracle).
std::optional<Finding> oracle_finding(const Workload& w, const std::vector<ExactSum>& exact);

// The stated bound's finding of an outcome (nullopt when it holds), as find_violations makes it;
// `detail` is the report (describe_violation). For callers that judge otherwise (replay of wide
// workloads block by block: run_and_summarize).
std::optional<Finding> stated_bound_finding(const Backend& backend, const BackendOutcome& outcome, std::string detail);
// The further properties' findings against `result` (the backend's result on w under default
// RunOptions), without exact sums for all elements (determinism and negation need none, scaling
// takes them a block at a time): memory proportional to the workload.
std::vector<Finding> further_findings(const Backend& backend, const Workload& w, const std::vector<double>& result,
                                      const std::vector<ExactSum>* exact = nullptr);

// Whether `candidate` still shows `finding` (the same property and label) under the policy
// that found it (only that property checked).
bool still_shows(const Backend& backend, const Workload& candidate, const Finding& finding,
                 bool cross_check_oracle = false);

// The one minimizer: the smallest workload found that still shows the finding, starting from
// its element alone, then shrink_workload (fewer elements, fewer steps, simpler values). A
// backend that timed out is not re-run to shrink (the workload is returned as it is). At most
// `budget` re-runs; a re-run that throws PluginDeadlineReached (a campaign's time is up)
// counts as not showing it.
Workload minimize_finding(const Backend& backend, const Workload& w, const Finding& finding, std::size_t budget = 3000,
                          bool cross_check_oracle = false);

// Where a case came from, for its file.
struct Provenance {
  std::string found_by;               // "accucheck check --seed 7", "property scaling (RC_PARAMS=...)"
  std::optional<std::uint64_t> seed;  // a seed that regenerates it
};

// The one case writer: the finding on its minimal workload as a case file (backend, bound,
// verdict = label, note = the finding's report and the backend's output), written atomically
// to <directory>/<backend>_<label>_<hash>.json (the hash of the file's content: equal
// findings share a file, different ones never collide). Creates the directory. Returns the path.
std::string write_finding(const std::string& directory, const Backend& backend, const Finding& finding,
                          const Workload& minimal, const Provenance& provenance);

}  // namespace accucheck
