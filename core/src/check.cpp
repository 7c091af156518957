#include "accucheck/check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

#include "accucheck/fast_exact.h"

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
  for (std::size_t q = 0; q < s->pairs(); ++q) pairs_by_row_[row_start_[s->row_index[q]]++] = static_cast<std::uint32_t>(q);
  for (std::size_t r = s->rows; r > 0; --r) row_start_[r] = row_start_[r - 1];
  row_start_[0] = 0;
}

void ExactSumRanges::sums(std::size_t begin, std::size_t end, std::vector<ExactSum>& out) const {
  out.clear();
  out.reserve(end - begin);
  if (auto* d = std::get_if<DenseWorkload>(&w_)) {
    for (std::size_t j = begin; j < end; ++j) out.push_back(exact_element(*d, j));
    return;
  }
  std::vector<double> terms;
  if (auto* s = std::get_if<SparseWorkload>(&w_)) {
    // Element (r, d) sums the initial value and column d of every pair of row r, in order.
    for (std::size_t e = begin; e < end; ++e) {
      const std::size_t r = e / s->dim, d = e % s->dim;
      terms.clear();
      terms.push_back(s->initial[e]);
      for (std::size_t k = row_start_[r]; k < row_start_[r + 1]; ++k) terms.push_back(s->values[pairs_by_row_[k] * s->dim + d]);
      out.push_back(fast_exact_sum(terms));
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
    return "exact_sums gave " + std::to_string(fast.size()) + " summaries for " + std::to_string(element_count(w)) + " elements";
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
             " (fast S " + fixed_hex(f.sum) + ", A " + fixed_hex(f.abs_sum) + "; Boost S " + fixed_hex(slow.sum) + ", A " +
             fixed_hex(slow.abs_sum) + ")";
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

namespace {

std::vector<double> run(const Backend& backend, const Workload& w, const RunOptions& options) {
  std::vector<double> result(element_count(w), 0.0);
  backend.run(w, result, options);
  return result;
}

}  // namespace

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
bool run_recording_failure(const Backend& backend, const Workload& w, const RunOptions& options, std::vector<double>& result,
                           BackendOutcome& outcome) {
  try {
    result = run(backend, w, options);
    return true;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    outcome.failure = e.what();
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
  for (std::size_t j = 0; j < result.size(); ++j) {
    ElementVerdict v = judge(backend.bound, backend.storage, exact[j], result[j]);
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
  const auto before = [](const JudgedElement& a, const JudgedElement& b) { return more_severe(a.verdict, a.index, b.verdict, b.index); };
  const ExactSumRanges ranges(w);
  std::vector<ExactSum> exact;
  const std::size_t n = summary.result.size();
  for (std::size_t begin = 0; begin < n; begin += kJudgeBlock) {
    const std::size_t end = std::min(n, begin + kJudgeBlock);
    ranges.sums(begin, end, exact);
    for (std::size_t j = begin; j < end; ++j) {
      const ElementVerdict v = judge(backend.bound, backend.storage, exact[j - begin], summary.result[j]);
      fold_verdict(outcome, j, v);
      ++summary.counts[static_cast<std::size_t>(v.verdict)];
      const bool keep_it = keep > 0 && (kept.size() < keep || more_severe(v, j, kept.front().verdict, kept.front().index));
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

namespace {

template <class T>
void shuffle(std::vector<T>& v, ChoiceStream& s) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[s.pick(i)]);
}

// The same multiset of addends per element, in another order (and, for dense, another split).
Workload permuted(const Workload& w, ChoiceStream& s) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    DenseWorkload p = *d;
    std::vector<double> column;
    for (std::size_t j = 0; j < d->elements; ++j) {
      d->column(j, column);
      shuffle(column, s);
      p.initial[j] = column[0];
      for (std::size_t t = 0; t < d->steps; ++t) p.addends[t * d->elements + j] = column[t + 1];
    }
    const std::size_t padding = 1 + s.draw(3);  // -0 steps: a different split, the same sum
    p.steps += padding;
    p.addends.resize(p.steps * p.elements, -0.0);
    return p;
  }
  if (auto* pw = std::get_if<ProductWorkload>(&w)) {
    // Permute the batch index k (the same permutation for A's columns and B's rows) and the steps.
    ProductWorkload p = *pw;
    std::vector<std::size_t> order(pw->steps * pw->batch);
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    shuffle(order, s);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::size_t t = i / pw->batch, k = i % pw->batch, t0 = order[i] / pw->batch, k0 = order[i] % pw->batch;
      for (std::size_t m = 0; m < pw->rows; ++m) p.a[(t * pw->rows + m) * pw->batch + k] = pw->a_at(t0, m, k0);
      for (std::size_t n = 0; n < pw->cols; ++n) p.b[(t * pw->batch + k) * pw->cols + n] = pw->b_at(t0, k0, n);
    }
    return p;
  }
  // Sparse: shuffle the pairs (rows and vectors together) across all steps.
  const auto& sw = std::get<SparseWorkload>(w);
  SparseWorkload p = sw;
  std::vector<std::size_t> order(sw.pairs());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  shuffle(order, s);
  for (std::size_t i = 0; i < order.size(); ++i) {
    p.row_index[i] = sw.row_index[order[i]];
    std::copy_n(sw.values.begin() + static_cast<long>(order[i] * sw.dim), sw.dim, p.values.begin() + static_cast<long>(i * sw.dim));
  }
  return p;
}

}  // namespace

std::string check_determinism(const Backend& backend, const Workload& w, ChoiceStream& s,
                              const std::vector<double>* first_run) {
  if (backend.determinism == Determinism::run_to_run_nondeterministic) return "";
  std::vector<double> own_first_run;
  char text[256];
  try {
    // Four runs in all: the first (the caller's, default options, or threads=1 here), then
    // threads 1, 2 and 4. The caller's run is compared in place, not copied (wide workloads).
    if (first_run && first_run->size() != element_count(w)) first_run = nullptr;
    const char* first = first_run ? "on the first run (default threads)" : "with threads=1";
    if (!first_run) own_first_run = run(backend, w, RunOptions{1, 0});
    const std::vector<double>& reference = first_run ? *first_run : own_first_run;
    for (unsigned threads : {1u, 2u, 4u}) {
      const auto again = run(backend, w, RunOptions{threads, threads});
      for (std::size_t j = 0; j < reference.size(); ++j)
        if (!same_result_bits(again[j], reference[j])) {
          std::snprintf(text, sizeof text, "element %zu: %a %s, %a on a rerun with threads=%u", j, reference[j], first,
                        again[j], threads);
          return text;
        }
    }
    if (backend.determinism != Determinism::order_independent) return "";
    const auto shuffled = run(backend, permuted(w, s), RunOptions{});
    for (std::size_t j = 0; j < reference.size(); ++j)
      if (!same_result_bits(shuffled[j], reference[j])) {
        std::snprintf(text, sizeof text, "element %zu: %a in the given order, %a with its addends permuted", j,
                      reference[j], shuffled[j]);
        return text;
      }
  } catch (const std::bad_alloc&) {
    throw;  // accucheck itself is out of memory: not a failure of the backend
  } catch (const std::exception& e) {
    return std::string("backend failed while re-running: ") + e.what();
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// Shrinking

namespace {

// Candidates simpler than v, simplest first: 0, then v with fewer significant bits, then |v|.
std::vector<double> simpler_values(double v, Format f) {
  std::vector<double> candidates;
  if (v == 0.0 || std::isnan(v) || std::isinf(v)) {
    if (!(v == 0.0 && !std::signbit(v))) candidates.push_back(0.0);
    return candidates;
  }
  candidates.push_back(0.0);
  const double magnitude = std::fabs(v);
  int exponent;
  std::frexp(magnitude, &exponent);
  for (int bits = 1; bits < traits(f).precision; ++bits) {
    const double scale = std::ldexp(1.0, exponent - bits);
    const double fewer = round_to_format(std::round(magnitude / scale) * scale, f);
    if (fewer != magnitude && std::isfinite(fewer)) candidates.push_back(std::copysign(fewer, v));
  }
  if (std::signbit(v)) candidates.push_back(-v);
  return candidates;
}

class Shrinker {
 public:
  Shrinker(const std::function<bool(const Workload&)>& still_fails, std::size_t budget)
      : still_fails_(still_fails), budget_(budget) {}

  bool fails(const Workload& candidate) {
    if (calls_ >= budget_) return false;
    ++calls_;
    return still_fails_(candidate);
  }
  bool spent() const { return calls_ >= budget_; }

  // Tries candidate; keeps it in w if it still fails.
  bool attempt(Workload& w, Workload candidate) {
    if (!fails(candidate)) return false;
    w = std::move(candidate);
    return true;
  }

  // Removes chunks of `count` items through `remove(w, begin, end)`, halving the chunk size.
  template <class Count, class Remove>
  bool remove_chunks(Workload& w, Count count, Remove remove, std::size_t keep_at_least) {
    bool changed = false;
    for (std::size_t chunk = std::max<std::size_t>(1, count(w) / 2); !spent(); chunk /= 2) {
      for (std::size_t begin = 0; begin + chunk <= count(w) && count(w) - chunk >= keep_at_least && !spent();) {
        if (attempt(w, remove(w, begin, begin + chunk))) changed = true;
        else begin += chunk;
      }
      if (chunk <= 1) break;
    }
    return changed;
  }

  // Simplifies each value slot reachable through `slots(w)`.
  template <class Slots>
  bool simplify_values(Workload& w, Slots slots) {
    bool changed = false;
    const Format f = format_of(w);
    const std::size_t count = slots(w).size();
    for (std::size_t i = 0; i < count && !spent(); ++i) {
      for (double candidate : simpler_values(*slots(w)[i], f)) {
        Workload trial = w;
        *slots(trial)[i] = candidate;
        if (attempt(w, std::move(trial))) {
          changed = true;
          break;
        }
      }
    }
    return changed;
  }

 private:
  const std::function<bool(const Workload&)>& still_fails_;
  std::size_t budget_;
  std::size_t calls_ = 0;
};

std::vector<double*> value_slots(Workload& w) {
  std::vector<double*> slots;
  auto add = [&](std::vector<double>& v) {
    for (double& x : v) slots.push_back(&x);
  };
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    add(d->initial);
    add(d->addends);
  } else if (auto* p = std::get_if<ProductWorkload>(&w)) {
    add(p->initial);
    add(p->a);
    add(p->b);
  } else {
    auto& s = std::get<SparseWorkload>(w);
    add(s.initial);
    add(s.values);
  }
  return slots;
}

Workload dense_one_element(const DenseWorkload& w, std::size_t j) {
  DenseWorkload one = w;
  one.elements = 1;
  one.initial = {w.initial[j]};
  one.addends.resize(w.steps);
  for (std::size_t t = 0; t < w.steps; ++t) one.addends[t] = w.addend(t, j);
  return one;
}

Workload product_one_element(const ProductWorkload& w, std::size_t m, std::size_t n) {
  ProductWorkload one = w;
  one.rows = one.cols = 1;
  one.initial = {w.initial[m * w.cols + n]};
  one.a.assign(w.steps * w.batch, 0.0);
  one.b.assign(w.steps * w.batch, 0.0);
  for (std::size_t t = 0; t < w.steps; ++t)
    for (std::size_t k = 0; k < w.batch; ++k) {
      one.a[t * w.batch + k] = w.a_at(t, m, k);
      one.b[t * w.batch + k] = w.b_at(t, k, n);
    }
  return one;
}

Workload sparse_one_element(const SparseWorkload& w, std::size_t r, std::size_t d) {
  SparseWorkload one = w;
  one.rows = one.dim = 1;
  one.initial = {w.initial[r * w.dim + d]};
  one.row_index.clear();
  one.values.clear();
  one.step_offsets.assign(1, 0);
  for (std::size_t t = 0; t < w.steps; ++t) {
    for (std::size_t q = w.step_offsets[t]; q < w.step_offsets[t + 1]; ++q)
      if (w.row_index[q] == r) {
        one.row_index.push_back(0);
        one.values.push_back(w.values[q * w.dim + d]);
      }
    one.step_offsets.push_back(one.row_index.size());
  }
  return one;
}

}  // namespace

Workload shrink_workload(Workload w, const std::function<bool(const Workload&)>& still_fails, std::size_t budget) {
  Shrinker shrinker(still_fails, budget);
  // 1. One element: try each until one still fails.
  const std::size_t elements = element_count(w);
  if (elements > 1)
    for (std::size_t e = 0; e < elements && !shrinker.spent(); ++e) {
      Workload one;
      if (auto* d = std::get_if<DenseWorkload>(&w)) one = dense_one_element(*d, e);
      else if (auto* p = std::get_if<ProductWorkload>(&w)) one = product_one_element(*p, e / p->cols, e % p->cols);
      else {
        const auto& s = std::get<SparseWorkload>(w);
        one = sparse_one_element(s, e / s.dim, e % s.dim);
      }
      if (shrinker.attempt(w, std::move(one))) break;
    }
  bool changed = true;
  while (changed && !shrinker.spent()) {
    changed = false;
    // 2. Fewer steps (all kinds), fewer batch columns (product), fewer pairs (sparse).
    if (std::holds_alternative<DenseWorkload>(w)) {
      changed |= shrinker.remove_chunks(
          w, [](const Workload& x) { return std::get<DenseWorkload>(x).steps; },
          [](const Workload& x, std::size_t begin, std::size_t end) -> Workload {
            DenseWorkload fewer = std::get<DenseWorkload>(x);
            fewer.steps -= end - begin;
            fewer.addends.erase(fewer.addends.begin() + static_cast<long>(begin * fewer.elements),
                                fewer.addends.begin() + static_cast<long>(end * fewer.elements));
            return fewer;
          },
          0);
    } else if (std::holds_alternative<ProductWorkload>(w)) {
      // Remove batch columns k in [begin, end) from every step.
      changed |= shrinker.remove_chunks(
          w, [](const Workload& x) { return std::get<ProductWorkload>(x).batch; },
          [](const Workload& x, std::size_t begin, std::size_t end) -> Workload {
            const auto& p = std::get<ProductWorkload>(x);
            ProductWorkload fewer = p;
            fewer.batch = p.batch - (end - begin);
            fewer.a.clear();
            fewer.b.clear();
            for (std::size_t t = 0; t < p.steps; ++t) {
              for (std::size_t m = 0; m < p.rows; ++m)
                for (std::size_t k = 0; k < p.batch; ++k)
                  if (k < begin || k >= end) fewer.a.push_back(p.a_at(t, m, k));
              for (std::size_t k = 0; k < p.batch; ++k)
                if (k < begin || k >= end)
                  for (std::size_t n = 0; n < p.cols; ++n) fewer.b.push_back(p.b_at(t, k, n));
            }
            return fewer;
          },
          1);
      changed |= shrinker.remove_chunks(
          w, [](const Workload& x) { return std::get<ProductWorkload>(x).steps; },
          [](const Workload& x, std::size_t begin, std::size_t end) -> Workload {
            ProductWorkload fewer = std::get<ProductWorkload>(x);
            const std::size_t a_step = fewer.rows * fewer.batch, b_step = fewer.batch * fewer.cols;
            fewer.a.erase(fewer.a.begin() + static_cast<long>(begin * a_step), fewer.a.begin() + static_cast<long>(end * a_step));
            fewer.b.erase(fewer.b.begin() + static_cast<long>(begin * b_step), fewer.b.begin() + static_cast<long>(end * b_step));
            fewer.steps -= end - begin;
            return fewer;
          },
          0);
    } else {
      // Remove pairs [begin, end) (step boundaries shift accordingly; empty steps stay).
      changed |= shrinker.remove_chunks(
          w, [](const Workload& x) { return std::get<SparseWorkload>(x).pairs(); },
          [](const Workload& x, std::size_t begin, std::size_t end) -> Workload {
            SparseWorkload fewer = std::get<SparseWorkload>(x);
            fewer.row_index.erase(fewer.row_index.begin() + static_cast<long>(begin), fewer.row_index.begin() + static_cast<long>(end));
            fewer.values.erase(fewer.values.begin() + static_cast<long>(begin * fewer.dim),
                               fewer.values.begin() + static_cast<long>(end * fewer.dim));
            for (auto& offset : fewer.step_offsets)
              offset = offset <= begin ? offset : (offset >= end ? offset - (end - begin) : begin);
            return fewer;
          },
          0);
    }
    // 3. Simpler values.
    changed |= shrinker.simplify_values(w, value_slots);
  }
  return w;
}

std::string describe_shape(const Workload& w) {
  const std::string family = family_of(w);
  std::string text = std::string(name(kind_of(w))) + " " + std::string(name(format_of(w))) + ", ";
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    text += std::to_string(d->elements) + " element(s) x " + std::to_string(d->steps + 1) + " addends";
  } else if (auto* p = std::get_if<ProductWorkload>(&w)) {
    text += std::to_string(p->rows) + "x" + std::to_string(p->cols) + " += " + std::to_string(p->steps) + " step(s) of batch " +
            std::to_string(p->batch);
  } else {
    const auto& s = std::get<SparseWorkload>(w);
    text += std::to_string(s.rows) + " rows x dim " + std::to_string(s.dim) + ", " + std::to_string(s.steps) + " step(s), " +
            std::to_string(s.pairs()) + " pairs";
  }
  return family.empty() ? text : text + " [" + family + "]";
}

namespace {

std::string violation_header(const Backend& backend, const Workload& w) {
  return "backend " + backend.name + " (" + backend.bound_text() + ", " + std::string(name(backend.determinism)) + ") on " +
         describe_shape(w) + "\n";
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
                hex_float(v.computed).c_str(), v.correctly_rounded, hex_float(v.correctly_rounded).c_str(), v.error, v.bound,
                v.vacuous ? "  (vacuous)" : "", v.precondition_met ? "" : "  (precondition not met)", v.ratio,
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
