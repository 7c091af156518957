// A backend's determinism class checked by re-running it (determinism.cpp).
#pragma once

#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/choice.h"

namespace accucheck {

// What the backend's determinism class promises, checked by re-running: bitwise-deterministic
// backends must give identical bits across reruns and thread counts; order-independent ones
// also under permutations of the addends (each dense element's column, the batch of a
// product, the pairs of a sparse workload) and, for dense, -0 padding (another split of the
// same addends). Returns "" when the promise holds, else what differed. `first_run`: the
// backend's result on w with default RunOptions when the caller has it (run_and_judge's run),
// compared with the reruns instead of a separate reference run.
std::string check_determinism(const Backend& backend, const Workload& w, ChoiceStream& s,
                              const std::vector<double>* first_run = nullptr);

}  // namespace accucheck
