// The workload kinds (workload.h): dense layouts and columns, each kind's validation, and what
// every engine asks of any workload (its kind, format, elements, terms, size).
#include "checking/workload.h"

#include <algorithm>
#include <cmath>

#include "numerics/column_exact.h"
#include "numerics/enum_names.h"
#include "numerics/fast_exact.h"
#include "numerics/fp8.h"

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
  return "table padding " + std::to_string(layout.table_padding) + ", value padding " +
         std::to_string(layout.value_padding);
}

std::string DenseWorkload::validate() const {
  if (layout.gap > kMaxLayoutGap || layout.buffer_gap > kMaxLayoutGap || layout.padding > kMaxLayoutPadding)
    return "layout " + describe(layout) + " is out of range (gaps at most " + std::to_string(kMaxLayoutGap) +
           ", padding at most " + std::to_string(kMaxLayoutPadding) + ")";
  if (initial.size() != elements)
    return "initial has " + std::to_string(initial.size()) + " values for " + std::to_string(elements) + " elements";
  if (addends.size() != steps * elements)
    return "addends has " + std::to_string(addends.size()) +
           " values, expected steps*elements = " + std::to_string(steps * elements);
  for (std::size_t j = 0; j < elements; ++j)
    if (!representable(initial[j], format))
      return "initial[" + std::to_string(j) + "] is not a " + std::string(name(format)) + " value";
  if (auto problem = workload_detail::fp8_format_problem(input_format, "input_format"); !problem.empty())
    return problem;
  for (std::size_t i = 0; i < addends.size(); ++i)
    if (!representable(addends[i], addend_format()))
      return "addend " + std::to_string(i) + " (step " + std::to_string(i / elements) + ", element " +
             std::to_string(i % elements) + ") is not a " + std::string(name(addend_format())) + " value";
  return "";
}

// Through the fast exact accumulator (fast_exact.h): the same ExactSum as the reference
// BoostExactAccumulator (exact.h), cross-checked against it and against MPFR in
// core/numerics/fast_exact_test.cpp. The column is gathered first so that the accumulator runs
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

// Product and sparse workloads, and any workload by its kind.
namespace {

std::string check_values(const std::vector<double>& values, Format f, std::string_view field) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!representable(values[i], f))
      return std::string(field) + "[" + std::to_string(i) + "] is not a " + std::string(name(f)) + " value";
  return "";
}

std::string check_size(std::size_t have, std::size_t want, std::string_view field) {
  if (have == want) return "";
  return std::string(field) + " has " + std::to_string(have) + " values, expected " + std::to_string(want);
}

}  // namespace

std::string ProductWorkload::validate() const {
  if (format == Format::f64)
    return "product workloads of f64 are not supported (products would not be exact in the oracle)";
  using workload_detail::fp8_format_problem;
  if (auto problem = fp8_format_problem(input_format, "input_format"); !problem.empty()) return problem;
  if (b_input_format && !input_format) return "b_input_format is set without input_format (A's format)";
  if (auto problem = fp8_format_problem(b_input_format, "b_input_format"); !problem.empty()) return problem;
  if (b_input_format && b_input_format == input_format)
    return "b_input_format equals input_format (" + std::string(name(*input_format)) +
           "): A and B in one format state input_format alone";
  for (auto problem :
       {check_size(initial.size(), rows * cols, "initial"), check_size(a.size(), steps * rows * batch, "a"),
        check_size(b.size(), steps * batch * cols, "b"), check_values(initial, format, "initial"),
        check_values(a, a_inputs(), "a"), check_values(b, b_inputs(), "b")})
    if (!problem.empty()) return problem;
  return "";
}

std::string SparseWorkload::validate() const {
  if (layout.table_padding > kMaxLayoutPadding || layout.value_padding > kMaxLayoutPadding)
    return "layout " + describe(layout) + " is out of range (padding at most " + std::to_string(kMaxLayoutPadding) +
           ")";
  if (auto p = check_size(initial.size(), rows * dim, "initial"); !p.empty()) return p;
  if (step_offsets.size() != steps + 1)
    return "step_offsets has " + std::to_string(step_offsets.size()) + " entries, expected steps+1";
  if (step_offsets.front() != 0 || step_offsets.back() != row_index.size())
    return "step_offsets must start at 0 and end at the number of pairs";
  for (std::size_t t = 0; t < steps; ++t)
    if (step_offsets[t] > step_offsets[t + 1]) return "step_offsets must not decrease (step " + std::to_string(t) + ")";
  for (std::size_t p = 0; p < row_index.size(); ++p)
    if (row_index[p] >= rows)
      return "row_index[" + std::to_string(p) + "] = " + std::to_string(row_index[p]) +
             " is not below rows = " + std::to_string(rows);
  if (auto p = check_size(values.size(), row_index.size() * dim, "values"); !p.empty()) return p;
  if (auto p = workload_detail::fp8_format_problem(input_format, "input_format"); !p.empty()) return p;
  if (auto p = check_values(initial, format, "initial"); !p.empty()) return p;
  return check_values(values, value_format(), "values");
}

std::string_view name(WorkloadKind k) {
  static constexpr EnumNames<WorkloadKind, 3> names(
      {{WorkloadKind::dense, "dense"}, {WorkloadKind::product, "product"}, {WorkloadKind::sparse, "sparse"}});
  return names.name(k);
}

WorkloadKind kind_of(const Workload& w) { return static_cast<WorkloadKind>(w.index()); }
// Calls f(values, format) on A and on B of a product workload (P: ProductWorkload or const
// ProductWorkload), each with its own input format.
template <class P, class F>
void each_operand(P& p, F f) {
  f(p.a, p.a_inputs());
  f(p.b, p.b_inputs());
}

static void round_into_fp8(std::vector<double>& values, Format in) {
  for (double& x : values) x = std::isfinite(x) ? fp8_round(x, in, Fp8Overflow::saturating) : round_to_format(x, in);
}

void conform_inputs(DenseWorkload& w) {
  if (w.input_format) round_into_fp8(w.addends, *w.input_format);
}
void conform_inputs(ProductWorkload& w) {
  if (w.input_format) each_operand(w, round_into_fp8);
}
void conform_inputs(SparseWorkload& w) {
  if (w.input_format) round_into_fp8(w.values, *w.input_format);
}
std::optional<Format> fp8_array_format(const Workload& w, const std::vector<double>& values) {
  if (const auto* d = std::get_if<DenseWorkload>(&w); d && &values == &d->addends) return d->input_format;
  if (const auto* sp = std::get_if<SparseWorkload>(&w); sp && &values == &sp->values) return sp->input_format;
  if (const auto* p = std::get_if<ProductWorkload>(&w); p && p->input_format && (&values == &p->a || &values == &p->b))
    return &values == &p->a ? p->a_inputs() : p->b_inputs();
  return std::nullopt;
}

void conform_inputs(Workload& w) {
  std::visit([](auto& x) { conform_inputs(x); }, w);
}

bool has_subnormal_input(const ProductWorkload& w) {
  bool found = false;
  each_operand(w, [&](const std::vector<double>& values, Format in) {
    const double normal = smallest_normal(in);
    found =
        found || std::any_of(values.begin(), values.end(), [&](double x) { return x != 0 && std::fabs(x) < normal; });
  });
  return found;
}

void flush_subnormal_inputs(ProductWorkload& w) {
  each_operand(w, [](std::vector<double>& values, Format in) {
    const double normal = smallest_normal(in);
    for (double& x : values)
      if (std::fabs(x) < normal) x = std::copysign(0.0, x);
  });
}

Format format_of(const Workload& w) {
  return std::visit([](const auto& x) { return x.format; }, w);
}
std::string family_of(const Workload& w) {
  return std::visit([](const auto& x) { return x.family; }, w);
}

std::size_t element_count(const Workload& w) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) return d->elements;
  if (auto* p = std::get_if<ProductWorkload>(&w)) return p->elements();
  return std::get<SparseWorkload>(w).elements();
}

std::string validate(const Workload& w) {
  return std::visit([](const auto& x) { return x.validate(); }, w);
}

std::uint64_t workload_bytes(const Workload& w) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) return sizeof(double) * (d->initial.size() + d->addends.size());
  if (auto* p = std::get_if<ProductWorkload>(&w))
    return sizeof(double) * (p->initial.size() + p->a.size() + p->b.size());
  const auto& s = std::get<SparseWorkload>(w);
  return sizeof(double) * (s.initial.size() + s.values.size()) + sizeof(std::uint32_t) * s.row_index.size() +
         sizeof(std::size_t) * s.step_offsets.size();
}

std::size_t max_terms(const Workload& w) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) return d->steps + 1;
  if (auto* p = std::get_if<ProductWorkload>(&w)) return 1 + p->steps * p->batch;
  const auto& s = std::get<SparseWorkload>(w);
  std::vector<std::size_t> hits(s.rows, 0);
  std::size_t most = 0;
  for (auto r : s.row_index) most = std::max(most, ++hits[r]);
  return 1 + most;
}

void element_terms(const Workload& w, std::size_t element, std::vector<double>& out) {
  out.clear();
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    d->column(element, out);
  } else if (auto* p = std::get_if<ProductWorkload>(&w)) {
    const std::size_t m = element / p->cols, n = element % p->cols;
    out.push_back(p->initial[element]);
    for (std::size_t t = 0; t < p->steps; ++t)
      for (std::size_t k = 0; k < p->batch; ++k) out.push_back(p->a_at(t, m, k) * p->b_at(t, k, n));  // exact
  } else {
    const auto& s = std::get<SparseWorkload>(w);
    const std::size_t r = element / s.dim, d = element % s.dim;
    out.push_back(s.initial[element]);
    for (std::size_t q = 0; q < s.pairs(); ++q)
      if (s.row_index[q] == r) out.push_back(s.values[q * s.dim + d]);
  }
}

}  // namespace accucheck
