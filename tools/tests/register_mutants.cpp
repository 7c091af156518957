// accucheck_with_mutants, a test-only build of the CLI: every planted bug of impls/mutants is
// registered beside the product's backends, so that `check` itself can be held to catching each
// one (check_mutants_test.py). The product's accucheck never links this file.
#include "checking/backend.h"
#include "mutants/mutants.h"

namespace {
const bool mutants_registered = [] {
  for (const auto& m : accucheck::mutants::all()) accucheck::Registry::global().add(m.backend);
  return true;
}();
}  // namespace
