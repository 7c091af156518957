// The generator library does what it claims: valid workloads, regeneration from a seed or from
// recorded bytes, the zero stream as the simplest case, special values and subnormals where
// promised, the condition number of ill_conditioned tracking its target, and each family's
// own shape (stagnation, ties, overflowing partials, exact zeros, order variants...).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <type_traits>
#include <variant>

#include "accucheck/testing/bits.h"
#include "checking/choice.h"
#include "checking/families.h"
#include "checking/float_gen.h"
#include "checking/judge.h"
#include "numerics/exact.h"

namespace accucheck {
namespace {

std::vector<Format> formats_for(const Family& family) {
  if (family.kind == WorkloadKind::product)
    return {Format::f32, Format::f16, Format::bf16};  // f64 products unsupported
  return {Format::f64, Format::f32, Format::f16, Format::bf16};
}

using test::same_bits;

// Every value a workload holds (initial values, addends, A and B, sparse vectors).
std::vector<double> all_values(const Workload& w) {
  const auto arrays = std::visit(
      [](const auto& x) -> std::vector<const std::vector<double>*> {
        using W = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<W, DenseWorkload>)
          return {&x.initial, &x.addends};
        else if constexpr (std::is_same_v<W, ProductWorkload>)
          return {&x.initial, &x.a, &x.b};
        else
          return {&x.initial, &x.values};
      },
      w);
  std::vector<double> v;
  for (const std::vector<double>* values : arrays) v.insert(v.end(), values->begin(), values->end());
  return v;
}

constexpr int kSeeds = 60;

// The families' own shapes, without the boundary widening that generate() applies to one case
// in wide_one_in (tested in shapes_test.cpp): the invariants below are each family's.
GenerationLimits unwidened() {
  GenerationLimits l;
  l.max_wide_values = 0;
  return l;
}

TEST(Families, EveryFamilyMakesValidWorkloadsOfItsKind) {
  GenerationLimits limits = unwidened();
  limits.max_long_steps = 2000;
  for (const Family& family : families())
    for (Format f : formats_for(family))
      for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
        SeededChoiceStream s(seed * 7919 + 1);
        const Workload w = generate(s, f, limits, family.kind, &family);
        ASSERT_EQ(validate(w), "") << family.name << " " << name(f) << " seed " << seed;
        EXPECT_EQ(kind_of(w), family.kind);
        EXPECT_EQ(format_of(w), f);
        EXPECT_EQ(family_of(w).substr(0, family.name.size()), family.name);
        EXPECT_GE(element_count(w), 1u);
        EXPECT_LE(max_terms(w), limits.max_long_steps + 1) << family.name;
      }
}

TEST(Families, RegenerateIdenticallyFromASeedAndFromRecordedBytes) {
  GenerationLimits limits = unwidened();
  limits.max_long_steps = 3000;
  for (const Family& family : families())
    for (Format f : formats_for(family))
      for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        SeededChoiceStream a(seed), b(seed);
        const Workload first = generate(a, f, limits, family.kind, &family);
        EXPECT_TRUE(first == generate(b, f, limits, family.kind, &family)) << family.name;
        // A seeded case recorded as bytes replays through ByteChoiceStream (fuzzer corpora).
        SeededChoiceStream c(seed);
        RecordingChoiceStream recording(c);
        const Workload recorded = generate(recording, f, limits, family.kind, &family);
        ByteChoiceStream bytes(recording.bytes());
        EXPECT_TRUE(recorded == generate(bytes, f, limits, family.kind, &family)) << family.name;
        EXPECT_TRUE(first == recorded) << family.name;
      }
}

// The bytes of a case mean the same under every compiler: draws are sequenced (never two
// draws among one call's arguments, whose evaluation order C++ leaves unspecified: g++ and
// clang++ differ). Elements come first, then steps.
TEST(Families, DrawOrderIsFixed) {
  const std::uint8_t bytes[] = {2, 9};
  for (const char* family :
       {"mixed_magnitudes", "ill_conditioned", "subnormal_only", "exact_zero", "special_values", "uniform"}) {
    ByteChoiceStream s(bytes);
    const auto w =
        std::get<DenseWorkload>(generate(s, Format::f32, unwidened(), WorkloadKind::dense, find_family(family)));
    EXPECT_EQ(w.elements, 3u) << family;
    EXPECT_EQ(w.steps, 10u) << family;
  }
  const std::uint8_t product_bytes[] = {1, 2, 3, 1};  // rows-1, cols-1, batch-1, steps-1
  ByteChoiceStream p(product_bytes);
  const auto pw = std::get<ProductWorkload>(
      generate(p, Format::f32, unwidened(), WorkloadKind::product, find_family("gemm_mixed_magnitudes")));
  EXPECT_EQ(std::vector<std::size_t>({pw.rows, pw.cols, pw.batch, pw.steps}), std::vector<std::size_t>({2, 3, 4, 2}));
}

TEST(Families, ZeroStreamIsTheSimplestCase) {
  GenerationLimits limits = unwidened();
  for (const Family& family : families())
    for (Format f : formats_for(family)) {
      ByteChoiceStream zeros(std::span<const std::uint8_t>{});
      const Workload w = generate(zeros, f, limits, family.kind, &family);
      ASSERT_EQ(validate(w), "") << family.name;
      // No order variant, one element, the fewest steps the family allows.
      EXPECT_EQ(family_of(w), std::string(family.name)) << "order variant drawn from a zero stream";
      if (auto* d = std::get_if<DenseWorkload>(&w)) {
        EXPECT_EQ(d->elements, 1u) << family.name;
        const std::size_t fewest = family.name == "long_chain"        ? limits.max_steps
                                   : family.name == "near_cancelling" ? 2
                                                                      : 1;
        EXPECT_EQ(d->steps, fewest) << family.name;
      } else if (auto* p = std::get_if<ProductWorkload>(&w)) {
        EXPECT_EQ(p->rows * p->cols, 1u) << family.name;
        EXPECT_LE(p->batch, 2u) << family.name;
      } else {
        const auto& sp = std::get<SparseWorkload>(w);
        EXPECT_EQ(sp.rows * sp.dim, 1u) << family.name;
        EXPECT_EQ(sp.pairs(), 0u) << family.name;
      }
      // Values: no sign, no fraction bits beyond the first (powers of two, 0, or the family's
      // fixed constants such as the largest finite value).
      const bool signed_by_design = family.name == "overflow_partials" || family.name == "near_cancelling" ||
                                    family.name == "gemm_near_cancelling" || family.name == "gemm_cancelling_batch" ||
                                    family.name == "ranks_cancelling";
      for (double x : all_values(w)) {
        if (signed_by_design) continue;  // +M then -M, +0.5 h then -0.5 h, x then -x: the signs are the point
        EXPECT_FALSE(std::signbit(x) && x != 0) << family.name << " " << x;
      }
    }
  // Generation without a family draws the first family of the kind, as generated.
  ByteChoiceStream zeros(std::span<const std::uint8_t>{});
  EXPECT_EQ(family_of(generate(zeros, Format::f32, limits, WorkloadKind::dense)),
            std::string(families_of(WorkloadKind::dense)[0]->name));
}

TEST(FloatGen, ZeroChoicesGiveSimpleFloats) {
  for (Format f : all_formats) {
    ByteChoiceStream zeros(std::span<const std::uint8_t>{});
    EXPECT_TRUE(same_bits(draw_simple_float(zeros, f), 0.0));
    EXPECT_TRUE(same_bits(draw_float(zeros, f, true), 0.0));
    EXPECT_TRUE(same_bits(draw_special_float(zeros, f, true), 0.0));
    EXPECT_EQ(draw_band_float(zeros, f, -3, 5), 0.125);  // the band's lowest power of two
  }
  // Small integers: sign 0, integer branch 0, then the integer itself.
  for (std::uint8_t k : {1, 2, 3, 7, 100, 255}) {
    const std::uint8_t bytes[] = {0, 0, 0, 0, k};  // sign, branch, then draw(2^16) reads 3 bytes
    ByteChoiceStream s(bytes);
    EXPECT_EQ(draw_simple_float(s, Format::f32), k);
  }
  // Short binary fractions first: choice 1 -> 1.5, 2 -> 1.25, 3 -> 1.75 (exponent 0).
  const double expected[] = {1.0, 1.5, 1.25, 1.75};
  for (std::uint8_t c = 0; c < 4; ++c) {
    const std::uint8_t bytes[] = {0, 0, 0, 0, c};  // band [0, 0]: exponent draw(0) reads nothing, mantissa 3 bytes
    ByteChoiceStream s(std::span<const std::uint8_t>(bytes + 2, 3));
    EXPECT_EQ(draw_band_float(s, Format::f32, 0, 0, true), expected[c]) << int(c);
  }
}

TEST(FloatGen, EveryDrawIsAValueOfItsFormat) {
  for (Format f : all_formats)
    for (std::uint64_t seed = 0; seed < 2000; ++seed) {
      SeededChoiceStream s(seed);
      EXPECT_TRUE(representable(draw_float(s, f, true), f));
      EXPECT_TRUE(representable(draw_simple_float(s, f), f));
      const double band = draw_band_float(s, f, traits(f).emin - traits(f).precision - 3, traits(f).emax + 2);
      EXPECT_TRUE(representable(band, f) && std::isfinite(band));
      const double finite = draw_float(s, f, false);
      EXPECT_TRUE(std::isfinite(finite) && representable(finite, f));
    }
}

struct Census {
  int nan = 0, pos_inf = 0, neg_inf = 0, neg_zero = 0, subnormal = 0, largest = 0, total = 0;
  void see(double x, Format f) {
    ++total;
    if (std::isnan(x))
      ++nan;
    else if (x == std::numeric_limits<double>::infinity())
      ++pos_inf;
    else if (x == -std::numeric_limits<double>::infinity())
      ++neg_inf;
    else if (x == 0 && std::signbit(x))
      ++neg_zero;
    else if (classify(x, f) == FloatClass::subnormal)
      ++subnormal;
    else if (std::fabs(x) == largest_finite(f))
      ++largest;
  }
};

// Both FP8 formats seen, each with NaN, subnormals and its largest finite value, E5M2 (alone)
// with infinities.
void expect_both_fp8_formats_with_their_specials(const std::map<Format, Census>& census) {
  ASSERT_EQ(census.size(), 2u);
  for (const auto& [in, c] : census) {
    EXPECT_GT(c.nan, 0) << name(in);
    EXPECT_GT(c.subnormal, 0) << name(in);
    EXPECT_GT(c.largest, 0) << name(in);
    EXPECT_EQ(c.pos_inf + c.neg_inf > 0, in == Format::e5m2) << name(in);
  }
}

TEST(Families, SpecialValuesActuallyAppear) {
  GenerationLimits limits = unwidened();
  for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::product, WorkloadKind::sparse}) {
    const Family* family = special_values_family(kind);
    ASSERT_NE(family, nullptr);
    for (Format f : formats_for(*family)) {
      Census census;
      int special_sums = 0, cases = 0;
      for (std::uint64_t seed = 0; seed < 200; ++seed) {
        SeededChoiceStream s(seed);
        const Workload w = generate(s, f, limits, kind, family);
        for (double x : all_values(w)) census.see(x, f);
        for (const ExactSum& e : exact_sums(w)) special_sums += e.special != Special::none;
        ++cases;
      }
      SCOPED_TRACE(std::string(family->name) + " " + std::string(name(f)));
      EXPECT_GT(census.nan, 0);
      EXPECT_GT(census.pos_inf, 0);
      EXPECT_GT(census.neg_inf, 0);
      EXPECT_GT(census.neg_zero, 0);
      EXPECT_GT(census.subnormal, 0);
      EXPECT_GT(census.largest, 0);
      EXPECT_GT(special_sums, cases / 10) << "NaN / infinite sums should be common";
    }
  }
}

// gemm_fp8_inputs: A and B in E4M3 or E5M2, each format's specials among them (its largest
// finite value, subnormals, NaN; E5M2's infinities), C in the storage format; the three recipes
// appear: both E4M3, both E5M2, and HYBRID's E5M2 gradients A with E4M3 activations B.
TEST(Families, Fp8InputsAreValuesOfTheirFormatWithItsSpecials) {
  const Family* family = find_family("gemm_fp8_inputs");
  ASSERT_NE(family, nullptr);
  ASSERT_EQ(family->kind, WorkloadKind::product);
  for (Format f : {Format::f32, Format::f16, Format::bf16}) {
    std::map<Format, Census> census;
    std::set<std::pair<Format, Format>> recipes;
    int c_not_fp8 = 0;
    for (std::uint64_t seed = 0; seed < 400; ++seed) {
      SeededChoiceStream s(seed);
      const Workload w = generate(s, f, unwidened(), WorkloadKind::product, family);
      ASSERT_EQ(validate(w), "") << seed;
      const auto& p = std::get<ProductWorkload>(w);
      ASSERT_TRUE(p.input_format && is_fp8(*p.input_format)) << seed;
      recipes.emplace(p.a_inputs(), p.b_inputs());
      for (const auto& [values, in] : {std::pair{&p.a, p.a_inputs()}, std::pair{&p.b, p.b_inputs()}})
        for (double x : *values) {
          ASSERT_TRUE(representable(x, in)) << seed << " " << x;
          census[in].see(x, in);
        }
      for (double x : p.initial)
        c_not_fp8 += std::isfinite(x) && !representable(x, Format::e5m2) && !representable(x, Format::e4m3);
    }
    SCOPED_TRACE(std::string(name(f)));
    EXPECT_EQ(recipes, (std::set<std::pair<Format, Format>>{
                           {Format::e4m3, Format::e4m3}, {Format::e5m2, Format::e4m3}, {Format::e5m2, Format::e5m2}}));
    expect_both_fp8_formats_with_their_specials(census);
    EXPECT_GT(c_not_fp8, 100);
  }
}

// fp8_gradients: every addend a value of its FP8 format (E4M3 or E5M2, both appear), that
// format's specials among them, the initial buffer in the storage format (often not an FP8
// value), the order variants moving addends only, and steps scaled apart (a step's largest
// addend differs from another's).
TEST(Families, Fp8GradientsAreValuesOfTheirFormatIntoAWiderBuffer) {
  const Family* family = find_family("fp8_gradients");
  ASSERT_NE(family, nullptr);
  ASSERT_EQ(family->kind, WorkloadKind::dense);
  for (Format f : all_formats) {
    SCOPED_TRACE(std::string(name(f)));
    std::map<Format, Census> census;
    int initial_not_fp8 = 0, reordered = 0, steps_scaled_apart = 0;
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
      SeededChoiceStream s(seed);
      const Workload w = generate(s, f, unwidened(), WorkloadKind::dense, family);
      ASSERT_EQ(validate(w), "") << seed;
      const auto& d = std::get<DenseWorkload>(w);
      ASSERT_TRUE(d.input_format && is_fp8(*d.input_format)) << seed;
      for (double x : d.addends) {
        ASSERT_TRUE(representable(x, *d.input_format)) << seed << " " << x;
        census[*d.input_format].see(x, *d.input_format);
      }
      for (double x : d.initial) initial_not_fp8 += std::isfinite(x) && !representable(x, *d.input_format);
      reordered += d.family != "fp8_gradients";
      std::set<double> step_tops;
      for (std::size_t t = 0; t < d.steps; ++t) {
        double top = 0;
        for (std::size_t j = 0; j < d.elements; ++j)
          if (std::isfinite(d.addend(t, j))) top = std::max(top, std::fabs(d.addend(t, j)));
        step_tops.insert(top);
      }
      steps_scaled_apart += step_tops.size() > 1;
    }
    expect_both_fp8_formats_with_their_specials(census);
    EXPECT_GT(initial_not_fp8, 30);
    EXPECT_GT(reordered, 100);
    EXPECT_GT(steps_scaled_apart, 100);
  }
}

// embedding_fp8_rows: every pair's values of its FP8 format, both formats with their specials,
// the table in the storage format (often not an FP8 value).
TEST(Families, Fp8EmbeddingRowsAreValuesOfTheirFormatIntoAWiderTable) {
  const Family* family = find_family("embedding_fp8_rows");
  ASSERT_NE(family, nullptr);
  ASSERT_EQ(family->kind, WorkloadKind::sparse);
  for (Format f : all_formats) {
    SCOPED_TRACE(std::string(name(f)));
    std::map<Format, Census> census;
    int initial_not_fp8 = 0;
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
      SeededChoiceStream s(seed);
      const Workload w = generate(s, f, unwidened(), WorkloadKind::sparse, family);
      ASSERT_EQ(validate(w), "") << seed;
      const auto& sp = std::get<SparseWorkload>(w);
      ASSERT_TRUE(sp.input_format && is_fp8(*sp.input_format)) << seed;
      for (double x : sp.values) {
        ASSERT_TRUE(representable(x, *sp.input_format)) << seed << " " << x;
        census[*sp.input_format].see(x, *sp.input_format);
      }
      for (double x : sp.initial) initial_not_fp8 += std::isfinite(x) && !representable(x, *sp.input_format);
    }
    expect_both_fp8_formats_with_their_specials(census);
    EXPECT_GT(initial_not_fp8, 30);
  }
}

TEST(Families, SubnormalOnlyIsSubnormal) {
  const Family* family = find_family("subnormal_only");
  for (Format f : all_formats) {
    int nonzero = 0;
    for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
      SeededChoiceStream s(seed);
      for (double x : all_values(generate(s, f, unwidened(), WorkloadKind::dense, family))) {
        EXPECT_EQ(classify(x, f), FloatClass::subnormal) << name(f) << " " << x;
        ++nonzero;
      }
    }
    EXPECT_GT(nonzero, 0);
  }
}

TEST(Families, ExactZeroSumsToZeroWithNegativeZeroElements) {
  const Family* family = find_family("exact_zero");
  for (Format f : all_formats) {
    int negative_zero_sums = 0, elements = 0;
    for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
      SeededChoiceStream s(seed);
      const Workload w = generate(s, f, unwidened(), WorkloadKind::dense, family);
      for (const ExactSum& e : exact_sums(w)) {
        ASSERT_EQ(e.special, Special::none);
        EXPECT_EQ(e.sum, 0);
        negative_zero_sums += std::signbit(e.rounded(f));
        ++elements;
      }
    }
    EXPECT_GT(negative_zero_sums, elements / 6) << name(f);  // about a third of the elements
  }
}

// log2(kappa) of ill_conditioned follows its target exponent b (kappa from 1 to 2^100 ~ 1e30).
TEST(Families, IllConditionedKappaTracksItsTarget) {
  const Family* family = find_family("ill_conditioned");
  GenerationLimits limits = unwidened();
  for (Format f : {Format::f64, Format::f32, Format::bf16, Format::f16}) {
    const int max_b = std::min(100, traits(f).emax - traits(f).emin - 8);
    for (int b : {0, 5, 10, 20, 30, 50, 70, 100}) {
      if (b > max_b) continue;
      for (std::uint64_t seed = 0; seed < 20; ++seed) {
        // Bytes: elements-1, steps-1 (draw(63)), b (draw(max_b)), then random.
        std::vector<std::uint8_t> bytes = {0, static_cast<std::uint8_t>(8 + seed % 50), static_cast<std::uint8_t>(b)};
        SeededChoiceStream tail(seed);
        for (int i = 0; i < 4000; ++i) bytes.push_back(static_cast<std::uint8_t>(tail.draw(255)));
        ByteChoiceStream s(bytes);
        const Workload w = generate(s, f, limits, WorkloadKind::dense, family);
        const ExactSum e = exact_sums(w)[0];
        const double kappa = e.condition_number();
        ASSERT_TRUE(std::isfinite(kappa)) << name(f) << " b=" << b;
        // kappa ~ 2^b up to a factor about n (the cancelling half makes A ~ n 2^e0 when b is small).
        const double n = static_cast<double>(max_terms(w));
        EXPECT_GE(std::log2(kappa), b - 1.0) << name(f) << " b=" << b << " n=" << n;
        EXPECT_LE(std::log2(kappa), b + std::log2(n) + 3.0) << name(f) << " b=" << b << " n=" << n;
        if (b == 0) EXPECT_EQ(kappa, 1.0);
      }
    }
  }
}

TEST(Families, StagnationSitsAtTwoToThePAndAddsAtMostHalfAnUlp) {
  const Family* family = find_family("stagnation");
  for (Format f : all_formats)
    for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
      SeededChoiceStream s(seed);
      const auto w = std::get<DenseWorkload>(generate(s, f, unwidened(), WorkloadKind::dense, family));
      // The order variant may move the big value; find it per element.
      for (std::size_t j = 0; j < w.elements; ++j) {
        std::vector<double> column;
        w.column(j, column);
        const double big = *std::max_element(column.begin(), column.end(),
                                             [](double a, double b) { return std::fabs(a) < std::fabs(b); });
        EXPECT_GE(std::ilogb(big), traits(f).precision - 9) << name(f);
        bool big_seen = false;
        for (double x : column) {
          if (x == big && !big_seen) {
            big_seen = true;
            continue;
          }
          EXPECT_LE(std::fabs(x), ulp(big, f)) << name(f);  // half an ulp, or twice it in the mixed mode
        }
      }
    }
}

TEST(Families, NaiveSumOfStagnationReachesTheRecursiveBound) {
  // The adversarial point of stagnation: naive f32 summation loses (n-1) half ulps, so its
  // error reaches (n-1) u A within a factor 1 + (n-1) 2^-24: error/bound >= 0.9.
  std::vector<std::uint8_t> bytes = {0, 1, 0x27, 0x0f,
                                     0, 0, 0,    0};  // 1 element, long chain of draw -> many steps, shift 0, mode 0
  ByteChoiceStream s(bytes);
  const Family* family = find_family("stagnation");
  const auto w = std::get<DenseWorkload>(generate(s, Format::f32, unwidened(), WorkloadKind::dense, family));
  ASSERT_GE(w.steps, 100u);
  std::vector<double> column;
  w.column(0, column);
  float acc = static_cast<float>(column[0]);
  for (std::size_t i = 1; i < column.size(); ++i) acc += static_cast<float>(column[i]);
  const ExactSum e = exact_sums(w)[0];
  const double error = std::fabs(static_cast<double>(acc) - nearest_double(e.sum));
  const double bound = static_cast<double>(column.size() - 1) * std::ldexp(1.0, -24) * nearest_double(e.abs_sum);
  EXPECT_GE(error / bound, 0.9) << "n = " << column.size();
}

// Whether the exact value s lies exactly halfway between two neighbours of f.
bool is_tie(const FixedInt& s, Format f) {
  const double r = round_fixed(s, f);
  const FixedInt at = to_fixed(r);
  if (at == s || !std::isfinite(r)) return false;
  const double neighbour = s > at ? next_up(r, f) : next_down(r, f);
  return (s - at) * 2 == to_fixed(neighbour) - at;
}

TEST(Families, ExactTiesAreTiesAndTheirSumsOftenToo) {
  const Family* family = find_family("exact_ties");
  for (Format f : all_formats) {
    int tie_sums = 0, elements = 0, tie_steps = 0, steps = 0;
    for (std::uint64_t seed = 0; seed < 3 * kSeeds; ++seed) {
      SeededChoiceStream s(seed);
      GenerationLimits limits = unwidened();
      limits.max_long_steps = 500;
      const Workload w = generate(s, f, limits, WorkloadKind::dense, family);
      const auto& d = std::get<DenseWorkload>(w);
      const auto sums = exact_sums(w);
      for (std::size_t j = 0; j < d.elements; ++j) {
        tie_sums += is_tie(sums[j].sum, f);
        ++elements;
        if (family_of(w) != "exact_ties") continue;  // the in-order check needs the generated order
        std::vector<double> column;
        d.column(j, column);
        double running = column[0];
        for (std::size_t i = 1; i + 1 < column.size(); ++i) {  // the last addend may make the sum a tie instead
          const FixedInt exact = to_fixed(running) + to_fixed(column[i]);
          tie_steps += is_tie(exact, f);
          ++steps;
          running = round_fixed(exact, f);
        }
      }
    }
    EXPECT_GT(tie_steps, steps * 3 / 4) << name(f);
    EXPECT_GT(tie_sums, elements / 4) << name(f) << ": the exact sum should be a tie of the format about half the time";
  }
}

TEST(Families, OverflowPartialsOverflowWhileTheSumIsFinite) {
  const Family* family = find_family("overflow_partials");
  for (Format f : all_formats)
    for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
      SeededChoiceStream s(seed);
      const Workload w = generate(s, f, unwidened(), WorkloadKind::dense, family);
      for (const ExactSum& e : exact_sums(w)) {
        ASSERT_EQ(e.special, Special::none);
        EXPECT_GT(nearest_double(e.abs_sum), largest_finite(f)) << name(f);
        EXPECT_TRUE(std::isfinite(e.rounded(f))) << name(f);
      }
    }
}

TEST(Families, NearCancellingIsIllConditionedLikeMxnet16686) {
  const Family* family = find_family("near_cancelling");
  for (Format f : {Format::f32, Format::f64}) {
    std::vector<double> kappas;
    for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
      SeededChoiceStream s(seed);
      for (const ExactSum& e : exact_sums(generate(s, f, unwidened(), WorkloadKind::dense, family)))
        kappas.push_back(e.condition_number());
    }
    std::nth_element(kappas.begin(), kappas.begin() + kappas.size() / 2, kappas.end());
    EXPECT_GT(kappas[kappas.size() / 2], 1e4) << name(f) << ": median kappa";  // the reproduction's ~5e6
  }
}

TEST(Families, MixedMagnitudesAndUniformStayInTheirRanges) {
  for (Format f : {Format::f64, Format::f32, Format::bf16}) {
    int large = 0, small = 0;
    for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
      SeededChoiceStream s(seed), u(seed);
      for (double x : all_values(generate(s, f, unwidened(), WorkloadKind::dense, find_family("mixed_magnitudes")))) {
        EXPECT_LE(std::fabs(x), 2.0);
        EXPECT_GE(std::fabs(x), std::ldexp(1.0, -37));
        (std::fabs(x) >= std::ldexp(1.0, -10) ? large : small)++;
      }
      for (double x : all_values(generate(u, f, unwidened(), WorkloadKind::dense, find_family("uniform"))))
        EXPECT_LE(std::fabs(x), 1.0);
    }
    EXPECT_GT(large, 0);
    EXPECT_GT(small, 10 * large);
  }
}

TEST(Families, LongChainsFollowTheLimits) {
  const Family* family = find_family("long_chain");
  GenerationLimits ci;  // 10^4
  GenerationLimits night;
  night.max_long_steps = 1000000;
  std::size_t longest_ci = 0, longest_night = 0;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    SeededChoiceStream a(seed), b(seed);
    const auto w = std::get<DenseWorkload>(generate(a, Format::f32, ci, WorkloadKind::dense, family));
    EXPECT_GE(w.steps, ci.max_steps);
    EXPECT_LE(w.steps, ci.max_long_steps);
    longest_ci = std::max(longest_ci, w.steps);
    if (seed < 6)  // 10^6-step workloads are slow to make: a few suffice
      longest_night = std::max(
          longest_night, std::get<DenseWorkload>(generate(b, Format::f32, night, WorkloadKind::dense, family)).steps);
  }
  EXPECT_GT(longest_ci, 5000u);
  EXPECT_GT(longest_night, 100000u);
}

TEST(Families, FixedStepsAreHonoured) {
  GenerationLimits limits = unwidened();
  limits.fixed_steps = 99;
  for (const Family* family : families_of(WorkloadKind::dense)) {
    if (family->name == "near_cancelling" || family->name == "overflow_partials") continue;
    SeededChoiceStream s(5);
    EXPECT_EQ(std::get<DenseWorkload>(generate(s, Format::f32, limits, WorkloadKind::dense, family)).steps, 99u)
        << family->name;
  }
}

TEST(Families, OrderVariantsReorderEachColumn) {
  SeededChoiceStream s(3);
  DenseWorkload w = generate_dense(s, Format::f32, unwidened(), find_family("mixed_magnitudes"));
  std::map<Order, DenseWorkload> variants;
  for (Order o : {Order::ascending_magnitude, Order::descending_magnitude, Order::alternating_signs, Order::shuffled}) {
    DenseWorkload v = w;
    SeededChoiceStream order(9);
    reorder(v, o, order);
    for (std::size_t j = 0; j < w.elements; ++j) {
      std::vector<double> before, after;
      w.column(j, before);
      v.column(j, after);
      std::vector<double> sorted_before = before, sorted_after = after;
      std::sort(sorted_before.begin(), sorted_before.end());
      std::sort(sorted_after.begin(), sorted_after.end());
      EXPECT_EQ(sorted_before, sorted_after) << name(o) << ": not a permutation";
      if (o == Order::ascending_magnitude)
        EXPECT_TRUE(
            std::is_sorted(after.begin(), after.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); }));
      if (o == Order::descending_magnitude)
        EXPECT_TRUE(
            std::is_sorted(after.begin(), after.end(), [](double a, double b) { return std::fabs(a) > std::fabs(b); }));
    }
  }
  // generate() labels the variant it drew.
  std::map<std::string, int> seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    SeededChoiceStream g(seed);
    const std::string family = family_of(generate(g, Format::f32, unwidened(), WorkloadKind::dense));
    seen[family.find('/') == std::string::npos ? "as_generated" : family.substr(family.find('/') + 1)]++;
  }
  for (const char* order : {"as_generated", "ascending", "descending", "alternating", "shuffled"})
    EXPECT_GT(seen[order], 10) << order;
}

}  // namespace
}  // namespace accucheck
