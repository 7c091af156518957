// Climbing toward the bound (`accucheck check --maximize`): a backend's current worst case is
// mutated, and a mutant is kept when its error/bound is at least as large, so the search follows
// the ratio itself rather than coverage or quarter-octave buckets.
//
// The mutations are the moves that make summation errors large in the literature (Higham,
// Accuracy and Stability of Numerical Algorithms, 2nd ed., ch. 4): a significand bit flipped,
// an exponent shifted, two addends swapped, an addend moved along the chain (a large value early
// swamps what follows), an addend split into two that sum exactly (n grows, A stays), an addend
// appended (a copy, or half an ulp of the running sum: stagnation), a sign flipped. Seeds are the
// known patterns: a running sum at 2^p absorbing half ulps (2^24 in f32, 2048 in f16, 256 in
// bf16), masks of +-2^k among ones, and for the fused bounds steps whose operands all fall just
// below the window's cut.
#pragma once

#include <cstddef>
#include <vector>

#include "checking/bound.h"
#include "checking/choice.h"
#include "checking/workload.h"

namespace accucheck {

// One mutation of w drawn from s, always a valid workload of w's kind and format (values of the
// format). Dense workloads of one element also change shape (swap, move, split, grow), and
// one-element products their batch (grow, drop, swap), up to max_terms terms; other workloads
// have their values changed in place.
Workload climb_mutation(const Workload& w, ChoiceStream& s, std::size_t max_terms);

// The seeds of the climb for a format: one-element dense workloads of n terms (family "climb-seed").
std::vector<Workload> climb_seeds(Format f, std::size_t n);

// Seeds from a fused bound's K and W (fused, fused_truncated, fused_promoted; none for other
// kinds), the steps that lose what the bound's derivation lets them (docs/bounds.md, "Fused
// multi-term addition"): a largest operand 2^E and K operands just below the window's cut
// 2^(E-W+1), each truncated to zero. Dense columns of storage format f (for the promoted kinds
// the chain from zero, 1 + 2K terms), and product workloads with E4M3 inputs whose products sit
// 1.96875 2^(E-W) below the cut (1.125 2^-6 x 1.75 2^-6, the closest E4M3 products come).
// For truncated_inputs(INNER,B), INNER's seeds and products of inputs just below 1 + 2^(1-B)
// (each losing nearly 2^(2-B) of itself to the truncation). Only those of at most max_terms
// terms (family "climb-seed").
std::vector<Workload> window_climb_seeds(const BoundExpr& bound, Format f, std::size_t max_terms);

// A fresh start for a restarted climb: one element of 3 to min(12, max_terms) terms, each with a
// random significand, a random sign and an exponent within p + 12 binades below 4 (family
// "climb-start"). A single climb stalls at a local maximum (kahan_bf16 stayed at 1.97 u A for
// 90 s, 3 terms); restarts from such starts are what reach past 2u A (docs/detection.md).
Workload climb_start(Format f, ChoiceStream& s, std::size_t max_terms);

}  // namespace accucheck
