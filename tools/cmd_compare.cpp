// accucheck compare [--cases N] [--seed S] [--backend GLOB]... [--n N]...
// The same budget with the adversarial generator families and with uniform random floats in
// [-1, 1] (the `uniform` family), side by side: the largest error/bound each reaches on each
// backend at each length n (docs/detection.md records the table; the mutants' cases-to-detect
// come from the property suite's mutant test, since planted bugs are not in the CLI).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "checking/families.h"
#include "checking/judge.h"
#include "cli.h"
#include "numerics/hash.h"

namespace accucheck::cli {
namespace {

struct Reach {
  double ratio = 0;         // max error/bound over elements whose bound is finite
  bool vacuous = false;     // that element's bound was vacuous (>= A)
  std::string family;       // the family (and order variant) that reached it
  std::uint64_t cases = 0;  // cases of exactly n addends that were judged
  std::uint64_t violations = 0;
};

// Runs `cases` cases of exactly n addends from the given families on the backend.
Reach reach(const Backend& b, std::size_t n, const std::vector<const Family*>& families, std::uint64_t cases,
            std::uint64_t seed) {
  GenerationLimits limits;
  limits.fixed_steps = n - 1;
  limits.max_steps = std::max<std::size_t>(limits.max_steps, n - 1);
  limits.max_long_steps = std::max<std::size_t>(limits.max_long_steps, n - 1);
  Reach r;
  for (std::uint64_t k = 0; r.cases < cases && k < 20 * cases; ++k) {
    SeededChoiceStream s(seed ^ (kSplitMix64Gamma * (k + 1)) ^ (n << 20));
    const Family* family = families[s.pick(families.size())];
    const Workload w = generate(s, b.storage, limits, WorkloadKind::dense, family);
    if (max_terms(w) != n) continue;  // near_cancelling and overflow_partials keep their shape
    ++r.cases;
    const BackendOutcome outcome = run_and_judge(b, w);
    if (outcome.violated()) ++r.violations;
    for (const ElementVerdict& v : outcome.elements)
      if (v.precondition_met && std::isfinite(v.bound) && v.bound > 0 && std::isfinite(v.ratio) && v.ratio > r.ratio) {
        r.ratio = v.ratio;
        r.vacuous = v.vacuous;
        r.family = family_of(w);
      }
  }
  return r;
}

std::string cell(const Reach& r) {
  char text[160];
  std::snprintf(text, sizeof text, "%.4f%s (%s)", r.ratio, r.vacuous ? " vacuous" : "",
                r.family.empty() ? "-" : r.family.c_str());
  return text;
}

}  // namespace

int compare_command(CommandLine& cl) {
  std::vector<std::string> globs;
  BackendSources plugins;
  std::vector<std::size_t> lengths;
  std::uint64_t cases = 200, seed = 1;
  cl.repeatable("--backend", globs, "GLOB",
                "the backends that run dense workloads among those matching (default naive_f32, naive_bf16)");
  cl.repeatable_option("--n", "N", "cases of exactly N addends, 2 to 10^7 (default 100 and 10000)",
                       [&](const std::string& text) { lengths.push_back(parse_count(text, "--n", 2, 10000000)); });
  cl.count("--cases", cases, "N", "cases per cell (default 200)", 1);
  cl.count("--seed", seed, "S", "the seed, 0 to 2^64-1 (default 1)");
  cl.plugins(plugins);
  if (!cl.parse()) return kExitOk;
  load_plugins(plugins);
  if (globs.empty()) globs = {"naive_f32", "naive_bf16"};
  if (lengths.empty()) lengths = {100, 10000};

  std::vector<const Backend*> backends;
  for (const auto& glob : globs) {
    const auto matched = Registry::global().match(glob);
    if (matched.empty()) throw UsageError("--backend '" + glob + "' matches no backend (see accucheck list)");
    for (const Backend* b : matched)
      if (b->supports(WorkloadKind::dense) && std::find(backends.begin(), backends.end(), b) == backends.end())
        backends.push_back(b);
  }
  if (backends.empty()) throw UsageError("no selected backend runs dense workloads");
  const std::vector<const Family*> adversarial = families_of(WorkloadKind::dense);
  const std::vector<const Family*> uniform = {find_family("uniform")};

  std::printf("max error/bound reached in %llu cases of exactly n addends per cell (seed %llu)\n\n",
              static_cast<unsigned long long>(cases), static_cast<unsigned long long>(seed));
  std::printf("%-22s %-24s %7s  %-44s %s\n", "backend", "stated bound", "n", "adversarial families", "uniform [-1, 1]");
  std::uint64_t violations = 0;
  for (const Backend* b : backends)
    for (std::size_t n : lengths) {
      const Reach a = reach(*b, n, adversarial, cases, seed);
      const Reach u = reach(*b, n, uniform, cases, seed);
      violations += a.violations + u.violations;
      std::printf("%-22s %-24s %7zu  %-44s %s\n", b->name.c_str(), b->bound_text().c_str(), n, cell(a).c_str(),
                  cell(u).c_str());
      std::fflush(stdout);
    }
  std::printf(
      "\n\"vacuous\": the bound is at least A there (no accuracy promised), so the ratio says little.\n"
      "Cases to detect each planted bug (adversarial vs uniform) are printed by the property suite:\n"
      "  ctest -L property -R MutantDetected --output-on-failure -V | grep DETECTION\n");
  if (violations)
    std::printf("%llu case(s) violated a stated bound: run accucheck check on these backends\n",
                static_cast<unsigned long long>(violations));
  return violations ? kExitViolation : kExitOk;
}

}  // namespace accucheck::cli
