// What the workload fuzz targets share: which backends they run, judging through the one
// verdict function (run_and_judge: judge.h, check_determinism: determinism.h), and the crash report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/choice.h"
#include "checking/determinism.h"
#include "checking/judge.h"
#include "checking/workload.h"

namespace accucheck::fuzz {

// The backends a target runs: every CPU backend of the registry, or those whose name matches
// one of the comma-separated globs of $ACCUCHECK_FUZZ_BACKENDS (read once; a glob after '-'
// excludes, e.g. 'cuda_*,-cuda_cub_gpu_to_gpu_*'), plus any added
// with add_extra_backend (the mutant builds: fuzzers/mutants/). Registry order.
const std::vector<const Backend*>& selected_backends();
// Those of them with this storage format that run this kind of workload.
const std::vector<const Backend*>& backends_for(Format f, WorkloadKind kind);
// Adds a backend that is not in the product registry (a planted-bug mutant). Call before the
// first selected_backends() (from LLVMFuzzerInitialize).
void add_extra_backend(Backend backend);

// Prints the report (target, what, the workload as a case file) to stderr and aborts, so
// that libFuzzer keeps the input as a crash file and the replay main fails.
[[noreturn]] void report_and_abort(const char* target, const std::string& what, const Workload& w,
                                   const Backend* backend = nullptr, const std::string& verdict = "");

// Runs every selected backend that supports the workload through the finding pipeline
// (findings.h find_violations: the stated bound on every element, then, with `every_property`,
// every further property that applies: correct rounding, determinism, scaling, negation: the
// definitions the RapidCheck suites and the CLI use). $ACCUCHECK_FUZZ_PROPERTY_EVERY=K (default
// 1) checks the further properties only on the workloads whose hash is 0 mod K (the stated
// bound always). The first finding is reported and aborts. With `cross_check_oracle`, the exact
// sums the verdicts use are first compared with the Boost.Multiprecision reference
// (oracle_finding), backends or not. Returns the outcomes, one per backend run, in the order of
// backends_for().
struct Judged {
  const Backend* backend;
  BackendOutcome outcome;
};
std::vector<Judged> judge_all(const char* target, const Workload& w, bool every_property,
                              bool cross_check_oracle = false);

}  // namespace accucheck::fuzz
