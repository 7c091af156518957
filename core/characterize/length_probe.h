// One length's probes: the tree, the precision, the rounding, subnormals, determinism and the
// model check at n leaves (length_probe.cpp; docs/characterize.md).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "characterize/characterize.h"
#include "characterize/probe.h"
#include "characterize/tree_reveal.h"

namespace accucheck::characterization {

// A probe workload judged against the stated bound: its elements' columns and, when the probe
// already ran it, the backend's results (judged in-process first; only a violation runs again).
struct Witness {
  std::vector<std::vector<double>> columns;
  std::vector<double> results;  // empty: not run yet
  std::string what;
  std::size_t width = 0;  // the buffer it ran in (0: the length's probe width)
};

// What one length's probes established, before the backend-level choice of a model.
struct Facts {
  Reveal revealed;
  CountProbe revealed_with;        // the magnitudes that revealed the tree
  std::string reveal_note;         // which magnitudes revealed it, or why none did
  std::set<std::string> matching;  // models that gave the backend's bits on every random input
  std::string tree_mismatch;       // how the revealed tree's model failed
  bool rounding_blocked = false;   // the rounding probes gave neither neighbour
  std::string results_vary;        // how the random inputs' results differed between runs ("" if not)
  std::vector<Witness> witnesses;  // judged against the stated bound
};

// Fills what the probes of length n show into r and facts; a ProbeFailure (the backend's own)
// ends that length (r.order "failed"). hint_bits: the precision another length measured.
void probe_length(Prober& prober, std::size_t n, const CharacterizeOptions& options,
                  std::optional<std::pair<int, bool>> hint_bits, LengthCharacterization& r, Facts& facts);

}  // namespace accucheck::characterization
