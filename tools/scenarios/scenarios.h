// Incident scenarios (`accucheck scenario NAME`): each replays one real accumulation incident
// (../shared/INCIDENTS.md, docs/scenarios.md) with its shapes and magnitudes through the
// registered backends (and, where the incident's own kernel was wrong, a replica of that
// kernel), judges every element against the stated bound with the exact oracle, measures how
// far the accumulation paths diverge from each other, and says in one sentence what happened.
//
// The results are data (verdicts, divergences, named figures), so that tests assert the
// stories rather than the printed text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "checking/backend.h"
#include "checking/choice.h"
#include "checking/judge.h"

namespace accucheck::scenarios {

// One accumulation path's result for one tensor, judged element by element.
struct PathResult {
  std::string path;     // the path's name in the story: "add", "manual", "fp16 accumulation", ...
  std::string tensor;   // "dense1_weight", "embedding0_weight@32", ...
  std::string backend;  // a registered backend, or the incident's kernel ("... (replica)")
  std::string bound;    // the bound the backend states
  Format format = Format::f32;
  std::vector<std::size_t> shape;
  std::vector<double> values;  // the computed tensor
  BackendOutcome outcome;      // verdict of every element
  std::size_t shown = 0;       // the element the table shows: worst verdict, then largest error/bound, then error

  std::size_t count(Verdict v) const;
  const ElementVerdict& shown_element() const { return outcome.elements.at(shown); }
};

// How far two paths' tensors are apart (path b measured against path a, as the reporter of
// mxnet-16686 did: |b - a| / |a| over the elements where a != 0, computed in the tensors'
// own arithmetic for f32, in double otherwise).
struct Divergence {
  std::string tensor, a, b;
  double max_relative = 0;  // max |b - a| / |a| over a != 0
  double max_absolute = 0;  // max |b - a|
  std::size_t elements = 0, differing = 0;
  std::size_t only_a_zero = 0, only_b_zero = 0;  // elements where exactly one path is 0
};

struct Figure {
  std::string name;
  double value = 0;
  std::string note;
};

// Built with designated initializers ({.name = ..., .title = ..., .provenance = {...}}); every
// member has a default, so the ones a scenario fills later may be left out.
struct ScenarioResult {
  std::string name{}, title{};
  std::string story{};                    // one plain sentence: what happened
  std::vector<std::string> provenance{};  // what is real, what is reconstructed
  std::vector<PathResult> paths{};
  std::vector<Divergence> divergences{};
  std::vector<Figure> figures{};
  double seconds = 0;

  // Throw std::out_of_range when absent (a test asking for a path the scenario lacks fails).
  const PathResult& path(std::string_view path, std::string_view tensor) const;
  const Divergence& divergence(std::string_view tensor, std::string_view a, std::string_view b) const;
  double figure(std::string_view name) const;
};

struct Scenario {
  std::string_view name;
  std::string_view summary;
  ScenarioResult (*run)();
};

// Every scenario, in a fixed order.
const std::vector<Scenario>& all();
const Scenario* find(std::string_view name);
// printf into a string of whatever length the text needs (a scenario's story).
std::string formatted(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Runs one scenario and records its wall time.
ScenarioResult run(const Scenario& s);

// ---- building blocks of the scenario files -------------------------------------------------

const Backend& registered(std::string_view name);  // throws std::runtime_error when absent
PathResult run_path(std::string path, std::string tensor, const Backend& backend, const Workload& w,
                    const std::vector<ExactSum>& exact, std::vector<std::size_t> shape, const RunOptions& options = {});
Divergence diverge(const PathResult& a, const PathResult& b);
// Figures "<tensor>.<path>.normwise_error" (max |computed - S| / max |S| over the elements),
// ".max_relative_error" and ".median_relative_error" (|computed - S| / |S|, S != 0) and
// ".max_bound_ratio" (max error / bound where the bound is defined).
void error_figures(ScenarioResult& r, const PathResult& p);

// Standard normal draws (Box-Muller) from a seeded choice stream: reconstructed data, the same on
// every machine.
class Normal {
 public:
  explicit Normal(std::uint64_t seed) : stream_(seed) {}
  double operator()();

 private:
  SeededChoiceStream stream_;
};

// ---- output --------------------------------------------------------------------------------

std::string to_text(const ScenarioResult& r);
std::string to_json(const ScenarioResult& r);
// Writes every path's tensor as DIR/<path>_<tensor>.npy (the path and tensor names with
// characters other than letters, digits, '-' and '_' replaced by '_'), in the backend's
// storage format and the tensor's shape; returns the files written.
std::vector<std::string> dump(const ScenarioResult& r, const std::string& directory);
std::string file_stem(const PathResult& p);

}  // namespace accucheck::scenarios
