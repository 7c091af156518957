#include "accucheck/check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

namespace accucheck {

std::vector<ExactSum> exact_sums(const DenseWorkload& w) {
  std::vector<ExactSum> sums;
  sums.reserve(w.elements);
  for (std::size_t j = 0; j < w.elements; ++j) sums.push_back(exact_element(w, j));
  return sums;
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

std::vector<double> run(const Backend& backend, const DenseWorkload& w, const RunOptions& options) {
  std::vector<double> result(w.elements, 0.0);
  backend.run_dense(w, result, options);
  return result;
}

}  // namespace

BackendOutcome run_and_judge(const Backend& backend, const DenseWorkload& w, const std::vector<ExactSum>& exact,
                             const RunOptions& options) {
  BackendOutcome outcome;
  std::vector<double> result;
  try {
    result = run(backend, w, options);
  } catch (const std::exception& e) {
    outcome.failure = e.what();
    outcome.worst = Verdict::backend_failed;
    return outcome;
  }
  outcome.elements.reserve(w.elements);
  for (std::size_t j = 0; j < w.elements; ++j) {
    ElementVerdict v = judge(backend.bound, backend.storage, exact[j], result[j]);
    if (j == 0 || severity(v.verdict) > severity(outcome.worst)) {
      outcome.worst = v.verdict;
      outcome.worst_element = j;
    }
    if (std::isfinite(v.ratio) && std::isfinite(v.bound) && !v.vacuous && v.precondition_met)
      outcome.max_ratio = std::max(outcome.max_ratio, v.ratio);
    outcome.max_abs_ulps = std::max(outcome.max_abs_ulps, v.ulps < 0 ? -v.ulps : v.ulps);
    outcome.elements.push_back(v);
  }
  return outcome;
}

std::string check_determinism(const Backend& backend, const DenseWorkload& w, ChoiceStream& s) {
  if (backend.determinism == Determinism::run_to_run_nondeterministic) return "";
  std::vector<double> reference;
  try {
    reference = run(backend, w, RunOptions{1, 0});
    for (unsigned threads : {1u, 2u, 4u}) {
      const auto again = run(backend, w, RunOptions{threads, threads});
      for (std::size_t j = 0; j < w.elements; ++j)
        if (!same_result_bits(again[j], reference[j])) {
          char text[200];
          std::snprintf(text, sizeof text, "element %zu: %a with threads=1, %a on a rerun with threads=%u", j,
                        reference[j], again[j], threads);
          return text;
        }
    }
    if (backend.determinism != Determinism::order_independent) return "";
    // Permute each element's addends (the initial value included), and pad with -0 steps.
    DenseWorkload permuted = w;
    std::vector<double> column;
    for (std::size_t j = 0; j < w.elements; ++j) {
      w.column(j, column);
      for (std::size_t i = column.size(); i > 1; --i) std::swap(column[i - 1], column[s.pick(i)]);
      permuted.initial[j] = column[0];
      for (std::size_t t = 0; t < w.steps; ++t) permuted.addends[t * w.elements + j] = column[t + 1];
    }
    const std::size_t padding = 1 + s.draw(3);
    permuted.steps += padding;
    permuted.addends.resize(permuted.steps * w.elements, -0.0);
    const auto shuffled = run(backend, permuted, RunOptions{});
    for (std::size_t j = 0; j < w.elements; ++j)
      if (!same_result_bits(shuffled[j], reference[j])) {
        char text[200];
        std::snprintf(text, sizeof text, "element %zu: %a in the given order, %a with its addends permuted and padded", j,
                      reference[j], shuffled[j]);
        return text;
      }
  } catch (const std::exception& e) {
    return std::string("backend failed while re-running: ") + e.what();
  }
  return "";
}

namespace {

DenseWorkload select_element(const DenseWorkload& w, std::size_t j) {
  DenseWorkload one = w;
  one.elements = 1;
  one.initial = {w.initial[j]};
  one.addends.resize(w.steps);
  for (std::size_t t = 0; t < w.steps; ++t) one.addends[t] = w.addend(t, j);
  return one;
}

DenseWorkload remove_steps(const DenseWorkload& w, std::size_t begin, std::size_t end) {
  DenseWorkload fewer = w;
  fewer.steps = w.steps - (end - begin);
  fewer.addends.erase(fewer.addends.begin() + static_cast<long>(begin * w.elements),
                      fewer.addends.begin() + static_cast<long>(end * w.elements));
  return fewer;
}

// Candidates simpler than v, simplest first: 0, then v with fewer significant bits, 1.
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
  if (std::signbit(v)) candidates.push_back(-v);  // positive is simpler
  return candidates;
}

}  // namespace

DenseWorkload shrink_workload(DenseWorkload w, const std::function<bool(const DenseWorkload&)>& still_fails,
                              std::size_t budget) {
  std::size_t calls = 0;
  auto fails = [&](const DenseWorkload& candidate) {
    if (calls >= budget) return false;
    ++calls;
    return still_fails(candidate);
  };
  // 1. One element.
  if (w.elements > 1)
    for (std::size_t j = 0; j < w.elements; ++j) {
      DenseWorkload one = select_element(w, j);
      if (fails(one)) {
        w = std::move(one);
        break;
      }
    }
  bool changed = true;
  while (changed && calls < budget) {
    changed = false;
    // 2. Fewer steps: remove chunks, halving their size (delta debugging).
    for (std::size_t chunk = std::max<std::size_t>(1, w.steps / 2); chunk >= 1 && calls < budget; chunk /= 2) {
      for (std::size_t begin = 0; begin + chunk <= w.steps && calls < budget;) {
        DenseWorkload fewer = remove_steps(w, begin, begin + chunk);
        if (fails(fewer)) {
          w = std::move(fewer);
          changed = true;
        } else {
          begin += chunk;
        }
      }
      if (chunk == 1) break;
    }
    // 3. Simpler values, the initial value first.
    auto simplify = [&](double& slot) {
      for (double candidate : simpler_values(slot, w.format)) {
        const double saved = slot;
        slot = candidate;
        if (fails(w)) {
          changed = true;
          return;
        }
        slot = saved;
      }
    };
    for (std::size_t j = 0; j < w.elements && calls < budget; ++j) simplify(w.initial[j]);
    for (std::size_t i = 0; i < w.addends.size() && calls < budget; ++i) simplify(w.addends[i]);
  }
  return w;
}

std::string describe_violation(const Backend& backend, const DenseWorkload& w, const BackendOutcome& outcome) {
  std::string text = "backend " + backend.name + " (" + backend.bound_text() + ", " +
                     std::string(name(backend.determinism)) + ") on " + std::to_string(w.elements) + " element(s) x " +
                     std::to_string(w.steps + 1) + " addends" + (w.family.empty() ? "" : " [" + w.family + "]") + "\n";
  if (!outcome.failure.empty()) return text + "  the backend failed: " + outcome.failure + "\n";
  if (outcome.elements.empty()) return text;
  const ElementVerdict& v = outcome.elements[outcome.worst_element];
  char line[512];
  std::snprintf(line, sizeof line,
                "  element %zu: verdict %s\n  exact     %-24.17g %s\n  computed  %-24.17g %s\n  RNE(S)    %-24.17g %s\n"
                "  error     %-24.17g\n  bound     %-24.17g%s%s\n  ratio     %.6g   ulps %lld   kappa %.6g\n",
                outcome.worst_element, std::string(name(v.verdict)).c_str(), v.exact, hex_float(v.exact).c_str(),
                v.computed, hex_float(v.computed).c_str(), v.correctly_rounded, hex_float(v.correctly_rounded).c_str(),
                v.error, v.bound, v.vacuous ? "  (vacuous)" : "", v.precondition_met ? "" : "  (precondition not met)",
                v.ratio, static_cast<long long>(v.ulps), v.kappa);
  return text + line;
}

}  // namespace accucheck
