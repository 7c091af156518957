// Running backends in tests.
#pragma once

#include <string>
#include <vector>

#include "checking/backend.h"

namespace accucheck::test {

// The backend registered as `name` in Registry::global(); throws std::runtime_error naming it
// when there is none (a test of a built-in backend fails, not crashes, when it is renamed).
const Backend& registered_backend(const std::string& name);

// What b computes for w: one value per element.
std::vector<double> results_of(const Backend& b, const Workload& w, const RunOptions& options = {});

}  // namespace accucheck::test
