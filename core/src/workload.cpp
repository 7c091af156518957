#include "accucheck/workload.h"

#include "accucheck/column_exact.h"
#include "accucheck/fast_exact.h"

namespace accucheck {

void DenseWorkload::column(std::size_t element, std::vector<double>& out) const {
  out.resize(steps + 1);
  out[0] = initial[element];
  for (std::size_t t = 0; t < steps; ++t) out[t + 1] = addends[t * elements + element];
}

DenseStrides dense_strides(const DenseLayout& layout, std::size_t elements, std::size_t steps) {
  DenseStrides s;
  const std::size_t inner_stride = 1 + std::size_t{layout.gap};
  const std::size_t inner = layout.element_major ? steps : elements;
  const std::size_t outer = layout.element_major ? elements : steps;
  const std::size_t row = inner * inner_stride + layout.padding;
  (layout.element_major ? s.step : s.element) = inner_stride;
  (layout.element_major ? s.element : s.step) = row;
  // The last place used is (outer-1)*row + (inner-1)*inner_stride; the span ends right after it.
  s.addend_span = inner == 0 || outer == 0 ? 0 : (outer - 1) * row + (inner - 1) * inner_stride + 1;
  s.buffer = 1 + std::size_t{layout.buffer_gap};
  s.buffer_span = elements == 0 ? 0 : (elements - 1) * s.buffer + 1;
  return s;
}

SparseStrides sparse_strides(const SparseLayout& layout, std::size_t rows, std::size_t dim, std::size_t pairs) {
  SparseStrides s;
  s.table_row = dim + layout.table_padding;
  s.value_pair = dim + layout.value_padding;
  auto span = [dim](std::size_t count, std::size_t stride) { return count == 0 ? 0 : (count - 1) * stride + dim; };
  s.table_span = span(rows, s.table_row);
  s.values_span = span(pairs, s.value_pair);
  return s;
}

namespace {
std::string layout_parts(std::string text, std::uint32_t gap, std::uint32_t padding) {
  if (gap) text += ", gap " + std::to_string(gap);
  if (padding) text += ", padding " + std::to_string(padding);
  return text;
}
}  // namespace

std::string describe(const DenseLayout& layout) {
  std::string text = layout_parts(layout.element_major ? "element-major" : "step-major", layout.gap, layout.padding);
  if (layout.buffer_gap) text += ", buffer gap " + std::to_string(layout.buffer_gap);
  return text;
}

std::string describe(const SparseLayout& layout) {
  if (layout.contiguous()) return "contiguous";
  return "table padding " + std::to_string(layout.table_padding) + ", value padding " + std::to_string(layout.value_padding);
}

std::string DenseWorkload::validate() const {
  if (layout.gap > kMaxLayoutGap || layout.buffer_gap > kMaxLayoutGap || layout.padding > kMaxLayoutPadding)
    return "layout " + describe(layout) + " is out of range (gaps at most " + std::to_string(kMaxLayoutGap) +
           ", padding at most " + std::to_string(kMaxLayoutPadding) + ")";
  if (initial.size() != elements)
    return "initial has " + std::to_string(initial.size()) + " values for " + std::to_string(elements) + " elements";
  if (addends.size() != steps * elements)
    return "addends has " + std::to_string(addends.size()) + " values, expected steps*elements = " +
           std::to_string(steps * elements);
  for (std::size_t j = 0; j < elements; ++j)
    if (!representable(initial[j], format))
      return "initial[" + std::to_string(j) + "] is not a " + std::string(name(format)) + " value";
  if (auto problem = workload_detail::fp8_format_problem(input_format, "input_format"); !problem.empty()) return problem;
  for (std::size_t i = 0; i < addends.size(); ++i)
    if (!representable(addends[i], addend_format()))
      return "addend " + std::to_string(i) + " (step " + std::to_string(i / elements) + ", element " +
             std::to_string(i % elements) + ") is not a " + std::string(name(addend_format())) + " value";
  return "";
}

// Through the fast exact accumulator (fast_exact.h): the same ExactSum as the reference
// BoostExactAccumulator (exact.h), cross-checked against it and against MPFR in
// core/tests/fast_exact_test.cpp. The column is gathered first so that the accumulator runs
// over a contiguous span.
ExactSum exact_element(const DenseWorkload& workload, std::size_t element) {
  thread_local std::vector<double> column;
  workload.column(element, column);
  return exact_sum_of_values(column, workload.format);
}

// Step-major: the columns side by side (column_exact.h); a column it leaves (a NaN or an
// infinity, a magnitude of 2^1021 or more, more than kMaxColumnLength addends) is gathered and
// summed by exact_element.
void exact_elements(const DenseWorkload& workload, std::size_t begin, std::size_t end, std::vector<ExactSum>& out,
                    SimdPath path) {
  out.resize(end - begin);  // every field of every summary is written below: no need to clear
  thread_local std::vector<std::uint8_t> summed;
  summed.assign(end - begin, 0);
  // A few columns cost more side by side (padded to a whole vector, scanned and split) than
  // gathered (measured in bench/: 1 column of 100 addends, 7.5 vs 3.6 ns per addend).
  if (end - begin >= kMinSideBySideColumns) {
    // No steps: no addends, whose data() may be null and must not be offset (column_exact_sums
    // reads no row then).
    const double* rows = workload.steps == 0 ? workload.initial.data() : workload.addends.data() + begin;
    column_exact_sums(workload.initial.data() + begin, rows, workload.elements, workload.steps, end - begin,
                      workload.format, out.data(), summed.data(), path);
  }
  for (std::size_t j = begin; j < end; ++j)
    if (!summed[j - begin]) out[j - begin] = exact_element(workload, j);
}

}  // namespace accucheck
