#include "checking/judge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

#include "numerics/column_exact.h"
#include "numerics/fast_exact.h"

namespace accucheck {

ExactSumRanges::ExactSumRanges(const Workload& w) : w_(w) {
  const auto* s = std::get_if<SparseWorkload>(&w);
  if (!s) return;
  if (s->pairs() > UINT32_MAX) throw std::length_error("a sparse workload of more than 2^32 pairs");
  // Counting sort of the pairs by row: row_start_[r + 1] counts row r's pairs, then holds
  // where they start; placing them advances each start to the next row's, undone by a shift.
  row_start_.assign(s->rows + 1, 0);
  for (std::uint32_t r : s->row_index) ++row_start_[r + 1];
  for (std::size_t r = 0; r < s->rows; ++r) row_start_[r + 1] += row_start_[r];
  pairs_by_row_.resize(s->pairs());
  for (std::size_t q = 0; q < s->pairs(); ++q)
    pairs_by_row_[row_start_[s->row_index[q]]++] = static_cast<std::uint32_t>(q);
  for (std::size_t r = s->rows; r > 0; --r) row_start_[r] = row_start_[r - 1];
  row_start_[0] = 0;
}

void ExactSumRanges::sums(std::size_t begin, std::size_t end, std::vector<ExactSum>& out) const {
  if (auto* d = std::get_if<DenseWorkload>(&w_)) {
    exact_elements(*d, begin, end, out);
    return;
  }
  out.clear();
  out.reserve(end - begin);
  std::vector<double> terms;
  if (auto* s = std::get_if<SparseWorkload>(&w_)) {
    // Element (r, d) sums the initial value and column d of every pair of row r, in order.
    for (std::size_t e = begin; e < end; ++e) {
      const std::size_t r = e / s->dim, d = e % s->dim;
      terms.clear();
      terms.push_back(s->initial[e]);
      for (std::size_t k = row_start_[r]; k < row_start_[r + 1]; ++k)
        terms.push_back(s->values[pairs_by_row_[k] * s->dim + d]);
      out.push_back(exact_sum_of_values(terms, s->format));
    }
    return;
  }
  for (std::size_t e = begin; e < end; ++e) {
    element_terms(w_, e, terms);
    out.push_back(fast_exact_sum(terms));
  }
}

std::vector<ExactSum> exact_sums(const Workload& w) {
  std::vector<ExactSum> sums;
  ExactSumRanges(w).sums(0, element_count(w), sums);
  return sums;
}

ExactSum exact_sum_of(const Workload& w, std::size_t element) {
  std::vector<double> terms;
  element_terms(w, element, terms);
  return fast_exact_sum(terms);
}

std::string exact_sums_disagreement(const Workload& w, const std::vector<ExactSum>& fast) {
  if (fast.size() != element_count(w))
    return "exact_sums gave " + std::to_string(fast.size()) + " summaries for " + std::to_string(element_count(w)) +
           " elements";
  std::vector<double> terms;
  for (std::size_t e = 0; e < fast.size(); ++e) {
    element_terms(w, e, terms);
    const ExactSum slow = boost_exact_sum(terms);
    const ExactSum& f = fast[e];
    const char* field = slow.special != f.special                       ? "special"
                        : slow.sum != f.sum                             ? "S"
                        : slow.abs_sum != f.abs_sum                     ? "A"
                        : slow.count != f.count                         ? "n"
                        : slow.all_negative_zero != f.all_negative_zero ? "all_negative_zero"
                        : slow.max_abs != f.max_abs                     ? "max_abs"
                                                                        : nullptr;
    if (field)
      return "element " + std::to_string(e) + ": the fast exact accumulator and boost_exact_sum differ in " + field +
             " (fast S " + fixed_hex(f.sum) + ", A " + fixed_hex(f.abs_sum) + "; Boost S " + fixed_hex(slow.sum) +
             ", A " + fixed_hex(slow.abs_sum) + ")";
  }
  return "";
}

int severity(Verdict v) {
  switch (v) {
    case Verdict::ok: return 0;
    case Verdict::bound_vacuous: return 1;
    case Verdict::precondition_not_met: return 2;
    default: return 10 + static_cast<int>(v);
  }
}

bool same_result_bits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

std::vector<double> run_backend(const Backend& backend, const Workload& w, const RunOptions& options) {
  std::vector<double> result(element_count(w), 0.0);
  backend.run(w, result, options);
  return result;
}

namespace {

// Folds element j's verdict into the outcome's worst verdict, max err/bound and max ulps.
inline void fold_verdict(BackendOutcome& outcome, std::size_t j, const ElementVerdict& v) {
  if (j == 0 || severity(v.verdict) > severity(outcome.worst)) {
    outcome.worst = v.verdict;
    outcome.worst_element = j;
  }
  if (std::isfinite(v.ratio) && std::isfinite(v.bound) && !v.vacuous && v.precondition_met)
    outcome.max_ratio = std::max(outcome.max_ratio, v.ratio);
  outcome.max_abs_ulps = std::max(outcome.max_abs_ulps, v.ulps < 0 ? -v.ulps : v.ulps);
}

// Runs the backend into `result`; an exception it throws becomes the outcome's failure
// (backend_failed) and false. std::bad_alloc is no backend's failure: accucheck itself is out
// of memory, and main reports it.
bool run_recording_failure(const Backend& backend, const Workload& w, const RunOptions& options,
                           std::vector<double>& result, BackendOutcome& outcome) {
  try {
    result = run_backend(backend, w, options);
    return true;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const BackendFailure& e) {
    outcome.failure = e.what();
    outcome.failure_kind = e.kind;
    outcome.worst = Verdict::backend_failed;
    return false;
  } catch (const std::exception& e) {
    outcome.failure = e.what();
    outcome.failure_kind = FailureKind::error;
    outcome.worst = Verdict::backend_failed;
    return false;
  }
}

std::string exact_hex_of(const ExactSum& e) { return e.special == Special::none ? fixed_hex(e.sum) : ""; }

}  // namespace

BackendOutcome run_and_judge(const Backend& backend, const Workload& w, const std::vector<ExactSum>& exact,
                             const RunOptions& options) {
  BackendOutcome outcome;
  std::vector<double> result;
  if (!run_recording_failure(backend, w, options, result, outcome)) return outcome;
  outcome.elements.reserve(result.size());
  const bool with_terms = bound_needs_terms(backend.bound);
  std::vector<double> terms;
  for (std::size_t j = 0; j < result.size(); ++j) {
    if (with_terms) element_terms(w, j, terms);
    ElementVerdict v = judge(backend.bound, backend.storage, exact[j], result[j], terms);
    fold_verdict(outcome, j, v);
    outcome.elements.push_back(v);
  }
  return outcome;
}

bool more_severe(const ElementVerdict& a, std::size_t index_a, const ElementVerdict& b, std::size_t index_b) {
  if (severity(a.verdict) != severity(b.verdict)) return severity(a.verdict) > severity(b.verdict);
  // NaN ratios (no bound to compare with) rank below every number.
  const double ra = std::isnan(a.ratio) ? -1 : a.ratio, rb = std::isnan(b.ratio) ? -1 : b.ratio;
  if (ra != rb) return ra > rb;
  return index_a < index_b;
}

OutcomeSummary run_and_summarize(const Backend& backend, const Workload& w, std::size_t keep,
                                 const std::function<void(const JudgedElement&)>& each) {
  OutcomeSummary summary;
  BackendOutcome& outcome = summary.outcome;
  if (!run_recording_failure(backend, w, RunOptions{}, summary.result, outcome)) return summary;
  // While judging, most_severe is a heap whose top is the least severe element kept.
  auto& kept = summary.most_severe;
  const auto before = [](const JudgedElement& a, const JudgedElement& b) {
    return more_severe(a.verdict, a.index, b.verdict, b.index);
  };
  const ExactSumRanges ranges(w);
  std::vector<ExactSum> exact;
  const std::size_t n = summary.result.size();
  const bool with_terms = bound_needs_terms(backend.bound);
  std::vector<double> terms;
  for (std::size_t begin = 0; begin < n; begin += kJudgeBlock) {
    const std::size_t end = std::min(n, begin + kJudgeBlock);
    ranges.sums(begin, end, exact);
    for (std::size_t j = begin; j < end; ++j) {
      if (with_terms) element_terms(w, j, terms);
      const ElementVerdict v = judge(backend.bound, backend.storage, exact[j - begin], summary.result[j], terms);
      fold_verdict(outcome, j, v);
      ++summary.counts[static_cast<std::size_t>(v.verdict)];
      const bool keep_it =
          keep > 0 && (kept.size() < keep || more_severe(v, j, kept.front().verdict, kept.front().index));
      if (!keep_it && !each) continue;
      JudgedElement judged{j, v, exact_hex_of(exact[j - begin])};
      if (each) each(judged);
      if (!keep_it) continue;
      if (kept.size() == keep) {
        std::pop_heap(kept.begin(), kept.end(), before);
        kept.pop_back();
      }
      kept.push_back(std::move(judged));
      std::push_heap(kept.begin(), kept.end(), before);
    }
  }
  std::sort_heap(kept.begin(), kept.end(), before);
  return summary;
}

std::string describe_shape(const Workload& w) {
  const std::string family = family_of(w);
  std::string text = std::string(name(kind_of(w))) + " " + std::string(name(format_of(w))) + ", ";
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    text += std::to_string(d->elements) + " element(s) x " + std::to_string(d->steps + 1) + " addends";
    if (d->input_format) text += ", addends in " + std::string(name(*d->input_format));
    if (!d->layout.contiguous()) text += ", layout " + describe(d->layout);
  } else if (auto* p = std::get_if<ProductWorkload>(&w)) {
    text += std::to_string(p->rows) + "x" + std::to_string(p->cols) + " += " + std::to_string(p->steps) +
            " step(s) of batch " + std::to_string(p->batch);
    if (p->input_format)
      text += ", A in " + std::string(name(p->a_inputs())) + ", B in " + std::string(name(p->b_inputs()));
  } else {
    const auto& s = std::get<SparseWorkload>(w);
    text += std::to_string(s.rows) + " rows x dim " + std::to_string(s.dim) + ", " + std::to_string(s.steps) +
            " step(s), " + std::to_string(s.pairs()) + " pairs";
    if (s.input_format) text += ", values in " + std::string(name(*s.input_format));
    if (!s.layout.contiguous()) text += ", layout " + describe(s.layout);
  }
  return family.empty() ? text : text + " [" + family + "]";
}

namespace {

std::string violation_header(const Backend& backend, const Workload& w) {
  return "backend " + backend.name + " (" + backend.bound_text() + ", " + std::string(name(backend.determinism)) +
         ") on " + describe_shape(w) + "\n";
}

// One element's lines of a violation report; `exact_hex` is S exactly (shown when v.exact is not S).
std::string element_report(std::size_t element, const ElementVerdict& v, const std::string& exact_hex) {
  char exact[40];
  std::snprintf(exact, sizeof exact, "%.17g%s", v.exact, v.exact_is_rounded ? "~" : "");
  char line[640];
  std::snprintf(line, sizeof line,
                "  element %zu: verdict %s\n  exact     %-24s %s\n  computed  %-24.17g %s\n  RNE(S)    %-24.17g %s\n"
                "  error     %-24.17g\n  bound     %-24.17g%s%s\n  ratio     %.6g   ulps %lld   kappa %.6g\n",
                element, std::string(name(v.verdict)).c_str(), exact, hex_float(v.exact).c_str(), v.computed,
                hex_float(v.computed).c_str(), v.correctly_rounded, hex_float(v.correctly_rounded).c_str(), v.error,
                v.bound, v.vacuous ? "  (vacuous)" : "", v.precondition_met ? "" : "  (precondition not met)", v.ratio,
                static_cast<long long>(v.ulps), v.kappa);
  std::string text = line;
  if (v.exact_is_rounded && !exact_hex.empty())
    text += "  exact S   " + exact_hex + "  (exactly: `~` marks S rounded to a double)\n";
  return text;
}

}  // namespace

std::string describe_violation(const Backend& backend, const Workload& w, const BackendOutcome& outcome) {
  std::string text = violation_header(backend, w);
  if (!outcome.failure.empty()) return text + "  the backend failed: " + outcome.failure + "\n";
  if (outcome.elements.empty()) return text;
  const ElementVerdict& v = outcome.elements[outcome.worst_element];
  // S is recomputed for the one element shown, only when the double is not S itself.
  const std::string exact_hex = v.exact_is_rounded ? fixed_hex(exact_sum_of(w, outcome.worst_element).sum) : "";
  return text + element_report(outcome.worst_element, v, exact_hex);
}

std::string describe_violation(const Backend& backend, const Workload& w, const OutcomeSummary& summary) {
  std::string text = violation_header(backend, w);
  if (!summary.outcome.failure.empty()) return text + "  the backend failed: " + summary.outcome.failure + "\n";
  if (summary.most_severe.empty()) return text;
  const JudgedElement& worst = summary.most_severe.front();
  return text + element_report(worst.index, worst.verdict, worst.exact_hex);
}

}  // namespace accucheck
