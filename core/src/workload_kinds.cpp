#include <algorithm>
#include <cmath>

#include "accucheck/fp8.h"
#include "accucheck/workload.h"

namespace accucheck {
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
  if (format == Format::f64) return "product workloads of f64 are not supported (products would not be exact in the oracle)";
  using workload_detail::fp8_format_problem;
  if (auto problem = fp8_format_problem(input_format, "input_format"); !problem.empty()) return problem;
  if (b_input_format && !input_format) return "b_input_format is set without input_format (A's format)";
  if (auto problem = fp8_format_problem(b_input_format, "b_input_format"); !problem.empty()) return problem;
  if (b_input_format && b_input_format == input_format)
    return "b_input_format equals input_format (" + std::string(name(*input_format)) + "): A and B in one format state input_format alone";
  for (auto problem : {check_size(initial.size(), rows * cols, "initial"), check_size(a.size(), steps * rows * batch, "a"),
                       check_size(b.size(), steps * batch * cols, "b"), check_values(initial, format, "initial"),
                       check_values(a, a_inputs(), "a"), check_values(b, b_inputs(), "b")})
    if (!problem.empty()) return problem;
  return "";
}

std::string SparseWorkload::validate() const {
  if (layout.table_padding > kMaxLayoutPadding || layout.value_padding > kMaxLayoutPadding)
    return "layout " + describe(layout) + " is out of range (padding at most " + std::to_string(kMaxLayoutPadding) + ")";
  if (auto p = check_size(initial.size(), rows * dim, "initial"); !p.empty()) return p;
  if (step_offsets.size() != steps + 1) return "step_offsets has " + std::to_string(step_offsets.size()) + " entries, expected steps+1";
  if (step_offsets.front() != 0 || step_offsets.back() != row_index.size())
    return "step_offsets must start at 0 and end at the number of pairs";
  for (std::size_t t = 0; t < steps; ++t)
    if (step_offsets[t] > step_offsets[t + 1]) return "step_offsets must not decrease (step " + std::to_string(t) + ")";
  for (std::size_t p = 0; p < row_index.size(); ++p)
    if (row_index[p] >= rows)
      return "row_index[" + std::to_string(p) + "] = " + std::to_string(row_index[p]) + " is not below rows = " + std::to_string(rows);
  if (auto p = check_size(values.size(), row_index.size() * dim, "values"); !p.empty()) return p;
  if (auto p = workload_detail::fp8_format_problem(input_format, "input_format"); !p.empty()) return p;
  if (auto p = check_values(initial, format, "initial"); !p.empty()) return p;
  return check_values(values, value_format(), "values");
}

std::string_view name(WorkloadKind k) {
  switch (k) {
    case WorkloadKind::dense: return "dense";
    case WorkloadKind::product: return "product";
    case WorkloadKind::sparse: return "sparse";
  }
  return "?";
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
    found = found || std::any_of(values.begin(), values.end(), [&](double x) { return x != 0 && std::fabs(x) < normal; });
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
  if (auto* p = std::get_if<ProductWorkload>(&w)) return sizeof(double) * (p->initial.size() + p->a.size() + p->b.size());
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
