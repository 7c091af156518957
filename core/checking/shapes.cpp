#include "checking/shapes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

namespace accucheck {
namespace {

// The units no larger than `size` (kBoundaryUnits is ascending).
std::size_t units_up_to(std::size_t size) {
  std::size_t count = 0;
  while (count < std::size(kBoundaryUnits) && kBoundaryUnits[count] <= size) ++count;
  return count;
}

// A cap on a widened size: 2^k, k drawn below a bound that is itself drawn `draws` - 1 times
// (ShapeLimits::wide_scale_draws): with 2, P(2^k) falls about as 1/k and a wide case costs,
// on average, a few thousand values; with 1, every scale up to `cap` is as likely. Every scale
// stays reachable.
// The scale is above `above` (the size being widened) when the cap allows.
std::size_t drawn_scale(ChoiceStream& s, std::size_t cap, std::size_t draws, std::size_t above) {
  const auto low = static_cast<std::uint64_t>(std::bit_width(above));
  const auto top = static_cast<std::uint64_t>(std::bit_width(cap));
  if (top <= low) return cap;
  std::uint64_t k = top - low;
  for (std::size_t i = 0; i < std::max<std::size_t>(draws, 1); ++i) k = s.draw(k);
  return low + k >= 63 ? cap : std::min(cap, std::size_t{1} << (low + k));
}

// A boundary size in (current, cap]: drawn below a drawn scale, or the scale itself (a power of
// two, or the cap) when the draw is not above `current`.
std::size_t wider_size(ChoiceStream& s, std::size_t current, std::size_t cap, std::size_t draws) {
  const std::size_t scale = drawn_scale(s, cap, draws, current);
  const std::size_t size = draw_boundary_size(s, scale);
  return size > current ? size : scale;
}

// Distinct boundary positions in [0, size) for `count` original indices (count <= size); a
// position already taken moves to the next free one.
std::vector<std::size_t> boundary_placement(ChoiceStream& s, std::size_t count, std::size_t size) {
  std::vector<std::size_t> at(count);
  std::vector<bool> taken(size, false);
  for (auto& position : at) {
    std::size_t p = draw_boundary_position(s, size);
    while (taken[p]) p = (p + 1) % size;
    taken[p] = true;
    position = p;
  }
  return at;
}

// The values of the elements a widening adds: zeros, +-2^e (every partial sum of at most
// `terms` of them is k 2^e with |k| <= terms < 2^(p-1), exact in the format whatever the order
// or the grouping), or, where the caller can, copies of an original element. Signs come from a
// sub-seed: a million values cost the choice stream eight bytes.
class Filler {
 public:
  enum Kind { zeros, powers_of_two, copies };
  Filler(ChoiceStream& s, Format f, std::size_t terms, bool copies_allowed)
      : kind_(static_cast<Kind>(s.draw(copies_allowed ? 2 : 1))) {
    const auto& t = traits(f);
    const int high = std::min(8, t.emax - static_cast<int>(std::bit_width(terms)) - 1), low = std::max(-8, t.emin);
    exponent_ = low + static_cast<int>(s.draw(static_cast<std::uint64_t>(std::max(high - low, 0))));
    if (kind_ == powers_of_two && (terms >= (std::size_t{1} << (t.precision - 1)) || high < low)) kind_ = zeros;
    bulk_.emplace(s.seed());
  }
  Kind kind() const { return kind_; }
  double next() { return kind_ != powers_of_two ? 0.0 : std::ldexp(bulk_->coin() ? -1.0 : 1.0, exponent_); }
  // The sign alone (+-1, or 0 for zeros): B's entries of a product filler, whose products with
  // A's +-2^e stay +-2^e.
  double next_unit() { return kind_ != powers_of_two ? 0.0 : (bulk_->coin() ? -1.0 : 1.0); }

 private:
  Kind kind_;
  int exponent_ = 0;
  std::optional<SeededChoiceStream> bulk_;
};

bool widen(ChoiceStream& s, const ShapeLimits& l, DenseWorkload& w) {
  const std::size_t steps = w.steps, n = steps + 1;
  const std::size_t cap = std::min(l.max_wide_elements, l.max_wide_values / n);
  if (cap <= w.elements) return false;
  const std::size_t d = wider_size(s, w.elements, cap, l.wide_scale_draws);
  Filler filler(s, w.format, n, /*copies_allowed=*/true);
  const auto at = boundary_placement(s, w.elements, d);
  DenseWorkload wide{.format = w.format,
                     .elements = d,
                     .steps = steps,
                     .initial = std::vector<double>(d),
                     .addends = std::vector<double>(d * steps),
                     .family = w.family,
                     .layout = w.layout,
                     .input_format = w.input_format};
  const bool copies = filler.kind() == Filler::copies;
  for (double& x : wide.initial) x = copies ? w.initial[0] : filler.next();
  for (std::size_t t = 0; t < steps; ++t)
    for (std::size_t j = 0; j < d; ++j) wide.addends[t * d + j] = copies ? w.addend(t, 0) : filler.next();
  for (std::size_t j = 0; j < w.elements; ++j) {
    wide.initial[at[j]] = w.initial[j];
    for (std::size_t t = 0; t < steps; ++t) wide.addends[t * d + at[j]] = w.addend(t, j);
  }
  conform_inputs(wide);  // the filler's values are the storage format's
  w = std::move(wide);
  return true;
}

bool widen(ChoiceStream& s, const ShapeLimits& l, SparseWorkload& w) {
  // The table's dim, its rows, or both (the zero choice: the dim), within the values budget
  // (rows + pairs) x dim x max(steps, 1): a kernel that densifies each step's gradient touches
  // the whole table every step.
  const std::size_t pairs = w.pairs(), budget = l.max_wide_values / std::max<std::size_t>(w.steps, 1);
  const std::uint64_t which = s.draw(2);
  std::size_t dim = w.dim, rows = w.rows;
  if (which != 1) {
    const std::size_t cap = std::min(l.max_wide_dim, budget / (w.rows + pairs));
    if (cap > w.dim) dim = wider_size(s, w.dim, cap, l.wide_scale_draws);
  }
  if (which != 0) {
    const std::size_t budget_rows = budget / dim;
    const std::size_t cap = budget_rows > pairs ? std::min(l.max_wide_rows, budget_rows - pairs) : 0;
    if (cap > w.rows) rows = wider_size(s, w.rows, cap, l.wide_scale_draws);
  }
  if (dim == w.dim && rows == w.rows) return false;
  Filler filler(s, w.format, pairs + 1, /*copies_allowed=*/false);
  const auto row_at = boundary_placement(s, w.rows, rows);
  const auto dim_at = boundary_placement(s, w.dim, dim);
  SparseWorkload wide = w;  // its format, steps, step offsets, family, layout and input format
  wide.rows = rows;
  wide.dim = dim;
  wide.initial.assign(rows * dim, 0.0);
  wide.row_index.clear();
  wide.values.clear();
  for (double& x : wide.initial) x = filler.next();
  for (std::size_t r = 0; r < w.rows; ++r)
    for (std::size_t c = 0; c < w.dim; ++c) wide.initial[row_at[r] * dim + dim_at[c]] = w.initial[r * w.dim + c];
  wide.row_index.resize(pairs);
  wide.values.resize(pairs * dim);
  for (std::size_t q = 0; q < pairs; ++q) {
    wide.row_index[q] = static_cast<std::uint32_t>(row_at[w.row_index[q]]);
    for (std::size_t c = 0; c < dim; ++c) wide.values[q * dim + c] = filler.next();
    for (std::size_t c = 0; c < w.dim; ++c) wide.values[q * dim + dim_at[c]] = w.values[q * w.dim + c];
  }
  conform_inputs(wide);  // the filler's values are the storage format's
  w = std::move(wide);
  return true;
}

bool widen(ChoiceStream& s, const ShapeLimits& l, ProductWorkload& w) {
  // The batch K, the columns N, or both (the zero choice: K), within the values budget
  // rows N + T (rows K + K N). Added batch entries pair A = +-2^e with B = +-1 in added columns
  // and with B = 0 in the original ones, whose sums stay what the family made; added columns
  // take B = 0 from the original batch entries.
  const std::size_t budget = l.max_wide_values, rows = w.rows, steps = w.steps;
  const std::uint64_t which = s.draw(2);
  std::size_t batch = w.batch, cols = w.cols;
  auto values = [&](std::size_t k, std::size_t n) { return rows * n + steps * (rows * k + k * n); };
  if (which != 1) {
    std::size_t cap = std::min(l.max_wide_batch, budget / (steps * (rows + cols)));
    while (cap > w.batch && values(cap, cols) > budget) --cap;
    if (cap > w.batch) batch = wider_size(s, w.batch, cap, l.wide_scale_draws);
  }
  if (which != 0) {
    std::size_t cap = std::min(l.max_wide_cols, budget / (rows + steps * batch));
    while (cap > w.cols && values(batch, cap) > budget) --cap;
    if (cap > w.cols) cols = wider_size(s, w.cols, cap, l.wide_scale_draws);
  }
  if (batch == w.batch && cols == w.cols) return false;
  // Its +-2^e (e in -8..8) are E4M3 and E5M2 values too: FP8 inputs stay FP8.
  Filler filler(s, w.format, 1 + steps * batch, /*copies_allowed=*/false);
  const auto k_at = boundary_placement(s, w.batch, batch);
  const auto n_at = boundary_placement(s, w.cols, cols);
  std::vector<bool> original_k(batch, false), original_n(cols, false);
  for (auto k : k_at) original_k[k] = true;
  for (auto n : n_at) original_n[n] = true;
  ProductWorkload wide{.format = w.format,
                       .rows = rows,
                       .cols = cols,
                       .batch = batch,
                       .steps = steps,
                       .initial = std::vector<double>(rows * cols),
                       .a = {},
                       .b = {},
                       .family = w.family,
                       .input_format = w.input_format,
                       .b_input_format = w.b_input_format};
  for (std::size_t m = 0; m < rows; ++m)
    for (std::size_t n = 0; n < cols; ++n) wide.initial[m * cols + n] = original_n[n] ? 0.0 : filler.next();
  for (std::size_t m = 0; m < rows; ++m)
    for (std::size_t n = 0; n < w.cols; ++n) wide.initial[m * cols + n_at[n]] = w.initial[m * w.cols + n];
  wide.a.resize(steps * rows * batch);
  wide.b.resize(steps * batch * cols);
  for (std::size_t t = 0; t < steps; ++t) {
    for (std::size_t m = 0; m < rows; ++m)
      for (std::size_t k = 0; k < batch; ++k) wide.a[(t * rows + m) * batch + k] = original_k[k] ? 0.0 : filler.next();
    for (std::size_t k = 0; k < batch; ++k)
      for (std::size_t n = 0; n < cols; ++n)
        wide.b[(t * batch + k) * cols + n] = original_k[k] || original_n[n] ? 0.0 : filler.next_unit();
    for (std::size_t m = 0; m < rows; ++m)
      for (std::size_t k = 0; k < w.batch; ++k) wide.a[(t * rows + m) * batch + k_at[k]] = w.a_at(t, m, k);
    for (std::size_t k = 0; k < w.batch; ++k)
      for (std::size_t n = 0; n < w.cols; ++n) wide.b[(t * batch + k_at[k]) * cols + n_at[n]] = w.b_at(t, k, n);
  }
  w = std::move(wide);
  return true;
}

}  // namespace

std::size_t draw_boundary_size(ChoiceStream& s, std::size_t max) {
  if (max <= 1) return 1;
  std::size_t size;
  const std::uint64_t kind = s.draw(3);
  const std::size_t units = units_up_to(max);
  if (kind == 0 || (kind >= 2 && units == 0)) {
    return 1 + static_cast<std::size_t>(s.draw(max - 1));
  } else if (kind == 1) {
    size = std::size_t{1} << s.draw(static_cast<std::uint64_t>(std::bit_width(max) - 1));
  } else {
    const std::size_t unit = kBoundaryUnits[s.pick(units)];
    // Multiples up to max/unit, small ones likelier: the bound is itself drawn.
    size = unit * (1 + static_cast<std::size_t>(s.draw(s.draw(max / unit - 1))));
  }
  switch (s.draw(2)) {
    case 1: ++size; break;
    case 2: --size; break;
    default: break;
  }
  return std::clamp<std::size_t>(size, 1, max);
}

std::size_t draw_boundary_position(ChoiceStream& s, std::size_t size) {
  if (size <= 1) return 0;
  const std::uint64_t kind = s.draw(3);
  const std::size_t units = units_up_to(size);
  if (kind == 0 || (kind == 3 && units == 0)) return size - 1;
  if (kind == 1) return 0;
  if (kind == 2) return static_cast<std::size_t>(s.draw(size - 1));
  // The last element of block m of a unit, or the first of block m + 1.
  const std::size_t unit = kBoundaryUnits[s.pick(units)];
  const std::size_t edge = unit * (1 + static_cast<std::size_t>(s.draw(size / unit - 1)));
  const std::size_t p = s.coin() ? edge : edge - 1;
  return std::min(p, size - 1);
}

bool widen_at_boundaries(ChoiceStream& s, const ShapeLimits& limits, Workload& w) {
  return std::visit([&](auto& x) { return widen(s, limits, x); }, w);
}

void encode_layout(ChoiceWriter& out, const Workload& w) {
  if (const auto* d = std::get_if<DenseWorkload>(&w)) {
    const std::uint32_t padding_limit = dense_padding_limit(d->layout.element_major, d->steps);
    if (d->layout.gap > kMaxLayoutGap || d->layout.padding > padding_limit || d->layout.buffer_gap > kMaxLayoutGap)
      throw std::invalid_argument("layout " + describe(d->layout) +
                                  " is out of the encoding's range (padding at most " + std::to_string(padding_limit) +
                                  " here)");
    out.put(d->layout.element_major ? 1 : 0, 1);
    out.put(d->layout.gap, kMaxLayoutGap);
    out.put(d->layout.padding, padding_limit);
    out.put(d->layout.buffer_gap, kMaxLayoutGap);
  } else if (const auto* sp = std::get_if<SparseWorkload>(&w)) {
    const std::uint32_t padding_limit = layout_padding_limit(sp->dim);
    if (sp->layout.table_padding > padding_limit || sp->layout.value_padding > padding_limit)
      throw std::invalid_argument("layout " + describe(sp->layout) +
                                  " is out of the encoding's range (padding at most " + std::to_string(padding_limit) +
                                  " here)");
    out.put(sp->layout.table_padding, padding_limit);
    out.put(sp->layout.value_padding, padding_limit);
  }
}

void decode_layout(ChoiceStream& s, Workload& w) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    d->layout.element_major = s.draw(1) != 0;
    d->layout.gap = static_cast<std::uint32_t>(s.draw(kMaxLayoutGap));
    d->layout.padding = static_cast<std::uint32_t>(s.draw(dense_padding_limit(d->layout.element_major, d->steps)));
    d->layout.buffer_gap = static_cast<std::uint32_t>(s.draw(kMaxLayoutGap));
  } else if (auto* sp = std::get_if<SparseWorkload>(&w)) {
    const std::uint32_t padding_limit = layout_padding_limit(sp->dim);
    sp->layout.table_padding = static_cast<std::uint32_t>(s.draw(padding_limit));
    sp->layout.value_padding = static_cast<std::uint32_t>(s.draw(padding_limit));
  }
}

}  // namespace accucheck
