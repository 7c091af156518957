// Workloads: what a backend is asked to accumulate.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "accucheck/exact.h"
#include "accucheck/format.h"

namespace accucheck {

// A buffer of D elements with an initial value (grad_req 'add' accumulates onto it) and T
// steps, each adding one addend per element. Element j's exact result is
// initial[j] + sum over t of addends[t*D + j]. Values are doubles holding values of `format`.
struct DenseWorkload {
  Format format = Format::f32;   // storage format of the addends and of the buffer
  std::size_t elements = 0;      // D
  std::size_t steps = 0;         // T
  std::vector<double> initial;   // D values
  std::vector<double> addends;   // T*D values, step-major
  std::string family;            // the generator family that made it (provenance; may be empty)

  double addend(std::size_t step, std::size_t element) const { return addends[step * elements + element]; }
  // Element j's addends in summation order: initial[j], then steps 0..T-1 (n = T+1 values).
  void column(std::size_t element, std::vector<double>& out) const;
  // "" when consistent (sizes agree, every value is a value of `format`), else what is wrong.
  std::string validate() const;
};

// The exact summary of one element's addends, through the reference oracle.
ExactSum exact_element(const DenseWorkload& workload, std::size_t element);

}  // namespace accucheck
