#include "engine/findings.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "io/case_file.h"
#include "numerics/hash.h"
#include "plugins/plugin_loader.h"

namespace accucheck {
namespace {

Finding from_property_failure(PropertyFailure&& f) {
  Finding finding;
  finding.property = f.property;
  finding.verdict = f.verdict;
  finding.label = std::move(f.label);
  finding.detail = std::move(f.detail);
  return finding;
}

std::string captured_output(const Backend& backend) { return backend.captured_output ? backend.captured_output() : ""; }

// What the properties compare against: the values of run_and_judge's run.
std::vector<double> computed_values(const BackendOutcome& outcome) {
  std::vector<double> result;
  result.reserve(outcome.elements.size());
  for (const ElementVerdict& v : outcome.elements) result.push_back(v.computed);
  return result;
}

}  // namespace

const std::vector<Property>& further_properties(const Backend& backend) {
  // property_exclusion builds its reasons as text: once per backend, not per workload. Keyed by
  // address and name (a test's local backend may reuse an address).
  static std::mutex mutex;
  static std::map<std::pair<const Backend*, std::string>, std::vector<Property>> cache;
  std::lock_guard lock(mutex);
  auto key = std::make_pair(&backend, backend.name + "\n" + backend.bound_text());
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::vector<Property> list;
  for (Property p : all_properties)
    if (p != Property::stated_bound && p != Property::special_values && property_applies(p, backend)) list.push_back(p);
  return cache.emplace(std::move(key), std::move(list)).first->second;
}

std::optional<Finding> oracle_finding(const Workload& w, const std::vector<ExactSum>& exact) {
  std::string problem = exact_sums_disagreement(w, exact);
  if (problem.empty()) return std::nullopt;
  Finding f;
  f.label = "oracle-disagreement";
  f.detail = std::move(problem);
  return f;
}

std::optional<Finding> stated_bound_finding(const Backend& backend, const BackendOutcome& outcome, std::string detail) {
  if (!outcome.violated()) return std::nullopt;
  Finding f;
  f.property = Property::stated_bound;
  f.verdict = outcome.worst;
  f.label = std::string(name(outcome.worst));
  f.detail = std::move(detail);
  if (outcome.failure.empty())
    f.element = outcome.worst_element;
  else
    f.failure = outcome.failure_kind;
  f.backend_output = captured_output(backend);
  return f;
}

namespace {

// Property p on the result the stated bound's run computed (exact sums: given, or computed a
// block at a time where p needs them).
std::optional<Finding> property_finding(Property p, const Backend& backend, const Workload& w,
                                        const std::vector<double>& result, const std::vector<ExactSum>* exact) {
  auto failure = exact ? check_property(p, backend, w, *exact, &result) : check_property(p, backend, w, &result);
  if (!failure) return std::nullopt;
  Finding f = from_property_failure(std::move(*failure));
  f.backend_output = captured_output(backend);
  return f;
}

}  // namespace

std::vector<Finding> further_findings(const Backend& backend, const Workload& w, const std::vector<double>& result,
                                      const std::vector<ExactSum>* exact) {
  std::vector<Finding> found;
  for (Property p : further_properties(backend))
    if (auto f = property_finding(p, backend, w, result, exact)) found.push_back(std::move(*f));
  return found;
}

Judgement find_violations(const Backend& backend, const Workload& w, const std::vector<ExactSum>& exact,
                          const FindingPolicy& policy) {
  if (!backend.runs(w)) throw std::invalid_argument(backend.why_not(w));
  Judgement j;
  if (policy.cross_check_oracle)
    if (auto f = oracle_finding(w, exact)) {
      j.findings.push_back(std::move(*f));
      return j;  // the verdicts would stand on a wrong oracle
    }
  j.outcome = run_and_judge(backend, w, exact);
  const bool bound_checked =
      !policy.only || *policy.only == Property::stated_bound || *policy.only == Property::special_values;
  if (bound_checked)
    if (auto f = stated_bound_finding(backend, j.outcome, describe_violation(backend, w, j.outcome))) {
      if (policy.only) f->property = *policy.only;
      j.findings.push_back(std::move(*f));
    }
  if (!j.outcome.failure.empty()) return j;  // no result to compare the properties with
  if (policy.only && !bound_checked) {
    if (!property_applies(*policy.only, backend))
      throw std::invalid_argument(std::string(name(*policy.only)) + " does not apply to " + backend.name + ": " +
                                  property_exclusion(*policy.only, backend));
    if (auto f = property_finding(*policy.only, backend, w, computed_values(j.outcome), &exact))
      j.findings.push_back(std::move(*f));
  } else if (!policy.only && policy.further_properties) {
    const std::vector<double> result = computed_values(j.outcome);
    for (auto& f : further_findings(backend, w, result, &exact)) j.findings.push_back(std::move(f));
  }
  return j;
}

bool still_shows(const Backend& backend, const Workload& candidate, const Finding& finding, bool cross_check_oracle) {
  if (!validate(candidate).empty() || !backend.runs(candidate)) return false;
  const std::vector<ExactSum> exact = exact_sums(candidate);
  if (finding.label == "oracle-disagreement") return oracle_finding(candidate, exact).has_value();
  FindingPolicy policy;
  policy.only = finding.property;
  policy.cross_check_oracle = cross_check_oracle;
  for (const Finding& f : find_violations(backend, candidate, exact, policy).findings)
    if (f.label == finding.label) return true;
  return false;
}

Workload minimize_finding(const Backend& backend, const Workload& w, const Finding& finding, std::size_t budget,
                          bool cross_check_oracle) {
  if (finding.failure == FailureKind::timeout) return w;  // a backend that hangs is not re-run hundreds of times
  const auto shows = [&](const Workload& candidate) {
    try {
      return still_shows(backend, candidate, finding, cross_check_oracle);
    } catch (const PluginDeadlineReached&) {
      return false;  // the campaign's time is up: the smallest case so far is written
    }
  };
  Workload start = w;
  if (finding.element && element_count(w) > 1) {
    Workload one = element_alone(w, *finding.element);
    if (shows(one)) start = std::move(one);
  }
  return shrink_workload(std::move(start), shows, budget);
}

std::string write_finding(const std::string& directory, const Backend& backend, const Finding& finding,
                          const Workload& minimal, const Provenance& provenance) {
  CaseFile c;
  c.workload = minimal;
  c.backend = backend.name;
  c.bound = backend.bound_text();
  c.verdict = finding.label;
  c.seed = provenance.seed;
  c.found_by = provenance.found_by;
  c.note =
      (finding.property == Property::stated_bound ? "" : "property " + std::string(name(finding.property)) + ": ") +
      finding.detail;
  if (!finding.backend_output.empty()) c.note += "  the backend wrote to its output: " + finding.backend_output + "\n";
  const std::string json = case_to_json(c);
  char suffix[40];
  std::snprintf(suffix, sizeof suffix, "_%016llx.json", static_cast<unsigned long long>(fnv1a(json)));
  std::filesystem::create_directories(directory);
  const std::string path = (std::filesystem::path(directory) / (backend.name + "_" + finding.label + suffix)).string();
  write_file_atomically(path, json);
  return path;
}

}  // namespace accucheck
