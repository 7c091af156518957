#include "fuzz_input.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "io/case_file.h"
#include "io/workload_encoding.h"

namespace accucheck::fuzz {

// n = steps + 1 <= 64 addends per element; long chains and stagnation stay at 64 too. The
// families do not widen (max_wide_values = 0: a generated wide case costs libFuzzer's throughput
// 40 ordinary ones, and the family inputs keep their meaning); wide buffers come through the
// explicit encoding's compact form (max_patched_elements) and the mutator's widening.
// ACCUCHECK_FUZZ_WIDE=0 turns the wide buffers off (the encoding then has no widening choice).
namespace {

// The fuzzers' limits: the families' sizes given, no widening by the families, and the
// encoding's compact wide buffers when asked for.
EncodingLimits fuzz_limits(const FamilyLimits& families, std::size_t max_patched_elements = 0,
                           std::size_t max_patched_values = std::size_t{1} << 20) {
  EncodingLimits l;
  static_cast<FamilyLimits&>(l) = families;
  l.max_wide_values = 0;
  l.max_patched_elements = max_patched_elements;
  l.max_patched_values = max_patched_values;
  return l;
}

}  // namespace

EncodingLimits dense_limits() {
  static const bool wide = [] {
    const char* v = std::getenv("ACCUCHECK_FUZZ_WIDE");
    return !(v && std::string_view(v) == "0");
  }();
  return fuzz_limits({.max_elements = 4, .max_steps = 63, .max_long_steps = 63}, wide ? std::size_t{1} << 17 : 0,
                     std::size_t{1} << 14);
}

EncodingLimits sparse_limits() {
  return fuzz_limits({.max_steps = 16, .max_table_rows = 64, .max_dim = 8, .max_pairs = 256});
}

EncodingLimits product_limits() {
  return fuzz_limits(
      {.max_elements = 4, .max_batch = 32, .max_product_steps = 4, .max_product_rows = 4, .max_product_cols = 8});
}

EncodingLimits limits_for(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::sparse: return sparse_limits();
    case WorkloadKind::product: return product_limits();
    default: return dense_limits();
  }
}

namespace {

constexpr Format kFormats[] = {Format::f64, Format::f32, Format::f16, Format::bf16};
constexpr Format kProductFormats[] = {Format::f32, Format::f16, Format::bf16};

std::uint64_t format_index(Format f, WorkloadKind kind) {
  if (kind == WorkloadKind::product) {
    for (std::uint64_t i = 0; i < 3; ++i)
      if (kProductFormats[i] == f) return i;
    return 0;
  }
  for (std::uint64_t i = 0; i < 4; ++i)
    if (kFormats[i] == f) return i;
  return 0;
}

Format draw_format(ChoiceStream& s, WorkloadKind kind) {
  return kind == WorkloadKind::product ? kProductFormats[s.draw(2)] : kFormats[s.draw(3)];
}

// The workload cut to the limits (the custom mutator's results may grow past them): sizes
// clamped, values beyond the cut dropped, row indices kept inside the table. A wide dense buffer
// keeps its width when its non-trivial columns fit.
Workload fit_to_limits(const Workload& given, const EncodingLimits& l) {
  Workload workload = given;
  fit_layout(workload, l);
  if (const auto* d = std::get_if<DenseWorkload>(&workload)) {
    if (split_patched(*d, l)) return *d;
    DenseWorkload w = *d;
    w.elements = std::clamp<std::size_t>(d->elements, 1, l.max_elements);
    w.steps = std::min(d->steps, std::max(l.max_steps, l.max_long_steps));
    w.initial.assign(w.elements, 0.0);
    w.addends.assign(w.elements * w.steps, 0.0);
    for (std::size_t j = 0; j < std::min(w.elements, d->elements); ++j) {
      w.initial[j] = d->initial[j];
      for (std::size_t t = 0; t < w.steps; ++t) w.addends[t * w.elements + j] = d->addend(t, j);
    }
    return w;
  }
  if (const auto* sp = std::get_if<SparseWorkload>(&workload)) {
    SparseWorkload w = *sp;
    w.rows = std::clamp<std::size_t>(sp->rows, 1, l.max_table_rows);
    w.dim = std::clamp<std::size_t>(sp->dim, 1, l.max_dim);
    w.steps = std::min(sp->steps, std::max(l.max_steps, l.max_long_steps));
    w.initial.assign(w.rows * w.dim, 0.0);
    for (std::size_t r = 0; r < std::min(w.rows, sp->rows); ++r)
      for (std::size_t c = 0; c < std::min(w.dim, sp->dim); ++c)
        w.initial[r * w.dim + c] = sp->initial[r * sp->dim + c];
    w.row_index.clear();
    w.values.clear();
    w.step_offsets.assign(1, 0);
    const std::size_t max_pairs = std::max(l.max_pairs, l.max_row_hits);
    for (std::size_t t = 0; t < w.steps; ++t) {
      for (std::size_t q = sp->step_offsets[t]; q < sp->step_offsets[t + 1] && w.row_index.size() < max_pairs; ++q) {
        w.row_index.push_back(std::min<std::uint32_t>(sp->row_index[q], static_cast<std::uint32_t>(w.rows - 1)));
        for (std::size_t c = 0; c < w.dim; ++c) w.values.push_back(c < sp->dim ? sp->values[q * sp->dim + c] : 0.0);
      }
      w.step_offsets.push_back(w.row_index.size());
    }
    return w;
  }
  const auto& p = std::get<ProductWorkload>(workload);
  ProductWorkload w = p;
  w.rows = std::clamp<std::size_t>(p.rows, 1, l.max_product_rows);
  w.cols = std::clamp<std::size_t>(p.cols, 1, l.max_product_cols);
  w.batch = std::clamp<std::size_t>(p.batch, 1, l.max_batch);
  w.steps = std::clamp<std::size_t>(p.steps, 1, l.max_product_steps);
  const bool inside = p.batch > 0 && p.steps > 0;
  w.initial.assign(w.rows * w.cols, 0.0);
  w.a.assign(w.steps * w.rows * w.batch, 0.0);
  w.b.assign(w.steps * w.batch * w.cols, 0.0);
  for (std::size_t m = 0; m < std::min(w.rows, p.rows); ++m)
    for (std::size_t n = 0; n < std::min(w.cols, p.cols); ++n) w.initial[m * w.cols + n] = p.initial[m * p.cols + n];
  if (inside)
    for (std::size_t t = 0; t < std::min(w.steps, p.steps); ++t)
      for (std::size_t k = 0; k < std::min(w.batch, p.batch); ++k) {
        for (std::size_t m = 0; m < std::min(w.rows, p.rows); ++m)
          w.a[(t * w.rows + m) * w.batch + k] = p.a_at(t, m, k);
        for (std::size_t n = 0; n < std::min(w.cols, p.cols); ++n)
          w.b[(t * w.batch + k) * w.cols + n] = p.b_at(t, k, n);
      }
  return w;
}

// A case file given as the input (a committed regression, or one passed by hand): its
// workload, whatever its size, when it is one of this kind.
std::optional<Workload> case_file_input(std::span<const std::uint8_t> bytes, WorkloadKind kind) {
  if (bytes.empty() || bytes[0] != '{') return std::nullopt;
  try {
    CaseFile c = parse_case(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "fuzz input");
    if (kind_of(c.workload) != kind) return std::nullopt;
    return std::move(c.workload);
  } catch (const std::exception&) {
    return std::nullopt;  // bytes that merely start with '{': a choice stream like any other
  }
}

}  // namespace

std::uint64_t format_choice(Format f, WorkloadKind kind) { return format_index(f, kind); }

void fit_layout(Workload& w, const EncodingLimits& l) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    const std::size_t steps = std::min(d->steps, std::max(l.max_steps, l.max_long_steps));
    d->layout.padding = std::min(d->layout.padding, dense_padding_limit(d->layout.element_major, steps));
  } else if (auto* sp = std::get_if<SparseWorkload>(&w)) {
    const std::uint32_t limit = layout_padding_limit(std::clamp<std::size_t>(sp->dim, 1, l.max_dim));
    sp->layout.table_padding = std::min(sp->layout.table_padding, limit);
    sp->layout.value_padding = std::min(sp->layout.value_padding, limit);
  }
}

DecodedInput decode_input(ByteChoiceStream& s, WorkloadKind kind) {
  const EncodingLimits limits = limits_for(kind);
  const Format f = draw_format(s, kind);
  const auto candidates = families_of(kind);
  const std::uint64_t mode = s.draw(candidates.size());
  DecodedInput out{DenseWorkload{}, mode == 0, 0};
  if (mode == 0)
    out.workload = decode_workload(s, kind, f, limits);
  else
    out.workload = generate(s, f, limits, kind, candidates[mode - 1]);
  out.consumed = s.consumed();
  return out;
}

DecodedInput decode_input(std::span<const std::uint8_t> bytes, WorkloadKind kind) {
  if (auto from_case = case_file_input(bytes, kind)) return DecodedInput{std::move(*from_case), true, bytes.size()};
  ByteChoiceStream s(bytes);
  return decode_input(s, kind);
}

std::vector<std::uint8_t> encode_input(const Workload& workload) {
  ChoiceWriter out;
  const Format f = format_of(workload);
  const WorkloadKind kind = kind_of(workload);
  const EncodingLimits limits = limits_for(kind);
  out.put(format_index(f, kind), kind == WorkloadKind::product ? 2 : 3);
  out.put(0, families_of(kind).size());
  encode_workload(out, fit_to_limits(workload, limits), limits);
  return std::move(out.bytes());
}

}  // namespace accucheck::fuzz
