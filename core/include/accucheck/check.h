// Running a backend on a workload and judging every element: the one path that properties,
// fuzzers and the CLI share, with determinism checks, shrinking and readable reports.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "accucheck/backend.h"
#include "accucheck/choice.h"
#include "accucheck/verdict.h"

namespace accucheck {

// Exact summaries of every element (computed once per workload, shared by all backends).
std::vector<ExactSum> exact_sums(const Workload& w);

// The fast exact sums (exact_sums, fast_exact.h) against the Boost.Multiprecision reference
// (boost_exact_sum) for every element, field by field: the first disagreement described, or ""
// when all agree. The property suite and the workload fuzzers call it on every case.
std::string exact_sums_disagreement(const Workload& w, const std::vector<ExactSum>& fast);

struct BackendOutcome {
  std::vector<ElementVerdict> elements;
  Verdict worst = Verdict::ok;  // the most severe verdict over the elements
  std::size_t worst_element = 0;
  double max_ratio = 0;          // max error/bound over elements with a finite, non-vacuous bound
  std::int64_t max_abs_ulps = 0; // max |ulps from RNE(S)|
  std::string failure;           // the backend itself failed (threw): its message; worst is backend_failed
  bool violated() const { return is_violation(worst); }
};

// Severity used to pick the worst verdict: violations above everything else.
int severity(Verdict v);

BackendOutcome run_and_judge(const Backend& backend, const Workload& w, const std::vector<ExactSum>& exact,
                             const RunOptions& options = {});
inline BackendOutcome run_and_judge(const Backend& backend, const Workload& w) {
  return run_and_judge(backend, w, exact_sums(w));
}

// What the backend's determinism class promises, checked by re-running: bitwise-deterministic
// backends must give identical bits across reruns and thread counts; order-independent ones
// also under permutations of the addends (each dense element's column, the batch of a
// product, the pairs of a sparse workload) and, for dense, -0 padding (another split of the
// same addends). Returns "" when the promise holds, else what differed. `first_run`: the
// backend's result on w with default RunOptions when the caller has it (run_and_judge's run),
// compared with the reruns instead of a separate reference run.
std::string check_determinism(const Backend& backend, const Workload& w, ChoiceStream& s,
                              const std::vector<double>* first_run = nullptr);

// Shrinks a failing workload while `still_fails` holds: one element, fewer steps (and batch
// columns, pairs), simpler values (0, fewer significant bits). At most `budget` calls.
Workload shrink_workload(Workload w, const std::function<bool(const Workload&)>& still_fails, std::size_t budget = 3000);

// A readable report of a violation: backend, bound, element, exact, computed, RNE(S), error,
// bound value, ratio, ulps, kappa, verdict.
std::string describe_violation(const Backend& backend, const Workload& w, const BackendOutcome& outcome);
// The shape of a workload in words: "dense f32, 2 elements x 65 addends [exact_ties]".
std::string describe_shape(const Workload& w);

// Bits of a result value, NaNs compared as equal.
bool same_result_bits(double a, double b);

}  // namespace accucheck
