#include "accucheck/workload.h"

#include "accucheck/fast_exact.h"

namespace accucheck {

void DenseWorkload::column(std::size_t element, std::vector<double>& out) const {
  out.resize(steps + 1);
  out[0] = initial[element];
  for (std::size_t t = 0; t < steps; ++t) out[t + 1] = addends[t * elements + element];
}

std::string DenseWorkload::validate() const {
  if (initial.size() != elements)
    return "initial has " + std::to_string(initial.size()) + " values for " + std::to_string(elements) + " elements";
  if (addends.size() != steps * elements)
    return "addends has " + std::to_string(addends.size()) + " values, expected steps*elements = " +
           std::to_string(steps * elements);
  for (std::size_t j = 0; j < elements; ++j)
    if (!representable(initial[j], format))
      return "initial[" + std::to_string(j) + "] is not a " + std::string(name(format)) + " value";
  for (std::size_t i = 0; i < addends.size(); ++i)
    if (!representable(addends[i], format))
      return "addend " + std::to_string(i) + " (step " + std::to_string(i / elements) + ", element " +
             std::to_string(i % elements) + ") is not a " + std::string(name(format)) + " value";
  return "";
}

// Through the fast exact accumulator (fast_exact.h): the same ExactSum as the reference
// BoostExactAccumulator (exact.h), cross-checked against it and against MPFR in
// core/tests/fast_exact_test.cpp. The column is gathered first so that the accumulator runs
// over a contiguous span.
ExactSum exact_element(const DenseWorkload& workload, std::size_t element) {
  thread_local std::vector<double> column;
  workload.column(element, column);
  return fast_exact_sum(column);
}

}  // namespace accucheck
