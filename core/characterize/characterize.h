// `accucheck characterize`: what a black-box accumulator really does, and the bound it can promise.
//
// For each length n it probes the backend through the backend interface alone (docs/characterize.md):
//   - order: the summation tree over the n leaves (initial value first), revealed with
//     FPRev-style probes (Xie et al., USENIX ATC '25): +M and -M at two leaves, a small unit s at
//     the others; every s that meets the pair before M and -M cancel is swamped, so the result
//     counts the leaves outside the pair's lowest common node. Then whether it depends on the
//     element index (a wide buffer of probes in one call), on the data (other magnitudes, and a
//     model of the revealed tree that must reproduce the backend bit for bit on random inputs)
//     and on the run (repeats, other thread counts and order seeds); fused nodes of more than two
//     children;
//   - accumulation precision: where an increment X 2^-m added to X stops registering, at nodes of
//     the tree (X + d at a node, -X later), and the alignment window of fused nodes;
//   - special behaviour: flush-to-zero of subnormal inputs and results; the rounding mode (ties,
//     quarter and three-quarter steps, repeated: a distribution for stochastic rounding);
//     compensated sums and exact accumulators, recognised by their results;
//   - the derived bound: the tightest bound expression the revealed structure implies (a tree
//     shape it recognises, or the per-leaf kind `depths` with the leaf depths of the revealed tree),
//     and its relation to the bound the backend states: tighter, equal, looser, or contradicted
//     (a witness built from the revealed structure violates the stated bound when the backend
//     runs it: judged by the one verdict function and written as a case file).
// Every engine-level step goes through the finding pipeline (findings.h); the campaign with the
// derived bound is an ordinary Campaign over copies of the backends stating it (campaign.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/summation_tree.h"
#include "io/json.h"

namespace accucheck {

// The default lengths: a spread up to a few thousand, with the boundaries kernels split at
// (8 and 16 lanes, a warp, blocks of 256 and 1024, +-1).
const std::vector<std::size_t>& default_characterize_lengths();

struct CharacterizeOptions {
  std::vector<std::size_t> lengths;  // n, the initial value included (2 and more); empty: the defaults
  std::optional<WorkloadKind> kind;  // the workload the probes use; default dense, else sparse, else product
  std::size_t values_per_call = std::size_t{1} << 20;  // probes are batched, one per element, up to this many values
  std::size_t width = 0;            // elements per call (0: 1025 within values_per_call); one wide call looks at 1025
  std::size_t repeats = 6;          // reruns (other thread counts and order seeds) compared bit for bit
  std::size_t model_columns = 256;  // random inputs the revealed model must reproduce bit for bit
  double seconds_budget = 60;       // per backend: default lengths whose projected time passes it are skipped
  std::uint64_t seed = 1;           // of the random inputs
  std::string findings_dir;         // witnesses of a contradiction are written here ("": not written)
  std::string found_by = "accucheck characterize";
  std::function<void(const std::string&)> progress;  // one line per finished length (optional)
};

enum class Relation : std::uint8_t { equal, tighter, looser, contradicted, undetermined };
std::string_view name(Relation r);

// What was revealed at one length.
struct LengthCharacterization {
  std::size_t n = 0;
  // The order. `order` is "tree" (one tree explains every probe), "exact" (no rounding is
  // observable: every probe comes back exact), "data-dependent" (no single tree explains the
  // probes, or the tree's model fails on other inputs), "run-dependent" (runs differ; the tree
  // is that of one run), "element-dependent" (elements of one buffer follow different trees;
  // the tree is element 0's), or "failed" (the backend failed: `failure`).
  std::string order;
  std::string order_note;  // what showed the dependence, or why no tree explains the probes
  std::optional<SummationTree> tree;
  std::string shape;  // the tree shape it is, when recognised ("sequential", "lanes:8", ...)
  std::vector<std::pair<std::size_t, SummationTree>> other_elements;  // element-dependent: element j's tree
  std::string compensated;    // "kahan", "neumaier" or "" (recognised by its results)
  std::size_t max_arity = 0;  // > 2: fused nodes
  bool element_dependent = false, data_dependent = false, run_dependent = false;
  // Precision: significand bits kept by the running sum (where an increment stops registering),
  // a lower bound when `bits_at_least`; the alignment window of fused nodes when measured.
  std::optional<int> accumulation_bits;
  bool bits_at_least = false;
  std::string bits_note;
  std::optional<int> fused_window_bits;
  // Special behaviour.
  bool flushes_subnormal_inputs = false, flushes_subnormal_results = false;
  std::string
      rounding;  // "nearest-even", "nearest-away", "toward-zero", "upward", "downward", "stochastic", "unobservable"
  std::string rounding_note;
  std::string determinism;      // observed: bitwise-deterministic, order-independent, run-to-run-nondeterministic
  bool model_verified = false;  // the revealed model gave the backend's bits on every random input
  std::size_t model_inputs = 0;
  // The bound.
  std::string derived_bound;  // a bound expression accucheck parses ("" when none can be derived)
  std::string derived_note;
  Relation relation = Relation::undetermined;
  std::string relation_reason;
  std::string witness;  // case file of the witness that contradicts the stated bound
  std::string failure;
  std::uint64_t calls = 0;
  double seconds = 0;
};

struct BackendCharacterization {
  std::string backend, origin, stated_bound, stated_determinism;
  Format storage = Format::f32, accumulation = Format::f32;
  WorkloadKind kind = WorkloadKind::dense;
  std::vector<LengthCharacterization> lengths;
  std::vector<std::size_t> skipped;  // default lengths left out: their projected time passed the budget
  // Over all lengths: one expression valid at every probed n ("" when none), and the relation
  // (contradicted if any length is, else looser if any is, else equal if all are, else tighter).
  std::string derived_bound;
  Relation relation = Relation::undetermined;
  std::string relation_reason;
  std::uint64_t calls = 0;
  double seconds = 0;
};

BackendCharacterization characterize(const Backend& backend, const CharacterizeOptions& options);

// The backend with `bound` stated instead (same name, run and origin): what the campaign after
// characterize runs.
Backend with_bound(const Backend& backend, const std::string& bound);

// The JSON of one backend's characterization (docs/characterize.md lists the keys).
void write_characterization(JsonWriter& out, const BackendCharacterization& c);

}  // namespace accucheck
