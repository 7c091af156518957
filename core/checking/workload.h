// Workloads: what a backend is asked to accumulate.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "numerics/column_exact.h"
#include "numerics/exact.h"
#include "numerics/format.h"

namespace accucheck {

// Where a workload's values lie in memory for a backend that accepts strides (plugin ABI 2,
// plugin.h): values and sums are the same in every layout, only the places differ, so only a
// backend that declares it reads strided memory sees a layout; every other one gets the
// contiguous layout. Framework kernels take other paths for non-contiguous tensors (a
// transposed view, a slice x[:, ::2], rows padded to an alignment). Counts rather than strides,
// so that a layout stays valid when shrinking changes D and T.
inline constexpr std::uint32_t kMaxLayoutGap = 3;       // a slice with step up to 4
inline constexpr std::uint32_t kMaxLayoutPadding = 64;  // values after each row
// What generate() and the choice encoding give a row of `row_length` values: at most three times
// its length, so that padding keeps a buffer within 4x its size where rows are many and short
// (a wide element-major buffer, a table of 2^20 rows of dim 1: 65x with 64 values after each).
inline std::uint32_t layout_padding_limit(std::size_t row_length) {
  return static_cast<std::uint32_t>(std::min<std::size_t>(kMaxLayoutPadding, 3 * std::max<std::size_t>(row_length, 1)));
}
// Dense: element-major rows are the elements' T addends; step-major rows are the steps, which
// are few (at most 10^4 in CI), so their padding is not held.
inline std::uint32_t dense_padding_limit(bool element_major, std::size_t steps) {
  return element_major ? layout_padding_limit(steps) : kMaxLayoutPadding;
}

// Dense: step-major (element j of step t at t*S + j*(1+gap), S = D*(1+gap) + padding) or
// element-major, the transpose (at j*S + t*(1+gap), S = T*(1+gap) + padding); the buffer's
// element j at j*(1+buffer_gap). All zero: version 1's contiguous layout.
struct DenseLayout {
  bool element_major = false;
  std::uint32_t gap = 0;         // values skipped between neighbours of the inner dimension
  std::uint32_t padding = 0;     // values after each row of the outer dimension
  std::uint32_t buffer_gap = 0;  // values skipped between buffer elements
  bool contiguous() const { return !element_major && gap == 0 && padding == 0 && buffer_gap == 0; }
  bool operator==(const DenseLayout&) const = default;
};
// Sparse: table row r at r*(dim + table_padding), pair q's vector at q*(dim + value_padding).
struct SparseLayout {
  std::uint32_t table_padding = 0;
  std::uint32_t value_padding = 0;
  bool contiguous() const { return table_padding == 0 && value_padding == 0; }
  bool operator==(const SparseLayout&) const = default;
};

// A layout's strides, in values, and how many values its arrays span.
struct DenseStrides {
  std::size_t step = 0, element = 0, buffer = 1;
  std::size_t addend_span = 0, buffer_span = 0;
};
DenseStrides dense_strides(const DenseLayout& layout, std::size_t elements, std::size_t steps);
struct SparseStrides {
  std::size_t table_row = 0, value_pair = 0;    // dim + the paddings
  std::size_t table_span = 0, values_span = 0;  // the last row and vector end after their dim values
};
SparseStrides sparse_strides(const SparseLayout& layout, std::size_t rows, std::size_t dim, std::size_t pairs);
// "step-major", "element-major, gap 1, padding 3, buffer gap 2", ... (for messages).
std::string describe(const DenseLayout& layout);
std::string describe(const SparseLayout& layout);

// A buffer of D elements with an initial value (grad_req 'add' accumulates onto it) and T
// steps, each adding one addend per element. Element j's exact result is
// initial[j] + sum over t of addends[t*D + j]. Values are doubles holding values of `format`.
struct DenseWorkload {
  Format format = Format::f32;  // storage format of the addends and of the buffer
  std::size_t elements = 0;     // D
  std::size_t steps = 0;        // T
  std::vector<double> initial;  // D values
  std::vector<double> addends;  // T*D values, step-major
  std::string family;           // the generator family that made it (provenance; may be empty)
  DenseLayout layout;           // for backends that accept strides; the values above do not depend on it
  // FP8 gradients (E4M3 or E5M2) accumulated into a buffer of `format`: every step's addends are
  // values of this format, the initial buffer is one of `format`. Every value of either is a
  // value of f64, f32, f16 and bf16, so every dense backend of `format` runs it. Unset: the
  // addends are values of `format`.
  std::optional<Format> input_format;

  Format addend_format() const { return input_format.value_or(format); }
  // Where a column's terms (column()) that a change of order may move start: FP8 addends leave
  // the initial value, of another format, first.
  std::size_t first_movable_term() const { return input_format ? 1 : 0; }
  double addend(std::size_t step, std::size_t element) const { return addends[step * elements + element]; }
  // Element j's addends in summation order: initial[j], then steps 0..T-1 (n = T+1 values).
  void column(std::size_t element, std::vector<double>& out) const;
  // "" when consistent (sizes agree, every value is a value of `format`), else what is wrong.
  std::string validate() const;
};

// The exact summary of one element's addends (through the fast exact accumulator).
ExactSum exact_element(const DenseWorkload& workload, std::size_t element);
// Elements [begin, end) into `out` (replacing what it held): the same summaries, the columns
// summed side by side where they can be (column_exact.h, on the given SIMD path) when there are
// at least kMinSideBySideColumns of them.
inline constexpr std::size_t kMinSideBySideColumns = 8;
void exact_elements(const DenseWorkload& workload, std::size_t begin, std::size_t end, std::vector<ExactSum>& out,
                    SimdPath path = best_simd_path());

// A dense layer's weight gradient accumulated as GEMM with beta = 1 over T steps:
// C (rows x cols) += A_t (rows x batch) * B_t (batch x cols), t = 0..T-1. Element (m, n)'s
// terms are C[m][n] and every product A_t[m][k] * B_t[k][n] (n = 1 + T*batch terms). Products
// of two f32, f16 or bf16 values are exact in double; f64 product workloads are not supported.
struct ProductWorkload {
  Format format = Format::f32;  // storage of C and of the result; A and B too unless input_format says
  std::size_t rows = 0, cols = 0, batch = 0, steps = 0;
  std::vector<double> initial;  // rows*cols, row-major
  std::vector<double> a;        // steps*rows*batch: A_t[m][k] at [(t*rows + m)*batch + k]
  std::vector<double> b;        // steps*batch*cols: B_t[k][n] at [(t*batch + k)*cols + n]
  std::string family;
  // FP8 training's GEMM: A and B in E4M3 or E5M2 (every value of either is a value of f32, f16
  // and bf16, so every product backend of `format` runs it; the FP8 tensor-core models run only
  // these). Unset: A and B are values of `format`.
  std::optional<Format> input_format;
  // B's FP8 format where it differs from A's: the mixed GEMMs of recipes that keep gradients in
  // E5M2 and activations and weights in E4M3 (Transformer Engine's HYBRID format; the weight
  // gradient dY^T X multiplies one of each). Set only with input_format, and never equal to it.
  std::optional<Format> b_input_format;

  Format a_inputs() const { return input_format.value_or(format); }
  Format b_inputs() const { return b_input_format.value_or(a_inputs()); }

  std::size_t elements() const { return rows * cols; }
  double a_at(std::size_t t, std::size_t m, std::size_t k) const { return a[(t * rows + m) * batch + k]; }
  double b_at(std::size_t t, std::size_t k, std::size_t n) const { return b[(t * batch + k) * cols + n]; }
  std::string validate() const;
};

// An embedding gradient: a table (rows x dim) with an initial gradient; each step is a list of
// (row, vector) pairs, rows repeat within and across steps, many are never touched. Table
// element (r, d)'s terms: initial[r*dim + d], then values[p*dim + d] of every pair p with row r,
// in step and pair order.
struct SparseWorkload {
  Format format = Format::f32;
  std::size_t rows = 0, dim = 0, steps = 0;
  std::vector<double> initial;            // rows*dim
  std::vector<std::size_t> step_offsets;  // steps+1; step t owns pairs [step_offsets[t], step_offsets[t+1])
  std::vector<std::uint32_t> row_index;   // one row per pair
  std::vector<double> values;             // pairs*dim, pair-major
  std::string family;
  SparseLayout layout;  // for backends that accept strides
  // FP8 gradient rows (E4M3 or E5M2) into a table of `format`: every pair's values are values of
  // this format, the initial table one of `format` (as DenseWorkload::input_format). Unset: the
  // values are values of `format`.
  std::optional<Format> input_format;

  Format value_format() const { return input_format.value_or(format); }
  std::size_t elements() const { return rows * dim; }
  std::size_t pairs() const { return row_index.size(); }
  std::string validate() const;
};

// Equality of workloads: every field, the family included, and every value bit for bit: +0
// and -0 differ, any NaN equals any NaN (formats and case files keep no NaN payloads). Hence
// not `= default`, whose double == would make a NaN unequal to itself and -0 equal to +0.
// Workload (the variant) compares through these.
namespace workload_detail {
// "" when `input_format` (the field named `field`) is unset or an FP8 format, else what is wrong.
inline std::string fp8_format_problem(const std::optional<Format>& input_format, std::string_view field) {
  if (!input_format || is_fp8(*input_format)) return "";
  return std::string(field) + " " + std::string(name(*input_format)) + " is not an fp8 format (e4m3, e5m2)";
}
inline bool same_value_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](double x, double y) {
    return std::isnan(x) ? std::isnan(y) : std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
  });
}
}  // namespace workload_detail

inline bool operator==(const DenseWorkload& a, const DenseWorkload& b) {
  using workload_detail::same_value_bits;
  return a.format == b.format && a.elements == b.elements && a.steps == b.steps && a.family == b.family &&
         a.layout == b.layout && a.input_format == b.input_format && same_value_bits(a.initial, b.initial) &&
         same_value_bits(a.addends, b.addends);
}
inline bool operator==(const ProductWorkload& a, const ProductWorkload& b) {
  using workload_detail::same_value_bits;
  return a.format == b.format && a.rows == b.rows && a.cols == b.cols && a.batch == b.batch && a.steps == b.steps &&
         a.family == b.family && a.input_format == b.input_format && a.b_input_format == b.b_input_format &&
         same_value_bits(a.initial, b.initial) && same_value_bits(a.a, b.a) && same_value_bits(a.b, b.b);
}
inline bool operator==(const SparseWorkload& a, const SparseWorkload& b) {
  using workload_detail::same_value_bits;
  return a.format == b.format && a.rows == b.rows && a.dim == b.dim && a.steps == b.steps && a.family == b.family &&
         a.layout == b.layout && a.input_format == b.input_format && a.step_offsets == b.step_offsets &&
         a.row_index == b.row_index && same_value_bits(a.initial, b.initial) && same_value_bits(a.values, b.values);
}

enum class WorkloadKind : std::uint8_t { dense, product, sparse };
std::string_view name(WorkloadKind k);

using Workload = std::variant<DenseWorkload, ProductWorkload, SparseWorkload>;
WorkloadKind kind_of(const Workload& w);

// Calls array(v) on each array of values a workload holds (W: Workload or const Workload):
// initial and addends (dense); initial, a and, with `with_b`, b (product); initial and values
// (sparse). Scaling A alone scales a product workload's sums, hence the choice.
template <class W, class F>
void for_each_value_array(W& w, F array, bool with_b = true) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    array(d->initial);
    array(d->addends);
  } else if (auto* p = std::get_if<ProductWorkload>(&w)) {
    array(p->initial);
    array(p->a);
    if (with_b) array(p->b);
  } else {
    auto& s = std::get<SparseWorkload>(w);
    array(s.initial);
    array(s.values);
  }
}
Format format_of(const Workload& w);
// A product workload's A and B, a dense workload's addends and a sparse one's values brought into their FP8 formats,
// if they have them (finite values saturate to the largest finite value, NaN and infinities
// round as OFP8's non-saturating rule says): what moves that change values in the storage format
// call (climbing, shrinking, fuzz mutations), so that an FP8 workload stays one. Other workloads
// are left as they are.
void conform_inputs(Workload& w);
void conform_inputs(DenseWorkload& w);
void conform_inputs(ProductWorkload& w);
void conform_inputs(SparseWorkload& w);
// The FP8 format of one of w's value arrays (as for_each_value_array hands them): a product's A
// or B, a dense workload's addends, a sparse one's values, where they have one; else nullopt.
std::optional<Format> fp8_array_format(const Workload& w, const std::vector<double>& values);
// Whether A or B holds a nonzero subnormal of the inputs' format, and those replaced by zeros of
// their sign: the workloads a backend with normal_inputs_only (backend.h) runs.
bool has_subnormal_input(const ProductWorkload& w);
void flush_subnormal_inputs(ProductWorkload& w);
std::size_t element_count(const Workload& w);
std::string family_of(const Workload& w);
std::string validate(const Workload& w);
// The bytes the workload's values (and a sparse workload's row indices and step offsets) occupy.
std::uint64_t workload_bytes(const Workload& w);
// Largest number of terms of any element (n, the initial value included).
std::size_t max_terms(const Workload& w);
// Element e's terms in the order a sequential accumulator meets them.
void element_terms(const Workload& w, std::size_t element, std::vector<double>& out);

}  // namespace accucheck
