// accucheck characterize (characterize.h): each length probed (length_probe.h), one model chosen for
// the backend, the bound derived (derivation.h) and compared with the stated one, a witness
// against a contradicted bound confirmed, and a campaign with the derived bounds. The method and
// its costs: docs/characterize.md.
#include "characterize/characterize.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "characterize/derivation.h"
#include "characterize/length_probe.h"
#include "characterize/probe.h"
#include "checking/judge.h"
#include "engine/findings.h"
#include "numerics/fast_exact.h"
#include "numerics/hash.h"

namespace accucheck {

using namespace characterization;

std::string_view name(Relation r) {
  switch (r) {
    case Relation::equal: return "equal";
    case Relation::tighter: return "tighter";
    case Relation::looser: return "looser";
    case Relation::contradicted: return "contradicted";
    case Relation::undetermined: return "undetermined";
  }
  return "?";
}

const std::vector<std::size_t>& default_characterize_lengths() {
  static const std::vector<std::size_t> lengths{2, 3, 5, 8, 9, 16, 17, 32, 33, 64, 65, 100, 256, 257, 1024, 1025, 4096};
  return lengths;
}

Backend with_bound(const Backend& backend, const std::string& bound) {
  Backend copy = backend;
  std::string error;
  auto parsed = parse_bound(bound, &error);
  if (!parsed) throw std::invalid_argument(error);
  copy.bound = std::move(*parsed);
  return copy;
}

namespace {

// The first witness (the structure's own first) whose columns violate the stated bound: judged
// in-process on the results the probes already have, confirmed by running it again through the
// finding pipeline, minimized, written as a case file when a directory is given.
bool contradicting_witness(const Backend& backend, const Prober& prober, LengthCharacterization& r,
                           const std::vector<Witness>& witnesses, const CharacterizeOptions& options) {
  const bool with_terms = bound_needs_terms(backend.bound);
  for (const auto& w : witnesses) {
    const std::size_t width = w.width ? w.width : prober.batch(r.n);
    // The columns as they ran: one call's worth around the first that violates, padded to the width.
    std::vector<std::vector<double>> columns = w.columns;
    if (!w.results.empty()) {
      std::optional<std::size_t> violating;
      for (std::size_t c = 0; c < w.columns.size() && c < w.results.size() && !violating; ++c) {
        const ExactSum exact = fast_exact_sum(w.columns[c]);
        if (is_violation(judge(backend.bound, backend.storage, exact, w.results[c],
                               with_terms ? std::span<const double>(w.columns[c]) : std::span<const double>())
                             .verdict))
          violating = c;
      }
      if (!violating) continue;
      const std::size_t first = w.columns.size() == 1 ? *violating : *violating / width * width;
      columns.assign(w.columns.begin() + static_cast<std::ptrdiff_t>(first),
                     w.columns.begin() + static_cast<std::ptrdiff_t>(std::min(w.columns.size(), first + width)));
      columns.resize(width, std::vector<double>(r.n, 0.0));
    }
    const Workload workload = prober.workload(r.n, columns);
    Judgement j;
    try {
      FindingPolicy policy;
      policy.further_properties = false;
      j = find_violations(backend, workload, exact_sums(workload), policy);
    } catch (const std::exception&) {
      continue;  // the time is up (PluginDeadlineReached) and the like: not a witness
    }
    if (!j.violated()) continue;
    const Finding& finding = j.findings.front();
    std::string detail = w.what + ": " + finding.label;
    if (!j.outcome.failure.empty()) {
      detail += " (" + j.outcome.failure + ")";
    } else if (!j.outcome.elements.empty()) {
      const ElementVerdict& v = j.outcome.elements[j.outcome.worst_element];
      char text[240];
      std::snprintf(text, sizeof text, " at element %zu (computed %s, exact %s, error %.6g, bound %.6g)",
                    j.outcome.worst_element, hex_float(v.computed).c_str(), hex_float(v.exact).c_str(), v.error,
                    v.bound);
      detail += text;
    }
    r.relation = Relation::contradicted;
    r.relation_reason = "a witness built from the revealed structure violates the stated bound: " + detail;
    if (!options.findings_dir.empty()) {
      const Workload minimal = minimize_finding(backend, workload, finding, 500);
      r.witness =
          write_finding(options.findings_dir, backend, finding, minimal, Provenance{options.found_by, std::nullopt});
    }
    return true;
  }
  return false;
}

}  // namespace

BackendCharacterization characterize(const Backend& backend, const CharacterizeOptions& options) {
  BackendCharacterization out;
  out.backend = backend.name;
  out.origin = backend.origin;
  out.stated_bound = backend.bound_text();
  out.stated_determinism = std::string(name(backend.determinism));
  out.storage = backend.storage;
  out.accumulation = backend.accumulation;
  const auto start = Clock::now();

  WorkloadKind kind = WorkloadKind::dense;
  if (options.kind)
    kind = *options.kind;
  else if (!backend.supports(WorkloadKind::dense))
    kind = backend.supports(WorkloadKind::sparse) ? WorkloadKind::sparse : WorkloadKind::product;
  if (!backend.supports(kind))
    throw std::invalid_argument(backend.name + " does not run " + std::string(name(kind)) + " workloads");
  // The probes' leaves are values FP8 cannot hold (ties, ulps of FP32, the window's edges).
  if (backend.fp8_inputs_only)
    throw std::invalid_argument(backend.name +
                                " takes FP8 inputs only, which cannot hold characterize's probes; its chain is " +
                                "that of a dense model, characterized as one (e.g. tc_h100_fp8_f32)");
  // Its inputs lose bits before the chain: a bound derived from the chain alone would omit that.
  if (backend.normal_inputs_only)
    throw std::invalid_argument(
        backend.name + " truncates its inputs, which the probes' leaves (FP32 ulps, ties) do not pass " +
        "through; its chain is that of a dense model, characterized as one (e.g. tc_a100_tf32_f32)");
  out.kind = kind;
  Prober prober(backend, kind, options.values_per_call, options.width);

  // Ascending, with n = 2 last: it takes the precision of the lengths that show it. Default
  // lengths stop where the projected time would pass the budget.
  const bool explicit_lengths = !options.lengths.empty();
  std::vector<std::size_t> lengths = explicit_lengths ? options.lengths : default_characterize_lengths();
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  std::erase_if(lengths, [](std::size_t n) { return n < 2; });
  if (!lengths.empty() && lengths.front() == 2 && lengths.size() > 1)
    std::rotate(lengths.begin(), lengths.begin() + 1, lengths.end());

  std::vector<Facts> facts;
  std::optional<std::pair<int, bool>> hint_bits;
  double last_seconds = 0;
  std::size_t last_n = 0;
  for (std::size_t n : lengths) {
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    if (!explicit_lengths && last_n && n > last_n) {
      // Probing grows about as n^2 log n (pairs of leaves, each a column of n values).
      const double growth = std::pow(static_cast<double>(n) / static_cast<double>(last_n), 2.2);
      if (spent + last_seconds * growth > options.seconds_budget) {
        for (std::size_t m : lengths)
          if (m >= n) out.skipped.push_back(m);
        std::erase_if(out.skipped, [](std::size_t m) { return m == 2; });
        break;
      }
    }
    LengthCharacterization r;
    Facts f;
    probe_length(prober, n, options, hint_bits, r, f);
    if (r.accumulation_bits && r.bits_note.find("taken from") == std::string::npos) {
      if (!hint_bits || r.bits_at_least) hint_bits = std::pair{*r.accumulation_bits, r.bits_at_least};
    }
    if (n > 2) {
      last_seconds = r.seconds;
      last_n = n;
    }
    out.lengths.push_back(std::move(r));
    facts.push_back(std::move(f));
  }

  const std::string model = common_model(facts, out.lengths);
  bool stochastic = false;
  for (const auto& r : out.lengths) stochastic = stochastic || r.rounding == "stochastic";
  std::vector<Derivation> derivations;
  for (std::size_t k = 0; k < out.lengths.size(); ++k)
    derivations.push_back(classify(out.lengths[k], facts[k], model, stochastic, kind, backend.storage));
  derive_fused_chains(out.lengths, derivations, backend.storage);

  // One shape for every length whose tree is the order, when one fits them all.
  static const std::vector<TreeShape> candidates = [] {
    std::vector<TreeShape> c{{TreeShape::Kind::sequential, 0}, {TreeShape::Kind::numpy, 0}};
    for (std::uint64_t l : {2, 4, 8, 16, 32, 64}) c.push_back({TreeShape::Kind::lanes, l});
    for (std::uint64_t b : {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096})
      c.push_back({TreeShape::Kind::blocked, b});
    c.push_back({TreeShape::Kind::numpy_buffered, 8192});
    c.push_back({TreeShape::Kind::cuda_block, 32, 1, 1});
    c.push_back({TreeShape::Kind::cuda_block, 256, 4, 1024});
    return c;
  }();
  std::vector<TreeShape> fitting = candidates;
  bool any_tree = false;
  for (std::size_t k = 0; k < out.lengths.size(); ++k) {
    const auto& r = out.lengths[k];
    if (derivations[k].kind != Derivation::Kind::tree) continue;
    any_tree = true;
    std::erase_if(fitting, [&](const TreeShape& s) { return shape_tree(s, r.n) != r.tree; });
  }
  const std::string common_shape = any_tree && !fitting.empty() ? shape_text(fitting.front()) : "";

  for (std::size_t k = 0; k < out.lengths.size(); ++k) {
    auto& r = out.lengths[k];
    const Derivation& d = derivations[k];
    // The shape it is at this length: the one common to all lengths when it fits here (lanes:8
    // and numpy build the same tree at n = 40), else the first that does.
    if (r.tree && !common_shape.empty() && shape_tree(fitting.front(), r.n) == r.tree)
      r.shape = common_shape;
    else if (r.tree)
      for (const auto& s : candidates)
        if (shape_tree(s, r.n) == r.tree) {
          r.shape = shape_text(s);
          break;
        }
    if (r.order == "failed") {
      r.relation = Relation::undetermined;
      r.relation_reason = "the backend failed while being probed: " + r.failure;
      continue;
    }
    const std::string here = expression(d, backend.storage, r.n, r.tree, "");
    r.derived_bound = expression(d, backend.storage, r.n, r.tree, common_shape);
    r.derived_note = d.note;

    // Contradictions first: a determinism the backend does not have, then a witness.
    if (backend.determinism != Determinism::run_to_run_nondeterministic &&
        r.determinism == name(Determinism::run_to_run_nondeterministic)) {
      r.relation = Relation::contradicted;
      r.relation_reason =
          "stated " + out.stated_determinism + ", but " + (r.order_note.empty() ? "the runs differ" : r.order_note);
      continue;
    }
    std::vector<Witness> witnesses;
    if (r.tree && r.accumulation_bits && !r.bits_at_least)
      witnesses.push_back({{deepest_path_witness(*r.tree, *r.accumulation_bits, backend.storage)},
                           {},
                           "X at the deepest leaf and X 2^-" + std::to_string(*r.accumulation_bits) +
                               " beside it at every node above"});
    witnesses.insert(witnesses.end(), facts[k].witnesses.begin(), facts[k].witnesses.end());
    if (contradicting_witness(backend, prober, r, witnesses, options)) continue;
    if (backend.determinism == Determinism::order_independent && r.order != "exact" && r.tree && r.accumulation_bits &&
        !r.bits_at_least) {
      r.relation = Relation::contradicted;
      r.relation_reason =
          "stated order-independent, but the result depends on the order of the leaves: a tree of roundings in " +
          std::to_string(*r.accumulation_bits) + " bits";
      continue;
    }
    if (here.empty()) {
      r.relation = Relation::undetermined;
      r.relation_reason = "no bound derived: " + d.note;
      continue;
    }
    auto [relation, reason] = compare_bounds(*parse_bound(here), backend.bound, backend.storage, r.n);
    r.relation = relation;
    r.relation_reason = reason;
  }

  // The whole backend: contradicted if any length is, else looser, else undetermined, else
  // equal if all are, else tighter; the first length's reason that decided it.
  auto rank = [](Relation x) {
    switch (x) {
      case Relation::contradicted: return 4;
      case Relation::looser: return 3;
      case Relation::undetermined: return 2;
      case Relation::tighter: return 1;
      case Relation::equal: return 0;
    }
    return 0;
  };
  out.relation = Relation::equal;
  for (const auto& r : out.lengths)
    if (rank(r.relation) > rank(out.relation)) {
      out.relation = r.relation;
      out.relation_reason = "n = " + std::to_string(r.n) + ": " + r.relation_reason;
    }
  if (out.lengths.empty()) {
    out.relation = Relation::undetermined;
    out.relation_reason = "no length was probed";
  }
  // One expression valid at every probed length: the same text everywhere, or tree tables of
  // the same wrapping merged into one depths(...).
  std::set<std::string> expressions;
  bool all_derived = !out.lengths.empty();
  for (const auto& r : out.lengths) {
    all_derived = all_derived && !r.derived_bound.empty();
    expressions.insert(r.derived_bound);
  }
  bool only_trees_and_any_order = all_derived;
  std::optional<Derivation> any_order;
  for (std::size_t k = 0; k < out.lengths.size(); ++k) {
    const auto kind_k = derivations[k].kind;
    only_trees_and_any_order =
        only_trees_and_any_order && (kind_k == Derivation::Kind::tree || kind_k == Derivation::Kind::anyorder);
    if (kind_k == Derivation::Kind::anyorder) any_order = derivations[k];
  }
  if (all_derived && expressions.size() == 1) {
    out.derived_bound = *expressions.begin();
  } else if (only_trees_and_any_order && any_order) {
    // Some lengths any order, others one tree: any order holds for every tree in that arithmetic.
    const std::string text = expression(*any_order, backend.storage, 0, std::nullopt, "");
    bool same_arithmetic = true;
    for (const auto& d : derivations)
      same_arithmetic =
          same_arithmetic && d.format == any_order->format && d.widen == any_order->widen && d.ftz == any_order->ftz;
    if (same_arithmetic) out.derived_bound = text;
  } else if (all_derived) {
    std::string merged, shell;
    bool mergeable = true;
    for (std::size_t k = 0; k < out.lengths.size() && mergeable; ++k) {
      const auto& r = out.lengths[k];
      if (derivations[k].kind != Derivation::Kind::tree) {
        mergeable = false;
        break;
      }
      const std::string this_shell = expression(derivations[k], backend.storage, r.n, r.tree, "@");
      if (shell.empty()) shell = this_shell;
      mergeable = shell == this_shell;
      merged += (merged.empty() ? "" : ",") + ("n" + std::to_string(r.n) + ":" + depths_text(r.tree->leaf_depths()));
    }
    if (mergeable && !shell.empty()) {
      const auto at = shell.find('@');
      out.derived_bound = shell.substr(0, at) + merged + shell.substr(at + 1);
    }
  }
  if (!out.derived_bound.empty() && !parse_bound(out.derived_bound)) out.derived_bound.clear();
  for (const auto& r : out.lengths) out.calls += r.calls;
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(out.lengths.begin(), out.lengths.end(), [](const auto& a, const auto& b) { return a.n < b.n; });
  return out;
}

}  // namespace accucheck
