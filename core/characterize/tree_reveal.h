// The tree reveal: the summation tree of a backend found by pair probes (docs/characterize.md,
// "The order").
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "characterize/probe.h"
#include "checking/summation_tree.h"

namespace accucheck::characterization {

struct CountProbe {
  double big = 0, small = 0;  // +-M at the pair, s at the counted leaves
  std::size_t capacity = 1;   // most s that one result counts exactly
};

struct Reveal {
  std::optional<SummationTree> tree;
  std::string failure;       // "" when the tree was found; else why none explains the probes
  bool all_survive = false;  // every probe counted every s: nothing was swamped (no rounding seen)
  bool clean = true;         // every result was a whole count of s
};

// The tree of the backend over n leaves by the pair probes of `probe` (tree_reveal.cpp).
Reveal reveal_tree(Prober& prober, std::size_t n, const CountProbe& probe, const RunOptions& options,
                   const Placement& placement);

}  // namespace accucheck::characterization
