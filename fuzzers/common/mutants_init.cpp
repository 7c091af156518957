// Linked into the *_mutants fuzz targets only: every planted-bug backend of impls/mutants
// becomes a backend of the target (fuzz_check.h add_extra_backend). The product registry is
// not linked into these targets, so the mutants are all they run.
#include "fuzz_check.h"
#include "mutants/mutants.h"

namespace {

const bool registered = [] {
  for (const auto& m : accucheck::mutants::all()) accucheck::fuzz::add_extra_backend(m.backend);
  return true;
}();

}  // namespace
