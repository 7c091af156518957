// Running a backend on a workload and judging every element: the one path that properties,
// fuzzers and the CLI share, and readable reports of what it found (determinism.h re-runs,
// shrink.h shrinks).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/choice.h"
#include "checking/verdict.h"

namespace accucheck {

// Exact summaries of every element (computed once per workload, shared by all backends).
// About 600 bytes each (two 2240-bit integers): wide workloads take them a block at a time
// through ExactSumRanges instead.
std::vector<ExactSum> exact_sums(const Workload& w);

// The exact summaries of a range of a workload's elements at a time, so that a wide workload
// is judged with memory O(range); exact_sums(w) is sums(0, element_count(w)). Keeps a
// reference to w. A sparse workload's pairs are grouped by row once here (8 bytes per row and
// 4 per pair).
class ExactSumRanges {
 public:
  explicit ExactSumRanges(const Workload& w);
  explicit ExactSumRanges(Workload&&) = delete;  // it would keep a reference to a temporary
  // Elements [begin, end) into `out` (replacing what it held).
  void sums(std::size_t begin, std::size_t end, std::vector<ExactSum>& out) const;

 private:
  const Workload& w_;
  std::vector<std::size_t> row_start_;  // sparse: row r's pairs are pairs_by_row_[row_start_[r] .. row_start_[r+1])
  std::vector<std::uint32_t> pairs_by_row_;  // pair indices, in pair order within a row
};

// One element's exact summary (its terms gathered and summed; O(pairs) for a sparse workload).
ExactSum exact_sum_of(const Workload& w, std::size_t element);

// The fast exact sums (exact_sums, fast_exact.h) against the Boost.Multiprecision reference
// (boost_exact_sum) for every element, field by field: the first disagreement described, or ""
// when all agree. The property suite and the workload fuzzers call it on every case.
std::string exact_sums_disagreement(const Workload& w, const std::vector<ExactSum>& fast);

struct BackendOutcome {
  std::vector<ElementVerdict> elements;
  Verdict worst = Verdict::ok;  // the most severe verdict over the elements
  std::size_t worst_element = 0;
  double max_ratio = 0;           // max error/bound over elements with a finite, non-vacuous bound
  std::int64_t max_abs_ulps = 0;  // max |ulps from RNE(S)|
  std::string failure;            // the backend itself failed (threw): its message; worst is backend_failed
  FailureKind failure_kind = FailureKind::error;  // how, when `failure` is set (BackendFailure::kind)
  bool violated() const { return is_violation(worst); }
};

// The backend's result on w (element_count(w) values); its exceptions pass through.
std::vector<double> run_backend(const Backend& backend, const Workload& w, const RunOptions& options = {});

// Severity used to pick the worst verdict: violations above everything else.
int severity(Verdict v);

BackendOutcome run_and_judge(const Backend& backend, const Workload& w, const std::vector<ExactSum>& exact,
                             const RunOptions& options = {});
inline BackendOutcome run_and_judge(const Backend& backend, const Workload& w) {
  return run_and_judge(backend, w, exact_sums(w));
}

// One judged element of a summary, with S exactly when the summary reports it.
struct JudgedElement {
  std::size_t index = 0;
  ElementVerdict verdict;
  std::string exact_hex;  // fixed_hex(S) for a finite S, else ""
};

inline constexpr std::size_t kVerdictCount = static_cast<std::size_t>(Verdict::backend_failed) + 1;

// run_and_judge for wide workloads: the backend runs once and its result is judged
// kJudgeBlock elements at a time (exact sums of a block, judged, folded in), so the memory per
// element beyond the workload and the result buffer is O(1) instead of an ExactSum and an
// ElementVerdict each (about 700 bytes).
struct OutcomeSummary {
  BackendOutcome outcome;  // worst, worst_element, max_ratio, max_abs_ulps, failure; `elements` stays empty
  std::array<std::uint64_t, kVerdictCount> counts{};  // elements per verdict, indexed by the Verdict's value
  // At most `keep` elements: the most severe verdict first, then the largest err/bound, then the lowest index.
  std::vector<JudgedElement> most_severe;
  std::vector<double> result;  // the backend's result (default RunOptions): the properties compare against it
};
inline constexpr std::size_t kJudgeBlock = 4096;

// `each`, when given, sees every element in index order (replay --all) as it is judged.
OutcomeSummary run_and_summarize(const Backend& backend, const Workload& w, std::size_t keep,
                                 const std::function<void(const JudgedElement&)>& each = {});
// Whether element (a, index_a) goes before (b, index_b) in OutcomeSummary::most_severe.
bool more_severe(const ElementVerdict& a, std::size_t index_a, const ElementVerdict& b, std::size_t index_b);

// A readable report of a violation: backend, bound, element, exact, computed, RNE(S), error,
// bound value, ratio, ulps, kappa, verdict. When the double shown as `exact` is not S itself it
// carries a trailing `~` and S follows exactly (fixed_hex).
std::string describe_violation(const Backend& backend, const Workload& w, const BackendOutcome& outcome);
std::string describe_violation(const Backend& backend, const Workload& w, const OutcomeSummary& summary);
// The shape of a workload in words: "dense f32, 2 elements x 65 addends [exact_ties]".
std::string describe_shape(const Workload& w);

// Bits of a result value, NaNs compared as equal.
bool same_result_bits(double a, double b);

}  // namespace accucheck
