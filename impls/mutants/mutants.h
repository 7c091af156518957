// Planted bugs: realistic broken accumulators that the harness must catch.
//
// Built only into tests (ACCUCHECK_BUILD_TESTS) as accucheck::mutants, and never registered
// in Registry::global(): the product's registry, the CLI and every campaign see none of them.
// properties/mutants_test.cpp runs the property suite's checks (core properties.h) against
// each one and fails if any goes undetected within the CI budget. A mutant the harness does
// not catch is a harness bug: strengthen the generators or the checks, never the mutant.
#pragma once

#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/properties.h"

namespace accucheck::mutants {

struct Mutant {
  Backend backend;     // name, formats, the (wrong) claim it makes and the buggy run function
  std::string bug;     // what is wrong, in one line
  std::string origin;  // the incident or the class of real bug it models
  Property expected;   // the property that should catch it (documentation; any property may)
};

// Every mutant, in a fixed order.
const std::vector<Mutant>& all();
const Mutant* find(std::string_view name);

}  // namespace accucheck::mutants
