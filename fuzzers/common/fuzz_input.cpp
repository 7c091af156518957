#include "fuzz_input.h"

#include <algorithm>

namespace accucheck::fuzz {

GenerationLimits dense_limits() {
  GenerationLimits l;
  l.max_elements = 4;
  l.max_steps = 63;       // n = steps + 1 <= 64 addends per element
  l.max_long_steps = 63;  // long chains and stagnation stay at 64 too
  return l;
}

GenerationLimits sparse_limits() {
  GenerationLimits l;
  l.max_table_rows = 64;
  l.max_dim = 8;
  l.max_steps = 16;
  l.max_pairs = 256;
  return l;
}

GenerationLimits product_limits() {
  GenerationLimits l;
  l.max_elements = 4;
  l.max_batch = 32;
  return l;
}

GenerationLimits limits_for(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::sparse: return sparse_limits();
    case WorkloadKind::product: return product_limits();
    default: return dense_limits();
  }
}

int slot_bytes(Format f) { return traits(f).storage_bits / 8; }

std::uint64_t slot_mask(Format f) {
  const int bits = traits(f).storage_bits;
  return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

void ChoiceWriter::put(std::uint64_t value, std::uint64_t bound) {
  const int count = bytes_for_bound(bound);
  for (int i = count - 1; i >= 0; --i) bytes_.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
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

double raw_value(ChoiceStream& s, Format f) { return decode(s.draw(slot_mask(f)), f); }

void decode_dense_raw(ChoiceStream& s, Format f, const GenerationLimits& l, DenseWorkload& w) {
  w.format = f;
  w.elements = 1 + s.draw(l.max_elements - 1);
  w.steps = s.draw(l.max_steps);
  w.initial.resize(w.elements);
  w.addends.resize(w.elements * w.steps);
  for (double& x : w.initial) x = raw_value(s, f);
  for (double& x : w.addends) x = raw_value(s, f);
  w.family = "raw";
}

void decode_sparse_raw(ChoiceStream& s, Format f, const GenerationLimits& l, SparseWorkload& w) {
  w.format = f;
  w.rows = 1 + s.draw(l.max_table_rows - 1);
  w.dim = 1 + s.draw(l.max_dim - 1);
  w.steps = 1 + s.draw(l.max_steps - 1);
  const std::size_t pairs = s.draw(l.max_pairs);
  w.initial.resize(w.rows * w.dim);
  for (double& x : w.initial) x = raw_value(s, f);
  w.row_index.resize(pairs);
  w.values.resize(pairs * w.dim);
  for (std::size_t q = 0; q < pairs; ++q) {
    w.row_index[q] = static_cast<std::uint32_t>(s.draw(w.rows - 1));
    for (std::size_t d = 0; d < w.dim; ++d) w.values[q * w.dim + d] = raw_value(s, f);
  }
  w.step_offsets.assign(1, 0);
  for (std::size_t t = 1; t <= w.steps; ++t) w.step_offsets.push_back(pairs * t / w.steps);
  w.family = "raw";
}

void decode_product_raw(ChoiceStream& s, Format f, ProductWorkload& w) {
  const ProductShapeLimits l;
  w.format = f;
  w.rows = 1 + s.draw(l.rows - 1);
  w.cols = 1 + s.draw(l.cols - 1);
  w.batch = 1 + s.draw(l.batch - 1);
  w.steps = 1 + s.draw(l.steps - 1);
  w.initial.resize(w.rows * w.cols);
  w.a.resize(w.steps * w.rows * w.batch);
  w.b.resize(w.steps * w.batch * w.cols);
  for (auto* v : {&w.initial, &w.a, &w.b})
    for (double& x : *v) x = raw_value(s, f);
  w.family = "raw";
}

}  // namespace

std::uint64_t format_choice(Format f, WorkloadKind kind) { return format_index(f, kind); }

DecodedInput decode_input(ByteChoiceStream& s, WorkloadKind kind) {
  const GenerationLimits limits = limits_for(kind);
  const Format f = draw_format(s, kind);
  const auto candidates = families_of(kind);
  const std::uint64_t mode = s.draw(candidates.size());
  DecodedInput out{DenseWorkload{}, mode == 0, 0};
  if (mode == 0) {
    if (kind == WorkloadKind::sparse) {
      SparseWorkload w;
      decode_sparse_raw(s, f, limits, w);
      out.workload = std::move(w);
    } else if (kind == WorkloadKind::product) {
      ProductWorkload w;
      decode_product_raw(s, f, w);
      out.workload = std::move(w);
    } else {
      DenseWorkload w;
      decode_dense_raw(s, f, limits, w);
      out.workload = std::move(w);
    }
  } else {
    out.workload = generate(s, f, limits, kind, candidates[mode - 1]);
  }
  out.consumed = s.consumed();
  return out;
}

std::vector<std::uint8_t> encode_raw(const Workload& workload) {
  ChoiceWriter out;
  const Format f = format_of(workload);
  const WorkloadKind kind = kind_of(workload);
  const GenerationLimits l = limits_for(kind);
  out.put(format_index(f, kind), kind == WorkloadKind::product ? 2 : 3);
  out.put(0, families_of(kind).size());
  const std::uint64_t mask = slot_mask(f);
  auto value = [&](double x) { out.put(encode(x, f) & mask, mask); };
  if (const auto* d = std::get_if<DenseWorkload>(&workload)) {
    const std::size_t elements = std::clamp<std::size_t>(d->elements, 1, l.max_elements);
    const std::size_t steps = std::min<std::size_t>(d->steps, l.max_steps);
    out.put(elements - 1, l.max_elements - 1);
    out.put(steps, l.max_steps);
    for (std::size_t j = 0; j < elements; ++j) value(j < d->elements ? d->initial[j] : 0.0);
    for (std::size_t t = 0; t < steps; ++t)
      for (std::size_t j = 0; j < elements; ++j) value(j < d->elements ? d->addend(t, j) : 0.0);
  } else if (const auto* sw = std::get_if<SparseWorkload>(&workload)) {
    const std::size_t rows = std::clamp<std::size_t>(sw->rows, 1, l.max_table_rows);
    const std::size_t dim = std::clamp<std::size_t>(sw->dim, 1, l.max_dim);
    const std::size_t steps = std::clamp<std::size_t>(sw->steps, 1, l.max_steps);
    std::size_t pairs = std::min<std::size_t>(sw->pairs(), l.max_pairs);
    out.put(rows - 1, l.max_table_rows - 1);
    out.put(dim - 1, l.max_dim - 1);
    out.put(steps - 1, l.max_steps - 1);
    out.put(pairs, l.max_pairs);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t d = 0; d < dim; ++d)
        value(r < sw->rows && d < sw->dim ? sw->initial[r * sw->dim + d] : 0.0);
    for (std::size_t q = 0; q < pairs; ++q) {
      out.put(std::min<std::size_t>(sw->row_index[q], rows - 1), rows - 1);
      for (std::size_t d = 0; d < dim; ++d) value(d < sw->dim ? sw->values[q * sw->dim + d] : 0.0);
    }
  } else if (const auto* p = std::get_if<ProductWorkload>(&workload)) {
    const ProductShapeLimits pl;
    const std::size_t rows = std::clamp<std::size_t>(p->rows, 1, pl.rows), cols = std::clamp<std::size_t>(p->cols, 1, pl.cols);
    const std::size_t batch = std::clamp<std::size_t>(p->batch, 1, pl.batch), steps = std::clamp<std::size_t>(p->steps, 1, pl.steps);
    out.put(rows - 1, pl.rows - 1);
    out.put(cols - 1, pl.cols - 1);
    out.put(batch - 1, pl.batch - 1);
    out.put(steps - 1, pl.steps - 1);
    const bool inside = p->batch > 0 && p->steps > 0;
    for (std::size_t m = 0; m < rows; ++m)
      for (std::size_t n = 0; n < cols; ++n) value(m < p->rows && n < p->cols ? p->initial[m * p->cols + n] : 0.0);
    for (std::size_t t = 0; t < steps; ++t)
      for (std::size_t m = 0; m < rows; ++m)
        for (std::size_t k = 0; k < batch; ++k)
          value(inside && t < p->steps && m < p->rows && k < p->batch ? p->a_at(t, m, k) : 0.0);
    for (std::size_t t = 0; t < steps; ++t)
      for (std::size_t k = 0; k < batch; ++k)
        for (std::size_t n = 0; n < cols; ++n)
          value(inside && t < p->steps && k < p->batch && n < p->cols ? p->b_at(t, k, n) : 0.0);
  }
  return std::move(out.bytes());
}

}  // namespace accucheck::fuzz
