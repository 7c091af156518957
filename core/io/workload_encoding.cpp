#include "io/workload_encoding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>

#include "checking/shapes.h"
#include "io/case_file.h"

namespace accucheck {
namespace {

std::uint64_t low_bits(int n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

// The lowest `width` bits of v in reverse order.
std::uint64_t reversed(std::uint64_t v, int width) {
  std::uint64_t r = 0;
  for (int i = 0; i < width; ++i) r |= ((v >> i) & 1) << (width - 1 - i);
  return r;
}

struct Layout {  // of a format's bit pattern
  int mantissa_bits, exponent_bits;
  std::uint64_t bias, max_exponent;
  explicit Layout(Format f)
      : mantissa_bits(traits(f).precision - 1),
        exponent_bits(traits(f).exponent_bits),
        bias(low_bits(traits(f).exponent_bits - 1)),
        max_exponent(low_bits(traits(f).exponent_bits)) {}
  // Exponents near 1 first: b, b+1, ..., max (infinity, NaN), then b-1 down to 0 (subnormals).
  std::uint64_t exponent_of_rank(std::uint64_t rank) const {
    return rank <= max_exponent - bias ? bias + rank : bias - (rank - (max_exponent - bias));
  }
  std::uint64_t rank_of_exponent(std::uint64_t e) const {
    return e >= bias ? e - bias : (max_exponent - bias) + (bias - e);
  }
};

std::size_t size_at_least_one(ChoiceStream& s, std::size_t limit) {
  return 1 + s.draw(std::max<std::size_t>(limit, 1) - 1);
}

void put_size_at_least_one(ChoiceWriter& out, std::size_t n, std::size_t limit, const char* what) {
  if (n < 1 || n > std::max<std::size_t>(limit, 1))
    throw std::invalid_argument(std::string(what) + " " + std::to_string(n) + " is outside the encoding's limits (1.." +
                                std::to_string(std::max<std::size_t>(limit, 1)) + ")");
  out.put(n - 1, std::max<std::size_t>(limit, 1) - 1);
}

void put_size(ChoiceWriter& out, std::size_t n, std::size_t limit, const char* what) {
  if (n > limit)
    throw std::invalid_argument(std::string(what) + " " + std::to_string(n) + " is beyond the encoding's limit " +
                                std::to_string(limit));
  out.put(n, limit);
}

std::size_t step_limit(const EncodingLimits& l) { return std::max(l.max_steps, l.max_long_steps); }
std::size_t pair_limit(const EncodingLimits& l) { return std::max(l.max_pairs, l.max_row_hits); }

// Sizes up to the boundary shapes' limits where those are on (families.h, shapes.h); past the
// ordinary limits, the sizes drawn after them are held to the wide values budget, so that no
// choice sequence decodes to more than about max_wide_values values.
std::size_t wide_or(const EncodingLimits& l, std::size_t ordinary, std::size_t wide) {
  return std::max(ordinary, l.max_wide_values > 0 ? wide : 0);
}
std::size_t within_budget(const EncodingLimits& l, std::size_t limit, std::size_t per_unit) {
  return std::min(limit, std::max<std::size_t>(l.max_wide_values / std::max<std::size_t>(per_unit, 1), 1));
}
std::size_t element_limit(const EncodingLimits& l) {
  return wide_or(l, l.max_elements, std::min(l.max_wide_elements, l.max_wide_values));
}
// Steps of a dense workload of `elements` (steps + 1 <= budget / D when D is wide).
std::size_t dense_step_limit(const EncodingLimits& l, std::size_t elements) {
  return elements <= l.max_elements ? step_limit(l) : within_budget(l, step_limit(l) + 1, elements) - 1;
}
std::size_t table_row_limit(const EncodingLimits& l) {
  return wide_or(l, l.max_table_rows, std::min(l.max_wide_rows, l.max_wide_values));
}
std::size_t dim_limit(const EncodingLimits& l, std::size_t rows) {
  const std::size_t limit = wide_or(l, l.max_dim, l.max_wide_dim);
  return rows <= l.max_table_rows ? limit : within_budget(l, limit, rows);
}
std::size_t product_col_limit(const EncodingLimits& l) { return wide_or(l, l.max_product_cols, l.max_wide_cols); }
std::size_t batch_limit(const EncodingLimits& l, std::size_t rows, std::size_t cols) {
  const std::size_t limit = wide_or(l, l.max_batch, l.max_wide_batch);
  return cols <= l.max_product_cols ? limit : within_budget(l, limit, rows + cols);
}
std::size_t product_step_limit(const EncodingLimits& l, std::size_t rows, std::size_t cols, std::size_t batch) {
  const bool wide = cols > l.max_product_cols || batch > l.max_batch;
  return wide ? within_budget(l, l.max_product_steps, batch * (rows + cols)) : l.max_product_steps;
}

// ---- compact wide buffers (EncodingLimits::max_patched_elements) ----------------------------

constexpr std::uint64_t kWidenBound = 15;  // the widening choice: 1 widens, anything else does not

// D' from its choices, within (narrow, cap].
std::size_t decode_patched_size(ChoiceStream& s, std::size_t narrow, std::size_t cap) {
  const std::size_t room = cap - narrow;  // >= 1
  std::size_t size = 0;
  switch (s.draw(2)) {
    case 0: return narrow + 1 + s.draw(room - 1);
    case 1: size = std::size_t{1} << s.draw(std::bit_width(cap)); break;
    default: {
      const std::size_t unit = kBoundaryUnits[s.pick(std::size(kBoundaryUnits))];
      size = unit * (1 + s.draw(std::max<std::size_t>(cap / unit, 1) - 1));
      break;
    }
  }
  size = size + s.draw(2) - 1;  // -1, 0, +1
  return std::clamp(size, narrow + 1, cap);
}

void decode_patched(ChoiceStream& s, DenseWorkload& d, const EncodingLimits& l) {
  const std::size_t cap = patched_elements_limit(l, d.steps);
  if (cap <= d.elements || s.draw(kWidenBound) != 1) return;
  const std::size_t wide = decode_patched_size(s, d.elements, cap), narrow = d.elements;
  std::vector<std::size_t> at(narrow);
  if (s.draw(1) == 0) {
    for (std::size_t i = 0, next = 0; i < narrow; ++i) {  // ascending, room left for the rest
      at[i] = next + s.draw(wide - (narrow - i) - next);
      next = at[i] + 1;
    }
  } else {
    for (std::size_t i = 0; i < narrow; ++i) at[i] = wide - narrow + i;
  }
  d = place_patched(PatchedDense{std::move(d), wide, std::move(at)});
}

void values(ChoiceWriter& out, const std::vector<double>& xs, Format f) {
  for (double x : xs) encode_value(out, x, f);
}

void values(ChoiceStream& s, std::vector<double>& xs, std::size_t count, Format f) {
  xs.resize(count);
  for (double& x : xs) x = decode_value(s, f);
}

// A product workload's FP8 inputs as one choice: 0 none, 1 both E4M3, 2 both E5M2, 3 A E4M3
// and B E5M2, 4 A E5M2 and B E4M3 (every combination validate() accepts, so the encoding stays
// invertible).
constexpr std::uint64_t kFp8InputsBound = 4;
std::uint64_t fp8_inputs_choice(const ProductWorkload& p) {
  if (!p.input_format) return 0;
  if (!p.b_input_format) return *p.input_format == Format::e4m3 ? 1 : 2;
  return *p.input_format == Format::e4m3 ? 3 : 4;
}
void set_fp8_inputs(ProductWorkload& p, std::uint64_t choice) {
  p.input_format = choice == 1 || choice == 3 ? Format::e4m3 : Format::e5m2;
  if (choice >= 3) p.b_input_format = choice == 3 ? Format::e5m2 : Format::e4m3;
}

// A dense workload's FP8 addends, a sparse one's FP8 values, as one choice: 0 none, 1 E4M3, 2 E5M2.
constexpr std::uint64_t kFp8ValuesBound = 2;
template <class W>
std::uint64_t fp8_values_choice(const W& w) {
  if (!w.input_format) return 0;
  return *w.input_format == Format::e4m3 ? 1 : 2;
}
// The format that choice names (the caller rounds the values into it: conform_inputs).
std::optional<Format> decode_fp8_values(ChoiceStream& s) {
  const std::uint64_t choice = s.draw(kFp8ValuesBound);
  if (choice == 0) return std::nullopt;
  return choice == 1 ? Format::e4m3 : Format::e5m2;
}

}  // namespace

void encode_value(ChoiceWriter& out, double x, Format f) {
  const Layout l(f);
  const int p = traits(f).precision;
  if (std::isfinite(x) && std::trunc(x) == x && std::fabs(x) < std::ldexp(1.0, p)) {
    out.put(0, 1);
    out.put(static_cast<std::uint64_t>(std::fabs(x)), low_bits(p));
    out.put(std::signbit(x) ? 1 : 0, 1);
    return;
  }
  const std::uint64_t bits = encode(x, f);
  const std::uint64_t mantissa = bits & low_bits(l.mantissa_bits);
  const std::uint64_t exponent = (bits >> l.mantissa_bits) & l.max_exponent;
  const std::uint64_t sign = (bits >> (l.mantissa_bits + l.exponent_bits)) & 1;
  out.put(1, 1);
  out.put(l.rank_of_exponent(exponent), l.max_exponent);
  out.put(reversed(mantissa, l.mantissa_bits), low_bits(l.mantissa_bits));
  out.put(sign, 1);
}

double decode_value(ChoiceStream& s, Format f) {
  const Layout l(f);
  const int p = traits(f).precision;
  if (s.draw(1) == 0) {
    const double n = static_cast<double>(s.draw(low_bits(p)));
    return s.draw(1) ? -n : n;
  }
  const std::uint64_t exponent = l.exponent_of_rank(s.draw(l.max_exponent));
  const std::uint64_t mantissa = reversed(s.draw(low_bits(l.mantissa_bits)), l.mantissa_bits);
  const std::uint64_t sign = s.draw(1);
  return decode((sign << (l.mantissa_bits + l.exponent_bits)) | (exponent << l.mantissa_bits) | mantissa, f);
}

void encode_workload(ChoiceWriter& out, const Workload& w, const EncodingLimits& limits) {
  const Format f = format_of(w);
  if (const auto* d = std::get_if<DenseWorkload>(&w)) {
    const auto patched = split_patched(*d, limits);
    const DenseWorkload& narrow = patched ? patched->narrow : *d;
    put_size_at_least_one(out, narrow.elements, element_limit(limits), "elements");
    put_size(out, narrow.steps, dense_step_limit(limits, narrow.elements), "steps");
    values(out, narrow.initial, f);
    values(out, narrow.addends, f);
    encode_layout(out, narrow);
    if (patched_elements_limit(limits, narrow.steps) > narrow.elements) {
      out.put(patched ? 1 : 0, kWidenBound);
      if (patched) {
        out.put(0, 2);  // D' raw
        out.put(d->elements - narrow.elements - 1, patched_elements_limit(limits, d->steps) - narrow.elements - 1);
        out.put(0, 1);  // ascending positions
        for (std::size_t i = 0, next = 0; i < patched->at.size(); ++i) {
          out.put(patched->at[i] - next, d->elements - (patched->at.size() - i) - next);
          next = patched->at[i] + 1;
        }
      }
    }
    // Last, so that a stream without it decodes as unset.
    out.put(fp8_values_choice(*d), kFp8ValuesBound);
  } else if (const auto* p = std::get_if<ProductWorkload>(&w)) {
    put_size_at_least_one(out, p->rows, limits.max_product_rows, "rows");
    put_size_at_least_one(out, p->cols, product_col_limit(limits), "cols");
    put_size_at_least_one(out, p->batch, batch_limit(limits, p->rows, p->cols), "batch");
    put_size_at_least_one(out, p->steps, product_step_limit(limits, p->rows, p->cols, p->batch), "steps");
    values(out, p->initial, f);
    values(out, p->a, f);
    values(out, p->b, f);
    // Last, so that a stream without it decodes as unset.
    out.put(fp8_inputs_choice(*p), kFp8InputsBound);
  } else {
    const auto& sp = std::get<SparseWorkload>(w);
    put_size_at_least_one(out, sp.rows, table_row_limit(limits), "rows");
    put_size_at_least_one(out, sp.dim, dim_limit(limits, sp.rows), "dim");
    put_size(out, sp.steps, step_limit(limits), "steps");
    values(out, sp.initial, f);
    std::size_t left = pair_limit(limits);
    for (std::size_t t = 0; t < sp.steps; ++t) {  // each step: its pair count, then its pairs
      const std::size_t pairs = sp.step_offsets[t + 1] - sp.step_offsets[t];
      put_size(out, pairs, left, "pairs");
      left -= pairs;
      for (std::size_t q = sp.step_offsets[t]; q < sp.step_offsets[t + 1]; ++q) {
        out.put(sp.row_index[q], sp.rows - 1);
        for (std::size_t c = 0; c < sp.dim; ++c) encode_value(out, sp.values[q * sp.dim + c], f);
      }
    }
    encode_layout(out, w);
    out.put(fp8_values_choice(sp), kFp8ValuesBound);  // last, as for dense workloads
  }
}

Workload decode_workload(ChoiceStream& s, WorkloadKind kind, Format f, const EncodingLimits& limits) {
  if (kind == WorkloadKind::dense) {
    DenseWorkload d;
    d.format = f;
    d.family = "explicit";
    d.elements = size_at_least_one(s, element_limit(limits));
    d.steps = s.draw(dense_step_limit(limits, d.elements));
    values(s, d.initial, d.elements, f);
    values(s, d.addends, d.elements * d.steps, f);
    Workload w = std::move(d);
    decode_layout(s, w);
    if (limits.max_patched_elements > 0) decode_patched(s, std::get<DenseWorkload>(w), limits);
    std::get<DenseWorkload>(w).input_format = decode_fp8_values(s);
    conform_inputs(w);
    return w;
  }
  if (kind == WorkloadKind::product) {
    ProductWorkload p;
    p.format = f;
    p.family = "explicit";
    p.rows = size_at_least_one(s, limits.max_product_rows);
    p.cols = size_at_least_one(s, product_col_limit(limits));
    p.batch = size_at_least_one(s, batch_limit(limits, p.rows, p.cols));
    p.steps = size_at_least_one(s, product_step_limit(limits, p.rows, p.cols, p.batch));
    values(s, p.initial, p.rows * p.cols, f);
    values(s, p.a, p.steps * p.rows * p.batch, f);
    values(s, p.b, p.steps * p.batch * p.cols, f);
    if (const std::uint64_t inputs = s.draw(kFp8InputsBound); inputs != 0) {  // A and B rounded into their FP8 formats
      set_fp8_inputs(p, inputs);
      Workload w = std::move(p);
      conform_inputs(w);
      return w;
    }
    return p;
  }
  SparseWorkload sp;
  sp.format = f;
  sp.family = "explicit";
  sp.rows = size_at_least_one(s, table_row_limit(limits));
  sp.dim = size_at_least_one(s, dim_limit(limits, sp.rows));
  sp.steps = s.draw(step_limit(limits));
  values(s, sp.initial, sp.rows * sp.dim, f);
  sp.step_offsets.assign(1, 0);
  std::size_t left = pair_limit(limits);
  for (std::size_t t = 0; t < sp.steps; ++t) {
    const std::size_t pairs = s.draw(left);
    left -= pairs;
    for (std::size_t q = 0; q < pairs; ++q) {
      sp.row_index.push_back(static_cast<std::uint32_t>(s.draw(sp.rows - 1)));
      for (std::size_t c = 0; c < sp.dim; ++c) sp.values.push_back(decode_value(s, f));
    }
    sp.step_offsets.push_back(sp.row_index.size());
  }
  Workload w = std::move(sp);
  decode_layout(s, w);
  std::get<SparseWorkload>(w).input_format = decode_fp8_values(s);
  conform_inputs(w);
  return w;
}

std::size_t patched_elements_limit(const EncodingLimits& l, std::size_t steps) {
  return std::min(l.max_patched_elements, std::max<std::size_t>(l.max_patched_values / (steps + 1), 1));
}

std::optional<PatchedDense> split_patched(const DenseWorkload& w, const EncodingLimits& l) {
  if (w.elements <= element_limit(l) || w.elements > patched_elements_limit(l, w.steps) ||
      w.steps > dense_step_limit(l, 1))
    return std::nullopt;
  auto plus_zero = [](double x) { return x == 0 && !std::signbit(x); };
  auto trivial = [&](std::size_t j) {
    if (!plus_zero(w.initial[j])) return false;
    for (std::size_t t = 0; t < w.steps; ++t)
      if (!plus_zero(w.addend(t, j))) return false;
    return true;
  };
  PatchedDense p;
  p.elements = w.elements;
  for (std::size_t j = 0; j < w.elements; ++j)
    if (!trivial(j)) {
      if (p.at.size() == element_limit(l)) return std::nullopt;
      p.at.push_back(j);
    }
  if (p.at.empty()) p.at.push_back(0);
  p.narrow = w;
  p.narrow.elements = p.at.size();
  p.narrow.initial.clear();
  p.narrow.addends.clear();
  for (std::size_t j : p.at) p.narrow.initial.push_back(w.initial[j]);
  for (std::size_t t = 0; t < w.steps; ++t)
    for (std::size_t j : p.at) p.narrow.addends.push_back(w.addend(t, j));
  return p;
}

DenseWorkload place_patched(const PatchedDense& p) {
  DenseWorkload w = p.narrow;
  w.elements = p.elements;
  w.initial.assign(p.elements, 0.0);
  w.addends.assign(p.elements * p.narrow.steps, 0.0);
  for (std::size_t i = 0; i < p.at.size(); ++i) {
    w.initial[p.at[i]] = p.narrow.initial[i];
    for (std::size_t t = 0; t < p.narrow.steps; ++t) w.addends[t * p.elements + p.at[i]] = p.narrow.addend(t, i);
  }
  return w;
}

EncodingLimits unbounded_limits() {
  EncodingLimits l;
  l.max_elements = l.max_steps = l.max_long_steps = kMaxCaseValues;
  l.max_batch = l.max_product_steps = l.max_product_rows = l.max_product_cols = kMaxCaseValues;
  l.max_table_rows = l.max_dim = l.max_pairs = kMaxCaseValues;
  return l;
}

}  // namespace accucheck
