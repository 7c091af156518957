// Determinism as the classes promise it (determinism.h): reruns, thread counts,
// and for order-independent backends permutations and splits of the addends.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "checking/determinism.h"
#include "checking/judge.h"

namespace accucheck {
namespace {

// The same multiset of addends per element, in another order (and, for dense, another split).
Workload permuted(const Workload& w, ChoiceStream& s) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    DenseWorkload p = *d;
    std::vector<double> column;
    for (std::size_t j = 0; j < d->elements; ++j) {
      d->column(j, column);
      shuffle(column, s, d->first_movable_term());
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
    std::copy_n(sw.values.begin() + static_cast<long>(order[i] * sw.dim), sw.dim,
                p.values.begin() + static_cast<long>(i * sw.dim));
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
    if (!first_run) own_first_run = run_backend(backend, w, RunOptions{1, 0});
    const std::vector<double>& reference = first_run ? *first_run : own_first_run;
    for (unsigned threads : {1u, 2u, 4u}) {
      const auto again = run_backend(backend, w, RunOptions{threads, threads});
      for (std::size_t j = 0; j < reference.size(); ++j)
        if (!same_result_bits(again[j], reference[j])) {
          std::snprintf(text, sizeof text, "element %zu: %a %s, %a on a rerun with threads=%u", j, reference[j], first,
                        again[j], threads);
          return text;
        }
    }
    if (backend.determinism != Determinism::order_independent) return "";
    const auto shuffled = run_backend(backend, permuted(w, s), RunOptions{});
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

}  // namespace accucheck
