#include "checking/properties.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <new>
#include <set>
#include <stdexcept>

#include "checking/bounds/kind.h"

namespace accucheck {

namespace {

// Why a bound kind (and its inner bounds) rules out the metamorphic properties; "" if it does not.
// The reasons are the kinds' own (bounds/kind.h BoundKindSpec).
std::string metamorphic_exclusion(const BoundExpr& b, bool scaling) {
  const bounds::BoundKindSpec& kind = bounds::spec(b.kind);
  if (!kind.facts.metamorphic_exclusion.empty()) return std::string(kind.facts.metamorphic_exclusion);
  if (scaling && !kind.facts.scaling_exclusion.empty()) return std::string(kind.facts.scaling_exclusion);
  if (b.inner) return metamorphic_exclusion(*b.inner, scaling);
  return "";
}

std::string header(const Backend& b, const Workload& w) {
  return "backend " + b.name + " (" + b.bound_text() + ", " + std::string(name(b.determinism)) + ") on " +
         describe_shape(w) + "\n";
}

PropertyFailure failure(Property p, Verdict v, std::string label, std::string detail) {
  PropertyFailure f;
  f.property = p;
  f.verdict = v;
  f.label = std::move(label);
  f.detail = std::move(detail);
  return f;
}

// Runs the backend; nullopt with *error set when it throws.
std::optional<std::vector<double>> try_run(const Backend& b, const Workload& w, std::string* error) {
  std::vector<double> result(element_count(w), 0.0);
  try {
    b.run(w, result, RunOptions{});
  } catch (const std::bad_alloc&) {
    throw;  // accucheck itself is out of memory: not a failure of the backend
  } catch (const std::exception& e) {
    *error = e.what();
    return std::nullopt;
  }
  return result;
}

std::string values_line(const char* what, double value) {
  char text[160];
  std::snprintf(text, sizeof text, "  %-22s %-24.17g %s\n", what, value, hex_float(value).c_str());
  return text;
}

PropertyFailure backend_failed(Property p, const Backend& b, const Workload& w, const std::string& error,
                               const std::string& on = "") {
  return failure(
      p, Verdict::backend_failed, "backend-failed",
      header(b, w) + "  the backend failed" + (on.empty() ? "" : " on the " + on + " workload") + ": " + error + "\n");
}

// Compares a run of `transformed` with the result of w (`original`, run once by the caller
// however many transforms it checks), element by element: `expected(original[j])` is wanted.
template <class Expected, class Same>
std::optional<PropertyFailure> compare_runs(Property p, const Backend& b, const Workload& w,
                                            const std::vector<double>& original, const Workload& transformed,
                                            const std::string& transform, Expected expected, Same same) {
  std::string error;
  const auto changed = try_run(b, transformed, &error);
  if (!changed) return backend_failed(p, b, w, error, transform);
  for (std::size_t j = 0; j < original.size(); ++j) {
    const double want = expected(original[j]);
    if (!same((*changed)[j], want)) {
      std::string text = header(b, w) + "  " + transform + ": element " + std::to_string(j) + "\n";
      text += values_line("result(w)", original[j]);
      text += values_line(("result(" + transform + ")").c_str(), (*changed)[j]);
      text += values_line("expected", want);
      return failure(p, Verdict::metamorphic_mismatch, std::string(name(p)) + "-mismatch", text);
    }
  }
  return std::nullopt;
}

bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b;  // +0 == -0
}

// The exponent of the lowest set bit of a finite nonzero x, from its fields: |x| is
// significand * 2^(biased - 1075), or significand * 2^-1074 when subnormal (biased = 0).
int lowest_bit_exponent(double x) {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  if (biased == 0) return -1074 + std::countr_zero(fraction);
  return biased - 1075 + std::countr_zero(fraction | (std::uint64_t{1} << 52));
}

// The values scaled() and negated() transform, in every kind (a product's A, not its B).
template <class W, class F>  // W: Workload or const Workload
void for_each_scaled_value(W& w, F f) {
  for_each_value_array(
      w,
      [&](auto& values) {
        for (auto& x : values) f(x);
      },
      /*with_b=*/false);
}

}  // namespace

std::string property_exclusion(Property p, const Backend& b) {
  switch (p) {
    case Property::stated_bound:
    case Property::special_values: return "";
    case Property::correctly_rounded:
      return b.bound.kind == BoundKind::correctly_rounded ? "" : "states " + b.bound_text() + ", not correctly_rounded";
    case Property::determinism:
      return b.determinism == Determinism::run_to_run_nondeterministic
                 ? "run-to-run-nondeterministic: only the bound is promised"
                 : "";
    case Property::scaling:
    case Property::negation:
      if (b.determinism == Determinism::run_to_run_nondeterministic)
        return "run-to-run-nondeterministic: two runs may combine in different orders";
      for (const auto& exemption : b.exemptions)
        if (exemption.property == p) return exemption.reason;
      return metamorphic_exclusion(b.bound, p == Property::scaling);
  }
  return "unknown property";
}

namespace {

// A power-of-two ceiling of A over the elements whose sums are given: max of floor(log2 A) + 1
// (from the fixed-point integer: an f64 workload's A may exceed the double range); INT_MIN
// when every A is 0.
int log2_abs_sum_ceiling(const std::vector<ExactSum>& exact, int so_far = std::numeric_limits<int>::min()) {
  for (const ExactSum& e : exact)
    if (e.abs_sum != 0) so_far = std::max(so_far, static_cast<int>(mp::msb(e.abs_sum)) - fixed_scale + 1);
  return so_far;
}

// exact_scaling_range with the exact sums' part, log2_a_ceiling(), called only when needed.
template <class Log2ACeiling>
std::optional<ScalingRange> scaling_range(const Backend& b, const Workload& w, Log2ACeiling log2_a_ceiling) {
  std::set<Format> formats = {b.storage, b.accumulation, format_of(w)};
  for (Format f : bound_formats(b.bound)) formats.insert(f);

  // Every value that is scaled, and every term (products exactly, as the oracle forms them).
  bool finite = true, any_nonzero = false;
  int lowest = 0;
  double largest_value = 0;
  auto see = [&](double x) {
    if (!std::isfinite(x)) {
      finite = false;
      return;
    }
    if (x == 0) return;
    const int e = lowest_bit_exponent(x);
    lowest = any_nonzero ? std::min(lowest, e) : e;
    any_nonzero = true;
  };
  for_each_scaled_value(w, [&](double x) {
    see(x);
    if (std::isfinite(x)) largest_value = std::max(largest_value, std::fabs(x));
  });
  std::vector<double> terms;
  std::uint64_t n = 1;
  if (const auto* d = std::get_if<DenseWorkload>(&w)) {
    n = d->steps + 1;  // a dense element's terms are its initial value and addends: seen above
  } else if (std::holds_alternative<SparseWorkload>(w)) {
    n = max_terms(w);  // so are a sparse element's (gathering each element's would cost O(elements x pairs))
  } else {
    for (std::size_t e = 0; e < element_count(w) && finite; ++e) {
      element_terms(w, e, terms);
      n = std::max<std::uint64_t>(n, terms.size());
      for (double x : terms) see(x);
    }
  }
  if (!finite) return std::nullopt;
  if (!any_nonzero) return ScalingRange{-64, 64};  // zeros scale to zeros

  // A over the worst element, as a power-of-two ceiling.
  int log2_a = log2_a_ceiling();
  if (largest_value > 0) log2_a = std::max(log2_a, std::ilogb(largest_value) + 1);

  ScalingRange r{std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
  for (Format f : formats) {
    const auto& t = traits(f);
    r.low = std::max(r.low, (t.emin - t.precision + 1) - lowest);
    // log2 M = 2 + (n-1) log2(1+u) <= 2 + (n-1) u log2(e), rounded up (with margin for the
    // double evaluation).
    const double growth =
        2.0 + static_cast<double>(n - 1) * std::ldexp(1.0, -t.precision) * 1.4426950408889634 * (1 + 1e-9);
    r.high = std::min(r.high, t.emax - log2_a - static_cast<int>(std::ceil(growth)));
  }
  // A fused_truncated bound's sums live on a grid of Q bits, whose spacing below 2^emin,
  // 2^(emin-Q+1), is coarser than its format's: values finer than it do not scale through it.
  if (b.bound.result_bits != 0)  // fused_truncated, fused_promoted(K,W,N,Q,F)
    r.low = std::max(r.low, traits(b.bound.format).emin - static_cast<int>(b.bound.result_bits) + 1 - lowest);
  // Normal inputs only (TF32's truncation): the scaled A stays normal.
  if (const auto* p = std::get_if<ProductWorkload>(&w); p && b.normal_inputs_only) {
    const int lowest_normal = std::ilogb(smallest_normal(p->a_inputs()));
    for (double a : p->a)
      if (a != 0 && std::isfinite(a)) r.low = std::max(r.low, lowest_normal - std::ilogb(a));
  }
  // FP8 inputs: the scaled values stay in their format (2^k |x| at most the largest finite
  // value, its lowest bit at or above the smallest subnormal): a product workload's A (the one
  // operand scaled), a dense workload's addends, a sparse one's values.
  auto stay_in = [&r](const std::vector<double>& values, Format in) {
    const double top = largest_finite(in);
    const int lowest_in = std::ilogb(smallest_subnormal(in));
    for (double x : values) {
      if (x == 0 || !std::isfinite(x)) continue;
      int k = std::ilogb(top) - std::ilogb(x);
      if (std::ldexp(std::fabs(x), k) > top) --k;
      r.high = std::min(r.high, k);
      r.low = std::max(r.low, lowest_in - lowest_bit_exponent(x));
    }
  };
  if (const auto* p = std::get_if<ProductWorkload>(&w); p && p->input_format) stay_in(p->a, p->a_inputs());
  if (const auto* d = std::get_if<DenseWorkload>(&w); d && d->input_format) stay_in(d->addends, *d->input_format);
  if (const auto* sp = std::get_if<SparseWorkload>(&w); sp && sp->input_format) stay_in(sp->values, *sp->input_format);
  if (r.low > 0 || r.high < 0) return std::nullopt;
  return r;
}

}  // namespace

std::optional<ScalingRange> exact_scaling_range(const Backend& b, const Workload& w) {
  // The exact sums a block at a time: memory O(block) for wide workloads.
  return scaling_range(b, w, [&] {
    const ExactSumRanges ranges(w);
    std::vector<ExactSum> block;
    int log2_a = std::numeric_limits<int>::min();
    for (std::size_t begin = 0, n = element_count(w); begin < n; begin += kJudgeBlock) {
      ranges.sums(begin, std::min(n, begin + kJudgeBlock), block);
      log2_a = log2_abs_sum_ceiling(block, log2_a);
    }
    return log2_a;
  });
}

std::optional<ScalingRange> exact_scaling_range(const Backend& b, const Workload& w,
                                                const std::vector<ExactSum>& exact) {
  return scaling_range(b, w, [&] { return log2_abs_sum_ceiling(exact); });
}

std::vector<int> scaling_exponents(const ScalingRange& range) {
  std::vector<int> ks;
  auto add = [&](int k) {
    if (k != 0 && k >= range.low && k <= range.high && std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
  };
  add(range.low);
  add(range.high);
  add(-1);
  add(1);
  if (range.high > range.low) {
    SeededChoiceStream s(0x5ca1ab1e);
    add(range.low + static_cast<int>(s.draw(static_cast<std::uint64_t>(range.high - range.low))));
  }
  return ks;
}

Workload scaled(const Workload& w, int k) {
  Workload out = w;
  if (k >= -1022 && k <= 1023) {
    // A product with the exact power 2^k is correctly rounded, so it equals ldexp(x, k)
    // (exact where the range allows, the same rounding otherwise) without a libm call per value.
    const double power = std::ldexp(1.0, k);
    for_each_scaled_value(out, [&](double& x) { x *= power; });
  } else {
    for_each_scaled_value(out, [&](double& x) { x = std::ldexp(x, k); });
  }
  return out;
}

Workload negated(const Workload& w) {
  Workload out = w;
  for_each_scaled_value(out, [&](double& x) { x = -x; });
  return out;
}

namespace {

// check_property with w's exact sums given (`exact`) or not (nullptr): then only the properties
// that need them compute them, and scaling a block at a time.
std::optional<PropertyFailure> check_property_with(Property p, const Backend& b, const Workload& w,
                                                   const std::vector<ExactSum>* exact,
                                                   const std::vector<double>* given) {
  // The backend's result on w: the caller's, or one run here.
  std::string error;
  std::optional<std::vector<double>> own;
  auto result_on_w = [&]() -> const std::vector<double>* {
    if (given) return given;
    own = try_run(b, w, &error);
    return own ? &*own : nullptr;
  };
  if (!b.runs(w)) throw std::invalid_argument(b.why_not(w));
  switch (p) {
    case Property::stated_bound:
    case Property::special_values: {
      const BackendOutcome outcome = exact ? run_and_judge(b, w, *exact) : run_and_judge(b, w);
      if (!outcome.violated()) return std::nullopt;
      return failure(p, outcome.worst, std::string(name(outcome.worst)), describe_violation(b, w, outcome));
    }
    case Property::correctly_rounded: {
      const auto* result = result_on_w();
      if (!result) return backend_failed(p, b, w, error);
      // Without the sums given, a block of them at a time (memory O(block), replay of wide cases).
      const ExactSumRanges ranges(w);
      std::vector<ExactSum> block;
      for (std::size_t begin = 0; begin < result->size(); begin += kJudgeBlock) {
        const std::size_t end = std::min(result->size(), begin + kJudgeBlock);
        if (!exact) ranges.sums(begin, end, block);
        for (std::size_t j = begin; j < end; ++j) {
          const ExactSum& sum = exact ? (*exact)[j] : block[j - begin];
          const double want = sum.rounded(b.storage);
          if (!same_result_bits((*result)[j], want)) {
            std::string text = header(b, w) + "  element " + std::to_string(j) + ": not RNE(S)\n";
            text += values_line("computed", (*result)[j]);
            text += values_line("RNE(S)", want);
            text += "  exact S  " + fixed_hex(sum.sum) + "\n";
            return failure(p, Verdict::not_correctly_rounded, std::string(name(Verdict::not_correctly_rounded)), text);
          }
        }
      }
      return std::nullopt;
    }
    case Property::determinism: {
      SeededChoiceStream order(0xd37e5a11);  // fixed: the check is a function of the workload
      const std::string mismatch = check_determinism(b, w, order, given);
      if (mismatch.empty()) return std::nullopt;
      return failure(p, Verdict::nondeterministic, std::string(name(Verdict::nondeterministic)),
                     header(b, w) + "  " + mismatch + "\n");
    }
    case Property::scaling:
    case Property::negation: {
      std::optional<ScalingRange> range;
      if (p == Property::scaling) {
        range = exact ? exact_scaling_range(b, w, *exact) : exact_scaling_range(b, w);
        if (!range) return std::nullopt;  // the precondition fails: nothing is promised
      }
      const auto* original = result_on_w();  // once, for every transform below
      if (!original) return backend_failed(p, b, w, error);
      if (p == Property::negation)
        return compare_runs(
            p, b, w, *original, negated(w), "-w", [](double x) { return -x; }, same_value);
      for (int k : scaling_exponents(*range)) {
        auto found = compare_runs(
            p, b, w, *original, scaled(w, k), "2^" + std::to_string(k) + " w",
            [k](double x) { return std::ldexp(x, k); }, same_result_bits);
        if (found) return found;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<PropertyFailure> check_property(Property p, const Backend& b, const Workload& w,
                                              const std::vector<ExactSum>& exact, const std::vector<double>* given) {
  return check_property_with(p, b, w, &exact, given);
}

std::optional<PropertyFailure> check_property(Property p, const Backend& b, const Workload& w,
                                              const std::vector<double>* given) {
  return check_property_with(p, b, w, nullptr, given);
}

Workload generate_for_property(Property p, const Backend& b, WorkloadKind kind, ChoiceStream& s,
                               const GenerationLimits& limits, const Family* family) {
  if (family && family->kind != kind)
    throw std::invalid_argument("family " + std::string(family->name) + " makes " + std::string(name(family->kind)) +
                                " workloads, not " + std::string(name(kind)));
  if (b.fp8_inputs_only && kind == WorkloadKind::product) {  // FP8 tensor-core models: FP8 inputs, specials among them
    if (family && family->name != std::string_view("gemm_fp8_inputs"))
      throw std::invalid_argument(b.name + " takes FP8 inputs only: family gemm_fp8_inputs, not " +
                                  std::string(family->name));
    family = find_family("gemm_fp8_inputs");
  }
  if (!family && p == Property::special_values) family = special_values_family(kind);
  Workload w = generate(s, b.storage, limits, kind, family);
  if (auto* product = std::get_if<ProductWorkload>(&w); product && b.normal_inputs_only)
    flush_subnormal_inputs(*product);
  return w;
}

}  // namespace accucheck
