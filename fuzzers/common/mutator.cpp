#include "mutator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "checking/float_gen.h"
#include "checking/shapes.h"
#include "fuzz_input.h"
#include "io/workload_encoding.h"
#include "numerics/exact.h"

// libFuzzer's byte-level mutator (the replay main defines a stand-in).
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace accucheck::fuzz {

namespace {

double finite_or(double x, double fallback) { return std::isfinite(x) ? x : fallback; }

// A random non-zero finite value of f with exponent e (clamped into the format).
double with_exponent(MutationRng& r, Format f, int e, double mantissa_source) {
  const auto& t = traits(f);
  double m = std::fabs(mantissa_source);
  int old_e = 0;
  m = (m > 0 && std::isfinite(m)) ? std::frexp(m, &old_e) * 2
                                  : 1.0 + std::ldexp(static_cast<double>(r.below(1u << 20)), -20);
  e = std::clamp(e, t.emin - t.precision + 1, t.emax);
  double v = round_to_format(std::ldexp(m, e), f);
  if (std::isinf(v)) v = largest_finite(f);
  return (r.coin() ? -1.0 : 1.0) * v;
}

// A random float of f for a cancelling pair (x itself when that draw is zero).
double draw_float_like(double x, MutationRng& r, Format f) {
  SeededChoiceStream s(r.next());
  double y = draw_float(s, f, false);
  if (y == 0) y = std::isfinite(x) && x != 0 ? x : 1.0;
  return y;
}

double mutate_value(double v, MutationRng& r, Format f, const char*& what) {
  const auto& t = traits(f);
  switch (r.below(6)) {
    case 0: what = "sign"; return -v;
    case 1: {
      what = "ulp";
      const int steps = 1 + static_cast<int>(r.below(4));
      const bool up = r.coin();
      for (int i = 0; i < steps; ++i) v = up ? next_up(v, f) : next_down(v, f);
      return v;
    }
    case 2: {
      what = "exponent";
      int e;
      switch (r.below(4)) {
        case 0: e = t.emax - static_cast<int>(r.below(3)); break;
        case 1: e = t.emin + static_cast<int>(r.below(3)); break;
        case 2: e = t.emin - 1 - static_cast<int>(r.below(t.precision)); break;  // subnormal range
        default: e = t.precision - 1 + static_cast<int>(r.below(3)); break;      // integers stop being exact
      }
      return std::copysign(std::fabs(with_exponent(r, f, e, v)), r.below(4) ? v : -v);
    }
    case 3: {
      what = "subnormal";
      const std::uint64_t top = (std::uint64_t{1} << (t.precision - 1)) - 1;
      double s;
      switch (r.below(3)) {
        case 0: s = smallest_subnormal(f); break;
        case 1: s = static_cast<double>(top) * smallest_subnormal(f); break;
        default: s = static_cast<double>(1 + r.below(top)) * smallest_subnormal(f); break;
      }
      return std::signbit(v) ? -s : s;
    }
    case 4: {
      what = "special";
      const auto specials = special_values(f, true);
      const double s = specials[r.below(specials.size())];
      return r.coin() ? -s : s;
    }
    default: {
      what = "scale";
      const int k = static_cast<int>(r.below(2 * t.precision + 1)) - t.precision;
      return round_to_format(finite_or(std::ldexp(v, k), v), f);
    }
  }
}

// ---- dense ---------------------------------------------------------------------------------

struct DenseView {
  DenseWorkload& w;
  std::size_t n() const { return w.steps + 1; }
  double& at(std::size_t j, std::size_t i) { return i == 0 ? w.initial[j] : w.addends[(i - 1) * w.elements + j]; }
  // Inserts an empty step (all -0, the identity of addition) before addend position i >= 1.
  void insert_step(std::size_t i) {
    const std::size_t t = i - 1;
    w.addends.insert(w.addends.begin() + static_cast<long>(t * w.elements), w.elements, -0.0);
    ++w.steps;
  }
  void erase_step(std::size_t t) {
    w.addends.erase(w.addends.begin() + static_cast<long>(t * w.elements),
                    w.addends.begin() + static_cast<long>((t + 1) * w.elements));
    --w.steps;
  }
};

const char* mutate_dense(DenseWorkload& w, MutationRng& r) {
  const EncodingLimits l = dense_limits();
  DenseView v{w};
  const std::size_t j = r.below(w.elements);
  const std::size_t i = r.below(v.n());
  // The format of slot i's values: FP8 addends are mutated in their own format, whose ulps and
  // subnormals the storage format's would miss (conform_inputs rounds them away).
  const Format f = i == 0 ? w.format : w.addend_format();
  switch (r.below(16)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4: {
      const char* what = "value";
      double& x = v.at(j, i);
      x = mutate_value(x, r, f, what);
      return what;
    }
    case 5: {  // cancelling pair (x, -x)
      double x = v.at(j, r.below(v.n()));
      if (x == 0 || !std::isfinite(x) || r.below(3) == 0) x = draw_float_like(x, r, f);
      if (w.steps + 2 <= l.max_steps) {
        // Two new steps (all -0, the identity of addition), then element j's pair in them and,
        // sometimes, a pair of its own for every other element.
        std::size_t a = 1 + r.below(v.n());
        v.insert_step(a);
        const std::size_t b = 1 + r.below(v.n());
        v.insert_step(b);
        if (b <= a) ++a;
        const bool every = r.below(4) == 0;
        for (std::size_t e = 0; e < w.elements; ++e)
          if (e == j || every) {
            const double y = e == j ? x : v.at(e, r.below(v.n()));
            v.at(e, a) = y;
            v.at(e, b) = -y;
          }
      } else {
        const std::size_t a = r.below(v.n()), b = r.below(v.n());
        v.at(j, a) = x;
        v.at(j, b) = a == b ? x : -x;
      }
      return "cancel";
    }
    case 6: {  // cancel the running sum: x_i = -RNE(sum of x_0..x_{i-1})
      if (i == 0) return "cancel-sum";
      BoostExactAccumulator acc;
      for (std::size_t k = 0; k < i; ++k) acc.add(v.at(j, k));
      const ExactSum& s = acc.result();
      if (s.special == Special::none) {
        double c = -round_fixed(s.sum, f);
        if (r.coin()) c = r.coin() ? next_up(c, f) : next_down(c, f);
        if (std::isfinite(c)) v.at(j, i) = c;
      }
      return "cancel-sum";
    }
    case 7: {  // an exact tie with the running (in-format, in-order) sum
      if (i == 0) return "tie";
      double running = v.at(j, 0);
      for (std::size_t k = 1; k < i; ++k) running = round_to_format(running + v.at(j, k), f);
      if (!std::isfinite(running)) return "tie";
      double half = std::max(ulp(running, f) / 2, smallest_subnormal(f));
      if (r.below(4) == 0) half *= 3;
      if (r.below(8) == 0) half = -half;
      v.at(j, i) = round_to_format(half, f);
      return "tie";
    }
    case 8: {  // duplicate a block of steps
      if (w.steps == 0) return "duplicate";
      const std::size_t begin = r.below(w.steps);
      std::size_t length = 1 + r.below(std::min<std::size_t>(w.steps - begin, 16));
      length = std::min(length, l.max_steps - std::min(l.max_steps, w.steps));
      if (length == 0) {  // full: overwrite instead of inserting
        const std::size_t to = r.below(w.steps);
        for (std::size_t e = 0; e < w.elements; ++e) w.addends[to * w.elements + e] = w.addends[begin * w.elements + e];
        return "duplicate";
      }
      std::vector<double> block(w.addends.begin() + static_cast<long>(begin * w.elements),
                                w.addends.begin() + static_cast<long>((begin + length) * w.elements));
      const std::size_t at = r.below(w.steps + 1);
      w.addends.insert(w.addends.begin() + static_cast<long>(at * w.elements), block.begin(), block.end());
      w.steps += length;
      return "duplicate";
    }
    case 9: {  // permute the terms an order change may move
      const std::size_t first = w.first_movable_term();
      if (v.n() <= first + 1) return "permute";
      std::vector<double> column(v.n() - first);
      for (std::size_t k = 0; k < column.size(); ++k) column[k] = v.at(j, first + k);
      switch (r.below(3)) {
        case 0:
          for (std::size_t k = column.size(); k > 1; --k) std::swap(column[k - 1], column[r.below(k)]);
          break;
        case 1: {
          const std::size_t a = r.below(column.size()), b = r.below(column.size());
          std::reverse(column.begin() + static_cast<long>(std::min(a, b)),
                       column.begin() + static_cast<long>(std::max(a, b) + 1));
          break;
        }
        default: std::swap(column[r.below(column.size())], column[r.below(column.size())]); break;
      }
      for (std::size_t k = 0; k < column.size(); ++k) v.at(j, first + k) = column[k];
      return "permute";
    }
    case 10: {  // copy a value (maybe times a power of two)
      double x = v.at(r.below(w.elements), r.below(v.n()));
      if (r.coin()) x = round_to_format(finite_or(std::ldexp(x, static_cast<int>(r.below(9)) - 4), x), f);
      v.at(j, i) = r.below(4) == 0 ? -x : x;
      return "copy";
    }
    case 11: {  // scale a whole element by 2^k
      const int k = static_cast<int>(r.below(2 * traits(f).precision + 9)) - traits(f).precision - 4;
      for (std::size_t q = 0; q < v.n(); ++q) {
        const double y = round_to_format(std::ldexp(v.at(j, q), k), f);
        if (std::isfinite(y) || !std::isfinite(v.at(j, q))) v.at(j, q) = y;
      }
      return "scale";
    }
    case 12: {  // reshape: steps
      if (r.coin() && w.steps > 0) {
        const std::size_t count = 1 + r.below(std::min<std::size_t>(w.steps, 8));
        for (std::size_t c = 0; c < count && w.steps > 0; ++c) v.erase_step(r.below(w.steps));
      } else if (w.steps < l.max_steps) {
        // A new step: -0 (the identity) or a copy of an existing step.
        const std::size_t at = 1 + r.below(v.n());
        v.insert_step(at);
        if (r.coin())
          for (std::size_t e = 0; e < w.elements; ++e) v.at(e, at) = v.at(e, 1 + r.below(w.steps));
      }
      return "reshape";
    }
    case 13: {  // reshape: elements
      if (w.elements > 1 && r.coin()) {
        const std::size_t drop = r.below(w.elements);
        DenseWorkload out = w;
        out.elements = w.elements - 1;
        out.initial.clear();
        out.addends.clear();
        for (std::size_t e = 0; e < w.elements; ++e)
          if (e != drop) out.initial.push_back(w.initial[e]);
        for (std::size_t t = 0; t < w.steps; ++t)
          for (std::size_t e = 0; e < w.elements; ++e)
            if (e != drop) out.addends.push_back(w.addends[t * w.elements + e]);
        w = std::move(out);
      } else if (w.elements < l.max_elements) {
        const std::size_t from = r.below(w.elements);
        DenseWorkload out = w;
        out.elements = w.elements + 1;
        out.initial.push_back(w.initial[from]);
        out.addends.clear();
        for (std::size_t t = 0; t < w.steps; ++t) {
          for (std::size_t e = 0; e < w.elements; ++e) out.addends.push_back(w.addends[t * w.elements + e]);
          out.addends.push_back(w.addends[t * w.elements + from]);
        }
        // the copy of an element, then one edit so that the two differ
        w = std::move(out);
        const char* what = "value";
        double& x = DenseView{w}.at(w.elements - 1, r.below(w.steps + 1));
        x = mutate_value(x, r, f, what);
      }
      return "reshape";
    }
    case 14: {  // re-round into another format
      const Format g = all_formats[r.below(4)];
      w.format = g;
      for (double& x : w.initial) x = round_to_format(x, g);
      for (double& x : w.addends) x = round_to_format(x, g);
      return "format";
    }
    default: {  // several value edits at once in one element
      const char* what = "value";
      for (int k = 0, count = 2 + static_cast<int>(r.below(3)); k < count; ++k) {
        double& x = v.at(j, r.below(v.n()));
        x = mutate_value(x, r, f, what);
      }
      return "values";
    }
  }
}

// ---- sparse --------------------------------------------------------------------------------

const char* mutate_sparse(SparseWorkload& w, MutationRng& r) {
  const EncodingLimits l = sparse_limits();
  const std::size_t pairs = w.pairs();
  switch (r.below(10)) {
    case 0:
    case 1:
    case 2:
    case 3: {  // a value of the table or of a pair, in its own format
      const char* what = "value";
      const std::size_t k = r.below(w.initial.size() + w.values.size());
      const bool table = k < w.initial.size();
      double& x = table ? w.initial[k] : w.values[k - w.initial.size()];
      x = mutate_value(x, r, table ? w.format : w.value_format(), what);
      return what;
    }
    case 4:  // move a pair to another (often the hottest) row
      if (pairs) {
        const std::size_t q = r.below(pairs);
        w.row_index[q] = r.coin() ? w.row_index[r.below(pairs)] : static_cast<std::uint32_t>(r.below(w.rows));
      }
      return "row";
    case 5:  // duplicate a pair
    case 6:  // insert (r, v), (r, -v)
      if (pairs && pairs + 2 <= l.max_pairs) {
        const std::size_t q = r.below(pairs);
        const bool cancel = r.coin();
        std::vector<double> vec(w.values.begin() + static_cast<long>(q * w.dim),
                                w.values.begin() + static_cast<long>((q + 1) * w.dim));
        const std::uint32_t row = w.row_index[q];
        const std::size_t at = r.below(pairs + 1);
        w.row_index.insert(w.row_index.begin() + static_cast<long>(at), row);
        w.values.insert(w.values.begin() + static_cast<long>(at * w.dim), vec.begin(), vec.end());
        if (cancel) {
          for (double& x : vec) x = -x;
          const std::size_t at2 = r.below(w.pairs() + 1);
          w.row_index.insert(w.row_index.begin() + static_cast<long>(at2), row);
          w.values.insert(w.values.begin() + static_cast<long>(at2 * w.dim), vec.begin(), vec.end());
        }
      }
      break;
    case 7:  // remove a pair
      if (pairs) {
        const std::size_t q = r.below(pairs);
        w.row_index.erase(w.row_index.begin() + static_cast<long>(q));
        w.values.erase(w.values.begin() + static_cast<long>(q * w.dim),
                       w.values.begin() + static_cast<long>((q + 1) * w.dim));
      }
      break;
    case 8: {  // shuffle the pairs
      for (std::size_t k = pairs; k > 1; --k) {
        const std::size_t o = r.below(k);
        std::swap(w.row_index[k - 1], w.row_index[o]);
        std::swap_ranges(w.values.begin() + static_cast<long>((k - 1) * w.dim),
                         w.values.begin() + static_cast<long>(k * w.dim),
                         w.values.begin() + static_cast<long>(o * w.dim));
      }
      return "permute";
    }
    default: {  // steps
      w.steps = 1 + r.below(l.max_steps);
      break;
    }
  }
  // Spread the pairs over the steps evenly (any split is a valid workload; this one is simple).
  w.step_offsets.assign(1, 0);
  for (std::size_t t = 1; t <= w.steps; ++t) w.step_offsets.push_back(w.pairs() * t / w.steps);
  return "pairs";
}

// ---- product (GEMM, beta = 1) ------------------------------------------------------------

const char* mutate_product(ProductWorkload& w, MutationRng& r) {
  const Format f = w.format;
  const std::size_t total = w.initial.size() + w.a.size() + w.b.size();
  auto slot = [&](std::size_t k) -> double& {
    if (k < w.initial.size()) return w.initial[k];
    k -= w.initial.size();
    if (k < w.a.size()) return w.a[k];
    return w.b[k - w.a.size()];
  };
  switch (r.below(6)) {
    case 0:
    case 1:
    case 2: {
      const char* what = "value";
      double& x = slot(r.below(total));
      x = mutate_value(x, r, f, what);
      return what;
    }
    case 3: {  // a cancelling pair of products within a step: (a, b) then (a, -b) in column k2
      if (w.batch < 2) return "cancel";
      const std::size_t t = r.below(w.steps), k1 = r.below(w.batch), k2 = r.below(w.batch);
      if (k1 == k2) return "cancel";
      for (std::size_t m = 0; m < w.rows; ++m)
        w.a[(t * w.rows + m) * w.batch + k2] = w.a[(t * w.rows + m) * w.batch + k1];
      for (std::size_t n = 0; n < w.cols; ++n)
        w.b[(t * w.batch + k2) * w.cols + n] = -w.b[(t * w.batch + k1) * w.cols + n];
      if (r.coin()) {  // and one ulp apart, so they almost cancel
        double& x = w.a[(t * w.rows + r.below(w.rows)) * w.batch + k2];
        x = r.coin() ? next_up(x, f) : next_down(x, f);
      }
      return "cancel";
    }
    case 4: {  // C near minus the products (the result nearly cancels)
      const std::size_t m = r.below(w.rows), n = r.below(w.cols);
      double sum = 0;
      for (std::size_t t = 0; t < w.steps; ++t)
        for (std::size_t k = 0; k < w.batch; ++k) sum += w.a_at(t, m, k) * w.b_at(t, k, n);
      const double c = round_to_format(-sum, f);
      if (std::isfinite(c)) w.initial[m * w.cols + n] = c;
      return "cancel-sum";
    }
    default: {  // scale one operand matrix of one step by 2^k
      const std::size_t t = r.below(w.steps);
      const int k = static_cast<int>(r.below(2 * traits(f).precision + 1)) - traits(f).precision;
      const bool a_side = r.coin();
      const std::size_t begin = a_side ? t * w.rows * w.batch : t * w.batch * w.cols;
      const std::size_t count = a_side ? w.rows * w.batch : w.batch * w.cols;
      auto& v = a_side ? w.a : w.b;
      for (std::size_t i = begin; i < begin + count; ++i) {
        const double y = round_to_format(std::ldexp(v[i], k), f);
        if (std::isfinite(y) || !std::isfinite(v[i])) v[i] = y;
      }
      return "scale";
    }
  }
}

std::size_t fallback(std::uint8_t* data, std::size_t size, std::size_t max_size) {
  return LLVMFuzzerMutate(data, size, max_size);
}

}  // namespace

// Where kernels split (shapes.h): a wide buffer's size and its columns' places, drawn the way
// generate() widens, into +0 columns (so that the input stays a few bytes).
PatchedDense widened(DenseWorkload narrow, std::size_t elements, MutationRng& r) {
  SeededChoiceStream s(r.next());
  const EncodingLimits l = dense_limits();
  const std::size_t cap = patched_elements_limit(l, narrow.steps);
  PatchedDense p;
  p.elements = elements ? elements : std::max(draw_boundary_size(s, cap), l.max_elements + 1);
  std::set<std::size_t> places;  // boundary places first; uniform ones once those repeat
  for (int attempt = 0; places.size() < narrow.elements; ++attempt)
    places.insert(attempt < 8 ? draw_boundary_position(s, p.elements) : s.draw(p.elements - 1));
  p.at.assign(places.begin(), places.end());
  p.narrow = std::move(narrow);
  return p;
}

// Dense inputs: one buffer in 64 is widened to a boundary size; a wide one is narrowed again
// half the time (a wide input costs every selected backend a wide run: fuzz_dense's throughput),
// else re-placed or re-sized, or mutated through its narrow part (its columns keep their places).
const char* mutate_dense_input(DenseWorkload& w, MutationRng& r) {
  const EncodingLimits l = dense_limits();
  if (auto patched = split_patched(w, l)) {
    const std::uint64_t choice = r.below(8);
    if (choice < 4) {
      w = patched->narrow;
      return "narrow";
    }
    if (choice == 4) {
      w = place_patched(widened(patched->narrow, r.coin() ? patched->elements : 0, r));
      return "widen";
    }
    const char* what = mutate_dense(patched->narrow, r);
    if (patched->narrow.elements != patched->at.size() ||
        patched->elements > patched_elements_limit(l, patched->narrow.steps)) {
      w = patched->narrow;  // reshaped: its places no longer apply
      return what;
    }
    w = place_patched(*patched);
    return what;
  }
  if (l.max_patched_elements > l.max_elements && r.below(64) == 0 && w.elements <= l.max_elements) {
    w = place_patched(widened(w, 0, r));
    return "widen";
  }
  return mutate_dense(w, r);
}

const char* mutate_workload(Workload& w, MutationRng& rng) {
  const char* what = "none";
  if (auto* d = std::get_if<DenseWorkload>(&w))
    what = mutate_dense_input(*d, rng);
  else if (auto* s = std::get_if<SparseWorkload>(&w))
    what = mutate_sparse(*s, rng);
  else if (auto* p = std::get_if<ProductWorkload>(&w))
    what = mutate_product(*p, rng);
  conform_inputs(w);  // an FP8 product's A and B stay FP8
  fit_layout(w, limits_for(kind_of(w)));
  return what;
}

std::size_t mutate_input(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed, WorkloadKind kind) {
  MutationRng rng(seed * 0x2545f4914f6cdd1dULL + size);
  if (rng.below(4) == 0) return fallback(data, size, max_size);
  Workload w = decode_input(std::span<const std::uint8_t>(data, size), kind).workload;
  for (int k = 0, count = 1 + static_cast<int>(rng.below(3) == 0 ? rng.below(4) : 0); k <= count; ++k)
    mutate_workload(w, rng);
  const std::vector<std::uint8_t> bytes = encode_input(w);
  if (bytes.size() > max_size) return fallback(data, size, max_size);
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}

std::size_t cross_over_inputs(const std::uint8_t* data1, std::size_t size1, const std::uint8_t* data2,
                              std::size_t size2, std::uint8_t* out, std::size_t max_out_size, unsigned seed,
                              WorkloadKind kind) {
  MutationRng rng(seed * kSplitMix64Gamma + size1 * 31 + size2);
  Workload a = decode_input(std::span<const std::uint8_t>(data1, size1), kind).workload;
  const Workload b = decode_input(std::span<const std::uint8_t>(data2, size2), kind).workload;
  const Format f = format_of(a);
  if (auto* x = std::get_if<DenseWorkload>(&a)) {
    const auto& y = std::get<DenseWorkload>(b);
    // The first `keep` steps of a, then the steps of b from `from` on (element e of the
    // result takes b's element e mod D_b), re-rounded into a's format.
    const std::size_t keep = rng.below(x->steps + 1), from = rng.below(y.steps + 1);
    x->addends.resize(keep * x->elements);
    for (std::size_t t = from; t < y.steps && keep + (t - from) < dense_limits().max_steps; ++t)
      for (std::size_t e = 0; e < x->elements; ++e)
        x->addends.push_back(round_to_format(y.addend(t, e % y.elements), f));
    x->steps = x->addends.size() / x->elements;
  } else if (auto* x = std::get_if<ProductWorkload>(&a)) {
    // Steps of b after steps of a, as far as the shapes agree and the limit allows.
    const auto& y = std::get<ProductWorkload>(b);
    if (x->rows == y.rows && x->cols == y.cols && x->batch == y.batch) {
      const std::size_t keep = 1 + rng.below(x->steps), from = rng.below(y.steps);
      x->a.resize(keep * x->rows * x->batch);
      x->b.resize(keep * x->batch * x->cols);
      x->steps = keep;
      for (std::size_t t = from; t < y.steps && x->steps < product_limits().max_product_steps; ++t, ++x->steps) {
        for (std::size_t i = 0; i < y.rows * y.batch; ++i)
          x->a.push_back(round_to_format(y.a[t * y.rows * y.batch + i], f));
        for (std::size_t i = 0; i < y.batch * y.cols; ++i)
          x->b.push_back(round_to_format(y.b[t * y.batch * y.cols + i], f));
      }
    }
  } else if (auto* x = std::get_if<SparseWorkload>(&a)) {
    const auto& y = std::get<SparseWorkload>(b);
    const std::size_t keep = rng.below(x->pairs() + 1), from = rng.below(y.pairs() + 1);
    x->row_index.resize(keep);
    x->values.resize(keep * x->dim);
    for (std::size_t q = from; q < y.pairs() && x->pairs() < sparse_limits().max_pairs; ++q) {
      x->row_index.push_back(static_cast<std::uint32_t>(y.row_index[q] % x->rows));
      for (std::size_t d = 0; d < x->dim; ++d) x->values.push_back(round_to_format(y.values[q * y.dim + d % y.dim], f));
    }
    x->step_offsets.assign(1, 0);
    for (std::size_t t = 1; t <= x->steps; ++t) x->step_offsets.push_back(x->pairs() * t / x->steps);
  }
  conform_inputs(a);
  const std::vector<std::uint8_t> bytes = encode_input(a);
  const std::size_t n = std::min(bytes.size(), max_out_size);
  std::memcpy(out, bytes.data(), n);
  return n;
}

}  // namespace accucheck::fuzz
