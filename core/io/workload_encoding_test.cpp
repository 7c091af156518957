// The invertible choice encoding (workload_encoding.h): every value of every format and every
// generated workload decodes back to itself, bit for bit; any bytes decode to a workload that
// round-trips; simpler floats have smaller encodings.
#include "io/workload_encoding.h"
#include "checking/shapes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "checking/float_gen.h"

namespace accucheck {
namespace {

bool identical(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  std::uint64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  return x == y;
}

std::vector<std::uint8_t> encoded(double x, Format f) {
  ChoiceWriter out;
  encode_value(out, x, f);
  return out.bytes();
}

double round_trip(double x, Format f) {
  const auto bytes = encoded(x, f);
  ByteChoiceStream s(bytes);
  const double back = decode_value(s, f);
  EXPECT_EQ(s.consumed(), bytes.size()) << x;
  return back;
}

TEST(WorkloadEncoding, EveryValueOfTheSmallFormatsRoundTrips) {
  for (Format f : {Format::f16, Format::bf16})
    for (std::uint64_t bits = 0; bits <= 0xffff; ++bits) {
      const double x = decode(bits, f);
      ASSERT_TRUE(identical(round_trip(x, f), x)) << name(f) << " bits " << bits;
    }
}

TEST(WorkloadEncoding, SpecialAndRandomValuesOfTheWideFormatsRoundTrip) {
  std::mt19937_64 rng(20261201);
  for (Format f : {Format::f64, Format::f32}) {
    for (double x : special_values(f, true)) {
      EXPECT_TRUE(identical(round_trip(x, f), x)) << x;
      EXPECT_TRUE(identical(round_trip(-x, f), -x)) << -x;
    }
    for (int i = 0; i < 200000; ++i) {
      const std::uint64_t bits = f == Format::f64 ? rng() : rng() & 0xffffffffu;
      const double x = decode(bits, f);
      ASSERT_TRUE(identical(round_trip(x, f), x)) << name(f) << " bits " << bits;
    }
  }
}

TEST(WorkloadEncoding, SimplerFloatsHaveSmallerEncodings) {
  for (Format f : all_formats) {
    const std::vector<double> simplest_first = {0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 1.5, 1.25, 1.75, 1.125, 0.5, 0.25};
    for (std::size_t i = 1; i < simplest_first.size(); ++i)
      EXPECT_LT(encoded(simplest_first[i - 1], f), encoded(simplest_first[i], f))
          << name(f) << ": " << simplest_first[i - 1] << " before " << simplest_first[i];
    EXPECT_EQ(encoded(0.0, f), std::vector<std::uint8_t>(encoded(0.0, f).size(), 0)) << "+0 is all zeros";
    EXPECT_LT(encoded(0.5, f), encoded(smallest_subnormal(f), f));
  }
}

void expect_same(const std::vector<double>& a, const std::vector<double>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(identical(a[i], b[i])) << what << "[" << i << "]";
}

void expect_same(const Workload& a, const Workload& b) {
  ASSERT_EQ(a.index(), b.index());
  if (auto* x = std::get_if<DenseWorkload>(&a)) {
    const auto& y = std::get<DenseWorkload>(b);
    EXPECT_EQ(x->elements, y.elements);
    EXPECT_EQ(x->steps, y.steps);
    expect_same(x->initial, y.initial, "initial");
    expect_same(x->addends, y.addends, "addends");
    EXPECT_EQ(x->layout, y.layout) << describe(x->layout) << " vs " << describe(y.layout);
    EXPECT_EQ(x->input_format, y.input_format);
  } else if (auto* x = std::get_if<ProductWorkload>(&a)) {
    const auto& y = std::get<ProductWorkload>(b);
    EXPECT_EQ(std::vector<std::size_t>({x->rows, x->cols, x->batch, x->steps}),
              std::vector<std::size_t>({y.rows, y.cols, y.batch, y.steps}));
    EXPECT_EQ(x->input_format, y.input_format);
    EXPECT_EQ(x->b_input_format, y.b_input_format);
    expect_same(x->initial, y.initial, "C");
    expect_same(x->a, y.a, "A");
    expect_same(x->b, y.b, "B");
  } else {
    const auto& x2 = std::get<SparseWorkload>(a);
    const auto& y = std::get<SparseWorkload>(b);
    EXPECT_EQ(std::vector<std::size_t>({x2.rows, x2.dim, x2.steps}),
              std::vector<std::size_t>({y.rows, y.dim, y.steps}));
    EXPECT_EQ(x2.step_offsets, y.step_offsets);
    EXPECT_EQ(x2.row_index, y.row_index);
    expect_same(x2.initial, y.initial, "initial");
    expect_same(x2.values, y.values, "values");
    EXPECT_EQ(x2.layout, y.layout) << describe(x2.layout) << " vs " << describe(y.layout);
    EXPECT_EQ(x2.input_format, y.input_format);
  }
}

Workload decoded(const std::vector<std::uint8_t>& bytes, WorkloadKind kind, Format f, const EncodingLimits& l) {
  ByteChoiceStream s(bytes);
  return decode_workload(s, kind, f, l);
}

TEST(WorkloadEncoding, GeneratedWorkloadsDecodeToThemselves) {
  EncodingLimits limits;
  limits.max_long_steps = 200;
  // The FP8 formats of dense addends and sparse values among them (fp8_gradients,
  // embedding_fp8_rows): random bytes seldom reach a sparse workload's last choice.
  std::set<std::pair<WorkloadKind, Format>> fp8_values;
  for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::sparse, WorkloadKind::product})
    for (Format f : all_formats) {
      if (kind == WorkloadKind::product && f == Format::f64) continue;
      for (std::uint64_t seed = 0; seed < 150; ++seed) {
        SeededChoiceStream s(seed * 4 + static_cast<std::uint64_t>(f));
        const Workload w = generate(s, f, limits, kind);
        if (const auto* d = std::get_if<DenseWorkload>(&w); d && d->input_format)
          fp8_values.emplace(kind, *d->input_format);
        if (const auto* sp = std::get_if<SparseWorkload>(&w); sp && sp->input_format)
          fp8_values.emplace(kind, *sp->input_format);
        ChoiceWriter out;
        encode_workload(out, w, limits);
        expect_same(decoded(out.bytes(), kind, f, limits), w);
        if (HasFatalFailure())
          FAIL() << name(kind) << " " << name(f) << " seed " << seed << " (" << family_of(w) << ")";
      }
    }
  EXPECT_EQ(fp8_values.size(), 4u);  // E4M3 and E5M2, dense and sparse
}

// generate() gives some dense and sparse cases a strided layout (families.h layout_one_in) and
// the encoding keeps it; an exhausted stream decodes to the contiguous layout.
TEST(WorkloadEncoding, StridedLayoutsAreGeneratedAndRoundTrip) {
  EncodingLimits limits;
  limits.max_long_steps = 200;
  for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::sparse}) {
    std::size_t strided = 0;
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
      SeededChoiceStream s(seed);
      const Workload w = generate(s, Format::f32, limits, kind);
      const bool contiguous = std::visit(
          [](const auto& x) {
            if constexpr (requires { x.layout; }) return x.layout.contiguous();
            return true;
          },
          w);
      strided += !contiguous;
      EXPECT_EQ(!contiguous, family_of(w).find("/strided") != std::string::npos) << family_of(w);
      ChoiceWriter out;
      encode_workload(out, w, limits);
      expect_same(decoded(out.bytes(), kind, Format::f32, limits), w);
    }
    // One in 4 draws a layout, nearly all of them non-contiguous: about 50 of 200.
    EXPECT_GT(strided, 25u) << name(kind);
    EXPECT_LT(strided, 90u) << name(kind);
  }
  limits.layout_one_in = 0;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    SeededChoiceStream s(seed);
    EXPECT_TRUE(std::get<DenseWorkload>(generate(s, Format::f32, limits, WorkloadKind::dense)).layout.contiguous());
  }
  EXPECT_TRUE(std::get<DenseWorkload>(decoded({}, WorkloadKind::dense, Format::f32, limits)).layout.contiguous());
}

// Padding is held to three times a row's length where rows are many and short: the largest
// choices give a wide element-major buffer or a table of dim 1 at most 4x its contiguous span.
TEST(WorkloadEncoding, LayoutPaddingKeepsWideBuffersWithinFourTimesTheirSize) {
  const std::vector<std::uint8_t> largest(64, 0xFF);
  DenseWorkload d;
  d.format = Format::f32;
  d.elements = 1 << 16;
  d.steps = 1;
  Workload w = d;
  ByteChoiceStream s(largest);
  decode_layout(s, w);
  const auto& layout = std::get<DenseWorkload>(w).layout;
  EXPECT_TRUE(layout.element_major);
  EXPECT_EQ(layout.padding, 3u);  // rows of T = 1 value
  const auto strides = dense_strides(layout, d.elements, d.steps);
  EXPECT_LE(strides.addend_span, 7 * d.elements * d.steps);  // a gap of 3, then 3 values of padding
  SparseWorkload sp;
  sp.rows = 1 << 20;
  sp.dim = 1;
  Workload t = sp;
  ByteChoiceStream s2(largest);
  decode_layout(s2, t);
  EXPECT_EQ(std::get<SparseWorkload>(t).layout.table_padding, 3u);
  EXPECT_EQ(std::get<SparseWorkload>(t).layout.value_padding, 3u);
  // Step-major rows are the steps: few, so their padding is not held.
  EXPECT_EQ(dense_padding_limit(false, 1), kMaxLayoutPadding);
  EXPECT_EQ(layout_padding_limit(100), kMaxLayoutPadding);
  // A layout the encoding cannot draw for the shape is refused, not changed.
  std::get<SparseWorkload>(t).layout.table_padding = 4;
  std::get<SparseWorkload>(t).initial.assign(sp.rows, 0.0);
  std::get<SparseWorkload>(t).step_offsets = {0};
  ChoiceWriter out;
  EXPECT_THROW(encode_layout(out, t), std::invalid_argument);
}

TEST(WorkloadEncoding, AnyBytesDecodeToAWorkloadThatRoundTrips) {
  std::mt19937_64 rng(7);
  int fp8_inputs = 0;                             // product workloads whose A and B were rounded into E4M3 or E5M2
  std::set<std::pair<Format, Format>> fp8_pairs;  // (A's, B's) formats among them
  std::set<Format> fp8_addends;                   // the FP8 formats of dense workloads' addends
  EncodingLimits limits;                          // the ordinary sizes (the wide ones: the next test)
  limits.max_wide_values = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::uint8_t> bytes(rng() % 300);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    const auto kind = static_cast<WorkloadKind>(i % 3);
    const Format f = kind == WorkloadKind::product ? all_formats[1 + i % 3] : all_formats[i % 4];
    const Workload w = decoded(bytes, kind, f, limits);
    ASSERT_EQ(validate(w), "") << i;
    if (const auto* p = std::get_if<ProductWorkload>(&w); p && p->input_format) {
      ++fp8_inputs;
      fp8_pairs.emplace(p->a_inputs(), p->b_inputs());
    }
    if (const auto* d = std::get_if<DenseWorkload>(&w); d && d->input_format) fp8_addends.insert(*d->input_format);
    ChoiceWriter out;
    encode_workload(out, w, limits);
    expect_same(decoded(out.bytes(), kind, f, limits), w);
    if (HasFatalFailure()) FAIL() << "input " << i;
  }
  EXPECT_GT(fp8_inputs, 20);        // 41 of 1000 product inputs have bytes left for the choice
  EXPECT_EQ(fp8_pairs.size(), 4u);  // both E4M3, both E5M2, and either mixed pair
  EXPECT_EQ(fp8_addends, (std::set<Format>{Format::e4m3, Format::e5m2}));
  const Workload empty = decoded({}, WorkloadKind::dense, Format::f32, limits);
  const auto& d = std::get<DenseWorkload>(empty);
  EXPECT_EQ(d.elements, 1u);
  EXPECT_EQ(d.steps, 0u);
  EXPECT_TRUE(identical(d.initial[0], 0.0)) << "no bytes: the simplest workload";
}

// The fuzzers' limits: D of 4, and compact wide buffers (max_patched_elements) up to 2^17.
EncodingLimits patched_limits() {
  EncodingLimits l;
  l.max_elements = 4;
  l.max_steps = l.max_long_steps = 63;
  l.max_wide_values = 0;
  l.max_patched_elements = std::size_t{1} << 17;
  return l;
}

// A buffer of 65,537 elements wrong only at its last (what an element-boundary bug needs) takes
// a few bytes, not the 65,537 x 4 values' worth, and decodes back to itself.
TEST(WorkloadEncoding, AWideBufferWithFewColumnsTakesAFewBytes) {
  const EncodingLimits limits = patched_limits();
  DenseWorkload w;
  w.format = Format::f32;
  w.elements = 65537;
  w.steps = 3;
  w.initial.assign(w.elements, 0.0);
  w.addends.assign(w.elements * w.steps, 0.0);
  w.initial[0] = 1.0;
  w.addends[1 * w.elements + 65536] = 0x1p-30;
  w.addends[2 * w.elements + 65536] = -0.0;  // -0 is not trivial: the column is kept
  w.layout = DenseLayout{.gap = 1};
  ChoiceWriter out;
  encode_workload(out, w, limits);
  EXPECT_LT(out.bytes().size(), 64u);
  expect_same(decoded(out.bytes(), WorkloadKind::dense, Format::f32, limits), w);
  // Five non-trivial columns do not fit D = 4: refused, not truncated.
  for (std::size_t j : {1, 2, 3, 4}) w.initial[j * 1000] = 2.0;
  ChoiceWriter refused;
  EXPECT_THROW(encode_workload(refused, w, limits), std::invalid_argument);
  // All +0: one column stands for them all.
  DenseWorkload zeros;
  zeros.format = Format::f16;
  zeros.elements = 1025;
  zeros.steps = 2;
  zeros.initial.assign(1025, 0.0);
  zeros.addends.assign(2050, 0.0);
  ChoiceWriter z;
  encode_workload(z, zeros, limits);
  expect_same(decoded(z.bytes(), WorkloadKind::dense, Format::f16, limits), zeros);
}

// Random bytes reach wide buffers, boundary sizes among them, always within the caps, and every
// one re-encodes to itself.
TEST(WorkloadEncoding, AnyBytesReachWideBuffersWithinTheCaps) {
  std::mt19937_64 rng(5);
  const EncodingLimits limits = patched_limits();
  std::size_t wide = 0, at_boundary = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::uint8_t> bytes(rng() % 200);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    const Workload w = decoded(bytes, WorkloadKind::dense, Format::f32, limits);
    ASSERT_EQ(validate(w), "") << i;
    const auto& d = std::get<DenseWorkload>(w);
    ASSERT_LE(d.elements, limits.max_patched_elements);
    ASSERT_LE(d.elements * (d.steps + 1), std::max(limits.max_patched_values, 4 * (d.steps + 1)));
    if (d.elements > 4) {
      ++wide;
      for (std::size_t unit : {8, 16, 32, 256, 1024, 65535})
        if ((d.elements + 1) % unit <= 2) {
          ++at_boundary;
          break;
        }
    }
    ChoiceWriter out;
    encode_workload(out, w, limits);
    expect_same(decoded(out.bytes(), WorkloadKind::dense, Format::f32, limits), w);
    if (HasFatalFailure()) FAIL() << "input " << i;
  }
  EXPECT_GT(wide, 10u);  // the widening choice comes last, 1 of its 16 values widens
  EXPECT_GT(at_boundary, wide / 4) << "boundary sizes are no likelier than uniform ones";
}

TEST(WorkloadEncoding, SizesBeyondTheLimitsAreRefused) {
  DenseWorkload w;
  w.format = Format::f32;
  w.elements = 5;
  w.steps = 0;
  w.initial.assign(5, 0.0);
  EncodingLimits narrow;
  narrow.max_wide_values = 0;
  ChoiceWriter out;
  EXPECT_THROW(encode_workload(out, w, narrow), std::invalid_argument) << "4 elements at most without boundary shapes";
  EXPECT_NO_THROW(encode_workload(out, w, EncodingLimits{}));
  EXPECT_NO_THROW(encode_workload(out, w, unbounded_limits()));
  // Past the ordinary D, the steps are held to the wide values budget: 5 x (T + 1) <= 64.
  EncodingLimits small_budget;
  small_budget.max_wide_values = 64;
  w.steps = 11;
  w.addends.assign(5 * 11, 0.0);
  EXPECT_NO_THROW(encode_workload(out, w, small_budget));
  w.steps = 12;
  w.addends.assign(5 * 12, 0.0);
  EXPECT_THROW(encode_workload(out, w, small_budget), std::invalid_argument) << "5 x 13 values exceed the budget of 64";
}

TEST(WorkloadEncoding, AnyBytesDecodeWithinTheWideValuesBudget) {
  std::mt19937_64 rng(11);
  EncodingLimits limits;
  limits.max_wide_values = 4096;
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::uint8_t> bytes(rng() % 64);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    const auto kind = static_cast<WorkloadKind>(i % 3);
    const Workload w = decoded(bytes, kind, Format::f32, limits);
    // No choice sequence decodes to more than a few single wide sizes' worth of values (D up to
    // 2^17 with T = 0, a table of 64 x 1024 with 256 pairs), however the bytes read: sizes drawn
    // after a wide one are held to the budget.
    std::size_t values = 0;
    for_each_value_array(w, [&](const std::vector<double>& a) { values += a.size(); });
    ASSERT_LE(values, std::size_t{1} << 19) << i;
    ChoiceWriter out;
    encode_workload(out, w, limits);
    expect_same(decoded(out.bytes(), kind, Format::f32, limits), w);
    if (HasFatalFailure()) FAIL() << "input " << i;
  }
}

}  // namespace
}  // namespace accucheck
