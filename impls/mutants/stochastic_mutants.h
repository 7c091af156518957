// Planted bugs that only a statistical test can catch: stochastic-rounding backends whose
// single runs stay within their (probabilistic) bound, but whose rounding is biased, so that
// E[computed] != S. Kept apart from mutants::all(), which the single-run property suite must
// detect (properties/mutants_test.cpp): properties/stochastic_test.cpp runs these.
#pragma once

#include <vector>

#include "mutants.h"

namespace accucheck::mutants {

const std::vector<Mutant>& stochastic_mutants();

}  // namespace accucheck::mutants
