// Shrinking a failing workload (shrink.h): one element, fewer steps, simpler values.
#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "checking/judge.h"
#include "checking/shapes.h"
#include "checking/shrink.h"

namespace accucheck {
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

// Sizes below n, ascending: 1 to 16, then 2^k and m u (the units of shapes.h, m = 1..3), each
// -1, exact and +1.
std::vector<std::size_t> boundary_sizes_below(std::size_t n) {
  std::vector<std::size_t> sizes;
  for (std::size_t d = 1; d <= 16; ++d) sizes.push_back(d);
  auto around = [&](std::size_t centre) {
    for (std::size_t d : {centre - 1, centre, centre + 1}) sizes.push_back(d);
  };
  for (std::size_t p = 32; p < n; p *= 2) around(p);
  for (std::size_t unit : kBoundaryUnits)
    for (std::size_t m = 1; m <= 3; ++m) around(m * unit);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  sizes.erase(std::lower_bound(sizes.begin(), sizes.end(), n), sizes.end());
  return sizes;
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
    conform_inputs(candidate);  // simpler values of the storage format, rounded into FP8 inputs
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
        if (attempt(w, remove(w, begin, begin + chunk)))
          changed = true;
        else
          begin += chunk;
      }
      if (chunk <= 1) break;
    }
    return changed;
  }

  // Cuts `count` items to a smaller size where kernels change path (boundary_sizes_below),
  // smallest first, keeping the last items (tails), the first, or both ends: a kernel wrong only
  // past some D reaches its threshold in a few calls, where chunk removal on a wide buffer
  // spends its budget trying positions at sizes that do not fail.
  template <class Count, class Remove>
  bool cut_to_boundary_size(Workload& w, Count count, Remove remove) {
    const std::size_t n = count(w);
    for (std::size_t size : boundary_sizes_below(n)) {
      if (spent()) return false;
      const std::size_t head = size / 2;
      if (attempt(w, remove(w, 0, n - size)) || attempt(w, remove(w, size, n)) ||
          attempt(w, remove(w, head, n - (size - head))))
        return true;
    }
    return false;
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
  for_each_value_array(w, [&](std::vector<double>& values) {
    for (double& x : values) slots.push_back(&x);
  });
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

Workload element_alone(const Workload& w, std::size_t element) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) return dense_one_element(*d, element);
  if (auto* p = std::get_if<ProductWorkload>(&w)) return product_one_element(*p, element / p->cols, element % p->cols);
  const auto& s = std::get<SparseWorkload>(w);
  return sparse_one_element(s, element / s.dim, element % s.dim);
}

namespace {

// Keeps the items i outside [begin, end) of `count` items, each `width` values wide, of every one
// of `blocks` consecutive blocks of v: v = blocks x count x width, row-major.
std::vector<double> without_range(const std::vector<double>& v, std::size_t blocks, std::size_t count,
                                  std::size_t width, std::size_t begin, std::size_t end) {
  std::vector<double> kept;
  kept.reserve(blocks * (count - (end - begin)) * width);
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t i = 0; i < count; ++i)
      if (i < begin || i >= end)
        kept.insert(kept.end(), v.begin() + static_cast<long>((b * count + i) * width),
                    v.begin() + static_cast<long>((b * count + i + 1) * width));
  return kept;
}

// Removes chunks of the items `count` counts in a workload of kind W; without(x, begin, end) is x
// with items [begin, end) removed. At least one item stays.
template <class W, class Count, class Without>
bool remove_items(Shrinker& shrinker, Workload& w, Count count, Without without) {
  const auto items = [&](const Workload& x) { return count(std::get<W>(x)); };
  const auto remove = [&](const Workload& x, std::size_t begin, std::size_t end) -> Workload {
    return without(std::get<W>(x), begin, end);
  };
  const bool cut = items(w) > 16 && shrinker.cut_to_boundary_size(w, items, remove);
  return shrinker.remove_chunks(w, items, remove, 1) || cut;
}

bool remove_element_chunks(Shrinker& shrinker, Workload& w) {
  if (std::holds_alternative<DenseWorkload>(w))
    return remove_items<DenseWorkload>(
        shrinker, w, [](const DenseWorkload& d) { return d.elements; },
        [](DenseWorkload d, std::size_t begin, std::size_t end) {
          d.initial = without_range(d.initial, 1, d.elements, 1, begin, end);
          d.addends = without_range(d.addends, d.steps, d.elements, 1, begin, end);
          d.elements -= end - begin;
          return d;
        });
  if (std::holds_alternative<ProductWorkload>(w)) {
    // Output columns n (C's columns and B's), then output rows m (C's rows and A's).
    bool changed = remove_items<ProductWorkload>(
        shrinker, w, [](const ProductWorkload& p) { return p.cols; },
        [](ProductWorkload p, std::size_t begin, std::size_t end) {
          p.initial = without_range(p.initial, p.rows, p.cols, 1, begin, end);
          p.b = without_range(p.b, p.steps * p.batch, p.cols, 1, begin, end);
          p.cols -= end - begin;
          return p;
        });
    changed |= remove_items<ProductWorkload>(
        shrinker, w, [](const ProductWorkload& p) { return p.rows; },
        [](ProductWorkload p, std::size_t begin, std::size_t end) {
          p.initial = without_range(p.initial, 1, p.rows, p.cols, begin, end);
          p.a = without_range(p.a, p.steps, p.rows, p.batch, begin, end);
          p.rows -= end - begin;
          return p;
        });
    return changed;
  }
  // Embedding columns d of the table and of every pair's vector.
  return remove_items<SparseWorkload>(
      shrinker, w, [](const SparseWorkload& s) { return s.dim; },
      [](SparseWorkload s, std::size_t begin, std::size_t end) {
        s.initial = without_range(s.initial, s.rows, s.dim, 1, begin, end);
        s.values = without_range(s.values, s.pairs(), s.dim, 1, begin, end);
        s.dim -= end - begin;
        return s;
      });
}

// The contiguous layout, else each layout field at 0, then at 1 (workload.h): a finding that
// needs a strided layout keeps only the part of it that matters.
bool simplify_layout(Shrinker& shrinker, Workload& w) {
  bool changed = false;
  auto simpler = [&](auto set) {
    Workload candidate = w;
    if (!set(candidate)) return;
    changed |= shrinker.attempt(w, std::move(candidate));
  };
  if (std::holds_alternative<DenseWorkload>(w)) {
    using Field = std::uint32_t DenseLayout::*;
    const auto layout = [](Workload& x) -> DenseLayout& { return std::get<DenseWorkload>(x).layout; };
    simpler([&](Workload& x) { return !std::exchange(layout(x), DenseLayout{}).contiguous(); });
    simpler([&](Workload& x) { return std::exchange(layout(x).element_major, false); });
    for (Field f : {&DenseLayout::gap, &DenseLayout::padding, &DenseLayout::buffer_gap})
      for (std::uint32_t v : {0u, 1u}) simpler([&](Workload& x) { return std::exchange(layout(x).*f, v) > v; });
  } else if (std::holds_alternative<SparseWorkload>(w)) {
    using Field = std::uint32_t SparseLayout::*;
    for (Field f : {&SparseLayout::table_padding, &SparseLayout::value_padding})
      for (std::uint32_t v : {0u, 1u})
        simpler([&](Workload& x) { return std::exchange(std::get<SparseWorkload>(x).layout.*f, v) > v; });
  }
  return changed;
}

}  // namespace

Workload shrink_workload(Workload w, const std::function<bool(const Workload&)>& still_fails, std::size_t budget) {
  Shrinker shrinker(still_fails, budget);
  // 1. One element: try each until one still fails (up to 64 of them: a wide buffer would spend
  //    the budget here, and minimize_finding has tried the element that failed; halving chunks
  //    below reach a lone failing element in about log2 D calls).
  const std::size_t elements = element_count(w);
  if (elements > 1 && elements <= 64)
    for (std::size_t e = 0; e < elements && !shrinker.spent(); ++e)
      if (shrinker.attempt(w, element_alone(w, e))) break;
  bool changed = true;
  while (changed && !shrinker.spent()) {
    changed = false;
    // 2. Fewer elements, when no element fails alone (a kernel wrong only past some D, at a
    //    tail or a block edge): element columns (dense), output rows and columns (product),
    //    embedding columns (sparse). Then fewer steps (all kinds), fewer batch columns
    //    (product), fewer pairs (sparse).
    changed |= remove_element_chunks(shrinker, w);
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
            fewer.a.erase(fewer.a.begin() + static_cast<long>(begin * a_step),
                          fewer.a.begin() + static_cast<long>(end * a_step));
            fewer.b.erase(fewer.b.begin() + static_cast<long>(begin * b_step),
                          fewer.b.begin() + static_cast<long>(end * b_step));
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
            fewer.row_index.erase(fewer.row_index.begin() + static_cast<long>(begin),
                                  fewer.row_index.begin() + static_cast<long>(end));
            fewer.values.erase(fewer.values.begin() + static_cast<long>(begin * fewer.dim),
                               fewer.values.begin() + static_cast<long>(end * fewer.dim));
            for (auto& offset : fewer.step_offsets)
              offset = offset <= begin ? offset : (offset >= end ? offset - (end - begin) : begin);
            return fewer;
          },
          0);
    }
    // 3. Simpler values, then a simpler layout.
    changed |= shrinker.simplify_values(w, value_slots);
    changed |= simplify_layout(shrinker, w);
  }
  return w;
}

}  // namespace accucheck
