// Shrinking a failing workload to a small one that still fails (shrink.cpp).
#pragma once

#include <cstddef>
#include <functional>

#include "checking/workload.h"

namespace accucheck {

// Element `element` of a workload alone, as a one-element workload with the same terms in the
// same order (shrinking starts from the element that failed instead of searching for it).
Workload element_alone(const Workload& w, std::size_t element);

// Shrinks a failing workload while `still_fails` holds: one element; else fewer elements (dense
// element columns, product output rows and columns, sparse embedding columns: a kernel wrong only
// past some D shrinks to the smallest D that fails); fewer steps (and batch columns, pairs);
// simpler values (0, fewer significant bits). At most `budget` calls.
Workload shrink_workload(Workload w, const std::function<bool(const Workload&)>& still_fails,
                         std::size_t budget = 3000);

}  // namespace accucheck
