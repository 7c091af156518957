// The bound a backend can promise, derived from what its probes showed, and how it compares
// with the stated one (derivation.cpp; docs/characterize.md, "The derived bound").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "characterize/characterize.h"
#include "characterize/length_probe.h"
#include "checking/bound.h"
#include "checking/summation_tree.h"

namespace accucheck::characterization {

// ---------------------------------------------------------------------------------------------
// Bounds: comparing the derived with the stated, and judging probe columns against the stated.
struct Derivation {
  enum class Kind {
    none,
    correctly_rounded,
    kahan,
    neumaier,
    stochastic,
    tree,
    anyorder,
    products,
    fused
  } kind = Kind::none;
  Format format = Format::f32;  // the inner bound's format
  // fused: K, W, N when promoted (else 0), Q when the sums are truncated (else 0: to nearest)
  std::size_t fused_addends = 0, fused_window = 0, fused_period = 0, fused_result_bits = 0;
  bool widen = false;         // widened(..., storage)
  std::optional<Format> ftz;  // ftz(..., F)
  std::string note;
};

std::string wrap(std::string inner, const Derivation& d, Format storage);

// The expression of a derivation: a tree's depths as `shape` when one is given, else as a table.
std::string expression(const Derivation& d, Format storage, std::size_t n, const std::optional<SummationTree>& tree,
                       const std::string& shape);

// Vectors of n terms the bounds are compared on: each leaf alone (a sample above 64 leaves), all
// ones, alternating signs (|S| small: the |S| terms of widened and neumaier), decreasing and
// increasing powers of two.
std::vector<std::vector<double>> comparison_vectors(std::size_t n);

// How the derived bound compares with the stated one at n, as functions of the terms.
std::pair<Relation, std::string> compare_bounds(const BoundExpr& derived, const BoundExpr& stated, Format storage,
                                                std::size_t n);

// The witness path: X at the deepest leaf and, at each node above it, X 2^-p at the smallest leaf
// of another child (a tie that rounds back to X): error d X 2^-p, the most a tree of depth d loses.
std::vector<double> deepest_path_witness(const SummationTree& tree, int bits, Format storage);

// The backend-level choice: the first model that gave the backend's bits at every length that was
// checked (a left-to-right chain of two leaves is also Kahan's loop and correctly rounded).
std::string common_model(const std::vector<Facts>& facts, const std::vector<LengthCharacterization>& lengths);

constexpr std::size_t kMaxFusedAddends = 64;  // bounds/fused.cpp: fused(K,W,F) with 1 <= K <= 64
// The tensor-core chains of impls/cpu/fused_window.cpp over n leaves: the accumulator and the next K
// addends in one fused node (period 0); or each chunk of `period` addends in such nodes from a zero
// start (no leaf), the chunk's sum then added to the accumulator (promotion).
SummationTree fused_chain_tree(std::size_t n, std::size_t addends, std::size_t period);

// Where every length's order is one tree, a fused node's window was measured (the same W wherever
// it was), and one fused chain of K addends per node (promoted every N, or not) gives every probed
// tree, each length's derivation is fused(K,W,F) or fused_promoted(K,W,N,F) with F the storage
// (docs/bounds.md): a length shorter than K + 1 is that chain cut short, one node. The window
// explains what the precision probes see where a fused node has two children (W bits, rounding
// toward zero, subnormal inputs cut beside larger ones); any other precision, rounding or flushed
// result rules the chain out. K and N are the smallest that fit: N may be larger beyond the
// longest probed length.
void derive_fused_chains(std::vector<LengthCharacterization>& lengths, std::vector<Derivation>& derivations,
                         Format storage);

// The order class, the observed determinism and the derivation of one length, given the model
// chosen for the backend (or this length's own first match).
Derivation classify(LengthCharacterization& r, const Facts& facts, const std::string& backend_model, bool stochastic,
                    WorkloadKind kind, Format storage);

}  // namespace accucheck::characterization
