#include "checking/climb.h"

#include <algorithm>
#include <cmath>

#include "numerics/format.h"

namespace accucheck {
namespace {

// x with one of its significand bits flipped (a neighbour in the format's encoding).
double flip_significand_bit(double x, Format f, ChoiceStream& s) {
  if (!std::isfinite(x)) return x;
  const int bit = static_cast<int>(s.draw(static_cast<std::uint64_t>(traits(f).precision - 2)));
  return decode(encode(x, f) ^ (std::uint64_t{1} << bit), f);
}

// x times 2^k, |k| in 1..4, when that is a finite value of the format; else x.
double shift_exponent(double x, Format f, ChoiceStream& s) {
  const int k = static_cast<int>(1 + s.draw(3)) * (s.coin() ? 1 : -1);
  const double y = std::ldexp(x, k);
  return std::isfinite(y) && representable(y, f) ? y : x;
}

// Element 0's terms of a one-element dense workload, and the workload holding `terms`.
std::vector<double> terms_of(const DenseWorkload& d) {
  std::vector<double> t;
  d.column(0, t);
  return t;
}
DenseWorkload with_terms(const DenseWorkload& d, const std::vector<double>& t) {
  DenseWorkload out{.format = d.format,
                    .elements = 1,
                    .steps = t.size() - 1,
                    .initial = {t[0]},
                    .addends = std::vector<double>(t.begin() + 1, t.end()),
                    .family = d.family,
                    .layout = d.layout,
                    .input_format = d.input_format};
  return out;
}

// One element whose terms (the initial value first) are t, in format f.
DenseWorkload one_element(Format f, const char* family, const std::vector<double>& t) {
  DenseWorkload d;
  d.format = f;
  d.family = family;
  return with_terms(d, t);
}

// Half an ulp of f at x, the increment a sum at x absorbs (or rounds to even): the stagnation
// move; the ulp itself where half of it is below the format's smallest subnormal.
double half_ulp(double x, Format f) {
  const double h = ulp(x, f) / 2;
  return representable(h, f) ? h : ulp(x, f);
}

// half_ulp at the naive running sum before position i.
double half_ulp_of_running_sum(const std::vector<double>& t, std::size_t i, Format f) {
  double running = 0;
  for (std::size_t k = 0; k < i; ++k) running = round_to_format(running + t[k], f);
  return half_ulp(running, f);
}

// A structural move on one element's terms (n = t.size() >= 1), within max_terms.
void reshape(std::vector<double>& t, Format f, ChoiceStream& s, std::size_t max_terms) {
  const std::size_t n = t.size();
  switch (s.draw(4)) {
    case 0:  // swap two terms
      if (n > 1) std::swap(t[s.pick(n)], t[s.pick(n)]);
      break;
    case 1: {  // move a term (the largest, half of the time) along the chain
      std::size_t from = s.pick(n);
      if (s.coin())
        from = static_cast<std::size_t>(
            std::max_element(t.begin(), t.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); }) -
            t.begin());
      const double x = t[from];
      t.erase(t.begin() + static_cast<long>(from));
      t.insert(t.begin() + static_cast<long>(s.pick(n)), x);
      break;
    }
    case 2: {  // split x into a + b, a = RN(x r) with r in [1/2, 1]: b = x - a is exact (Sterbenz)
      if (n >= max_terms) break;
      const std::size_t i = s.pick(n);
      const double x = t[i];
      if (!std::isfinite(x) || x == 0) break;
      const double a = round_to_format(x * (0.5 + static_cast<double>(s.draw(63)) / 128), f);
      const double b = x - a;
      if (!representable(b, f)) break;
      t[i] = a;
      t.insert(t.begin() + static_cast<long>(s.pick(n + 1)), b);
      break;
    }
    case 3: {  // grow: a copy of a term, or the half ulp the running sum absorbs there
      if (n >= max_terms) break;
      const std::size_t at = 1 + s.pick(n);
      const double x = s.coin() ? t[s.pick(n)] : half_ulp_of_running_sum(t, at, f) * (s.chance(1, 4) ? -1.0 : 1.0);
      t.insert(t.begin() + static_cast<long>(at), x);
      break;
    }
    default:  // drop a term (back from a long chain that no longer pays)
      if (n > 1) t.erase(t.begin() + static_cast<long>(s.pick(n)));
      break;
  }
}

// A structural move on a one-element product (rows = cols = 1: C and the pairs (a_tk, b_tk) of
// every step t): a batch column grown (a copy of a pair, or half an ulp of C times 1: the
// stagnation move of an FMA chain), dropped, or two swapped; within max_terms = 1 + T K.
ProductWorkload reshape(const ProductWorkload& p, Format f, ChoiceStream& s, std::size_t max_terms) {
  const std::size_t k_count = p.batch, steps = p.steps;
  std::vector<std::vector<std::pair<double, double>>> pairs(steps);  // per step, per batch column
  for (std::size_t t = 0; t < steps; ++t)
    for (std::size_t k = 0; k < k_count; ++k) pairs[t].emplace_back(p.a_at(t, 0, k), p.b_at(t, k, 0));
  switch (s.draw(2)) {
    case 0:
      if (1 + steps * (k_count + 1) > max_terms) break;
      // (FP8 inputs: a copied pair only; half an ulp of C is rarely an FP8 value.)
      for (auto& step : pairs)
        step.push_back(s.coin() || p.input_format ? step[s.pick(step.size())]
                                                  : std::pair{half_ulp(p.initial[0], f), 1.0});
      break;
    case 1:
      if (k_count > 1) {
        const std::size_t k = s.pick(k_count);
        for (auto& step : pairs) step.erase(step.begin() + static_cast<long>(k));
      }
      break;
    default: {
      const std::size_t i = s.pick(k_count), j = s.pick(k_count);
      for (auto& step : pairs) std::swap(step[i], step[j]);
      break;
    }
  }
  ProductWorkload out = p;  // its formats, initial value and family; the pairs' A and B below
  out.rows = out.cols = 1;
  out.batch = pairs[0].size();
  out.steps = steps;
  out.a.clear();
  out.b.clear();
  for (const auto& step : pairs)
    for (const auto& [a, b] : step) {
      out.a.push_back(a);
      out.b.push_back(b);
    }
  return out;
}

}  // namespace

Workload climb_mutation(const Workload& w, ChoiceStream& s, std::size_t max_terms) {
  const Format f = format_of(w);
  if (const auto* d = std::get_if<DenseWorkload>(&w); d && d->elements == 1 && s.coin()) {
    std::vector<double> t = terms_of(*d);
    reshape(t, f, s, std::max<std::size_t>(max_terms, 1));
    DenseWorkload out = with_terms(*d, t);
    conform_inputs(out);  // FP8 addends stay FP8 (the initial value may have moved among them)
    return out;
  }
  if (const auto* p = std::get_if<ProductWorkload>(&w); p && p->rows == 1 && p->cols == 1 && p->steps > 0 && s.coin())
    return reshape(*p, f, s, std::max<std::size_t>(max_terms, 1));
  Workload m = w;
  // Each value with its own format: FP8 inputs move by their own bits and binades, which the
  // storage format's would mostly leave unchanged once rounded back into FP8.
  std::vector<std::pair<double*, Format>> slots;
  for_each_value_array(m, [&](std::vector<double>& values) {
    const Format in = fp8_array_format(m, values).value_or(f);
    for (double& x : values) slots.emplace_back(&x, in);
  });
  if (slots.empty()) return m;
  // One value, or a few (a coordinated move), changed.
  for (std::uint64_t k = 1 + (s.chance(1, 4) ? s.draw(3) : 0); k > 0; --k) {
    auto [x, in] = slots[s.pick(slots.size())];
    switch (s.draw(2)) {
      case 0: *x = flip_significand_bit(*x, in, s); break;
      case 1: *x = shift_exponent(*x, in, s); break;
      default: *x = -*x; break;
    }
  }
  conform_inputs(m);
  return m;
}

std::vector<Workload> window_climb_seeds(const BoundExpr& bound, Format f, std::size_t max_terms) {
  std::vector<Workload> seeds;
  if (bound.kind == BoundKind::truncated_inputs) {
    // The inner bound's seeds, and products of inputs just below 1 + 2^(1-B): each truncated to
    // 1, so each product loses nearly 2^(2-B) of itself, the whole input term (docs/bounds.md
    // "Truncated inputs").
    seeds = window_climb_seeds(*bound.inner, f, max_terms);
    const double input = next_down(1.0 + std::ldexp(1.0, 1 - static_cast<int>(bound.count)), f);
    if (max_terms < 2 || input <= 1.0) return seeds;
    const std::size_t batch = std::min<std::size_t>(8, max_terms - 1);
    seeds.push_back(ProductWorkload{.format = f,
                                    .rows = 1,
                                    .cols = 1,
                                    .batch = batch,
                                    .steps = 1,
                                    .initial = {0.0},
                                    .a = std::vector<double>(batch, input),
                                    .b = std::vector<double>(batch, input),
                                    .family = "climb-seed",
                                    .input_format = std::nullopt,
                                    .b_input_format = std::nullopt});
    return seeds;
  }
  if (bound.kind != BoundKind::fused && bound.kind != BoundKind::fused_truncated &&
      bound.kind != BoundKind::fused_promoted)
    return seeds;
  const auto k = static_cast<std::size_t>(bound.count);
  const int w = static_cast<int>(bound.width);
  const bool promoted = bound.kind == BoundKind::fused_promoted;
  // Dense: 1 (E = 0), then K addends of q - ulp(q), q = 2^(1-W): all cut to zero. Promoted: the
  // chunk's chain starts from zero, so 1 leads the first step and 2K - 1 small ones follow.
  const double cut = std::ldexp(1.0, 1 - w);
  const double below_cut = next_down(cut, f);
  auto add_dense = [&](std::vector<double> terms) {
    if (terms.size() > max_terms || below_cut <= 0 || !representable(below_cut, f)) return;
    seeds.push_back(one_element(f, "climb-seed", terms));
  };
  if (promoted) {
    std::vector<double> terms{0.0, 1.0};
    terms.resize(2 * k + 1, below_cut);
    add_dense(terms);
  } else {
    std::vector<double> terms{1.0};
    terms.resize(k + 1, below_cut);
    add_dense(terms);
    // And the largest operand losing as much (where F has bits below the cut: p > W).
    if (const double largest = next_down(round_to_format(1.0 + cut, f), f); largest > 1.0) {
      terms[0] = largest;
      add_dense(terms);
      terms[0] = 1.0;
    }
    // Sums truncated to Q < W bits: one addend just below r = 2^(1-Q), the sum's grid at 1. The
    // window keeps r - q of it (losing nearly q), the truncation of 1 + r - q loses the rest: the
    // step loses nearly (K - 1) q + r, the tighter per-step bound (docs/bounds.md "Truncated
    // results").
    if (bound.result_bits != 0 && bound.result_bits < bound.width) {
      terms[1] = next_down(std::ldexp(1.0, 1 - static_cast<int>(bound.result_bits)), f);
      add_dense(terms);
    }
  }
  // Products with E4M3 inputs: C = 2^(W-12) (E = W - 12), products 1.125 2^-6 x 1.75 2^-6 =
  // 1.96875 2^-12 just below the cut 2^(E-W+1) = 2^-11. Promoted: C = 0, a first product 2^E.
  const int e = w - 12;
  if (e < 0 || e > 16 || !representable(std::ldexp(1.0, e), f)) return seeds;
  const std::size_t batch = promoted ? 2 * k : k;
  if (1 + batch > max_terms) return seeds;
  ProductWorkload p{.format = f,
                    .rows = 1,
                    .cols = 1,
                    .batch = batch,
                    .steps = 1,
                    .initial = {promoted ? 0.0 : std::ldexp(1.0, e)},
                    .a = std::vector<double>(batch, 1.125 * 0x1p-6),
                    .b = std::vector<double>(batch, 1.75 * 0x1p-6),
                    .family = "climb-seed",
                    .input_format = Format::e4m3,
                    .b_input_format = std::nullopt};
  if (promoted) {
    p.a[0] = std::ldexp(1.0, (e + 1) / 2);
    p.b[0] = std::ldexp(1.0, e / 2);
  }
  seeds.push_back(p);
  // Sums truncated to Q < W bits: a first product 2^(W-Q) times larger, just below the sum's grid
  // at C, 2^(E-Q+1), as the dense seed's addend just below r.
  if (!promoted && bound.result_bits != 0 && bound.result_bits < bound.width) {
    const double scaled = std::ldexp(p.a[0], w - static_cast<int>(bound.result_bits));
    if (representable(scaled, Format::e4m3)) {
      p.a[0] = scaled;
      seeds.push_back(std::move(p));
    }
  }
  return seeds;
}

Workload climb_start(Format f, ChoiceStream& s, std::size_t max_terms) {
  const int p = traits(f).precision;
  const std::size_t n = 3 + s.draw(std::max<std::size_t>(std::min<std::size_t>(12, max_terms), 3) - 3);
  std::vector<double> terms(n);
  for (double& x : terms) {
    const auto significand =
        static_cast<double>((std::uint64_t{1} << (p - 1)) | s.draw((std::uint64_t{1} << (p - 1)) - 1));
    const int binade = 1 - static_cast<int>(s.draw(static_cast<std::uint64_t>(p) + 12));
    x = round_to_format((s.draw(1) ? -1.0 : 1.0) * std::ldexp(significand, binade - (p - 1)), f);
  }
  return one_element(f, "climb-start", terms);
}

std::vector<Workload> climb_seeds(Format f, std::size_t n) {
  const auto& t = traits(f);
  n = std::max<std::size_t>(n, 3);
  std::vector<Workload> seeds;
  auto add = [&](std::vector<double> terms) {
    for (double x : terms)
      if (!representable(x, f)) return;
    seeds.push_back(one_element(f, "climb-seed", terms));
  };
  // Stagnation: 2^p, then n - 1 half ulps (each a tie, rounded to even: absorbed).
  const double big = std::ldexp(1.0, t.precision);
  add([&] {
    std::vector<double> v{big};
    v.resize(n, ulp(big, f) / 2);
    return v;
  }());
  // Masks of +-2^k among ones: 2^k swamps the ones that follow it, -2^k cancels it at the end.
  for (int k : {t.precision - 1, t.precision, t.precision + 1}) {
    if (k >= t.emax) continue;
    std::vector<double> v(n, 1.0);
    v[0] = std::ldexp(1.0, k);
    v[n - 1] = -std::ldexp(1.0, k);
    add(v);
    std::vector<double> alternating(n, 1.0);
    for (std::size_t i = 0; i < n; i += 4) alternating[i] = std::ldexp(i % 8 == 0 ? 1.0 : -1.0, k);
    add(alternating);
  }
  return seeds;
}

}  // namespace accucheck
