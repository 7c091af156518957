// Boundary shapes (shapes.h): sizes land on the boundaries kernels split at, widening keeps the
// family's elements whole and makes every added element trivial (exactly summable in any order),
// and generate() reaches D = 65535 +- 1 and beyond within the limits (draw_boundary_size reaches
// the limit itself).
#include "checking/shapes.h"
#include "checking/families.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "accucheck/testing/bits.h"
#include "numerics/exact.h"
#include "numerics/fast_exact.h"

namespace accucheck {
namespace {

TEST(Shapes, BoundarySizesStayInRangeAndLandOnBoundaries) {
  std::map<std::string, int> hits;
  const std::size_t max = std::size_t{1} << 17;
  for (std::uint64_t seed = 0; seed < 20000; ++seed) {
    SeededChoiceStream s(seed);
    const std::size_t d = draw_boundary_size(s, max);
    ASSERT_GE(d, 1u);
    ASSERT_LE(d, max);
    for (std::size_t unit : {std::size_t{32}, std::size_t{256}, std::size_t{1024}, std::size_t{65535}})
      if (d >= unit) {
        const std::size_t r = d % unit;
        if (r == 0) ++hits[std::to_string(unit) + "k"];
        if (r == 1) ++hits[std::to_string(unit) + "k+1"];
        if (r == unit - 1) ++hits[std::to_string(unit) + "k-1"];
      }
    if (d == max) ++hits["max"];
  }
  // A uniform size is a multiple of 1024 (+-1) about once in a thousand draws, of 65535 +- 1
  // once in 2^16; the boundary draw makes each far likelier.
  for (const char* key : {"32k", "32k+1", "32k-1", "256k", "256k+1", "256k-1", "1024k", "1024k+1", "1024k-1", "65535k",
                          "65535k+1", "65535k-1", "max"})
    EXPECT_GE(hits[key], 20) << key;
  ByteChoiceStream zero({});
  EXPECT_EQ(draw_boundary_size(zero, max), 1u) << "the zero choice is the simplest size";
}

TEST(Shapes, BoundaryPositionsAreTheLastTheFirstAndBlockEdges) {
  std::set<std::size_t> seen;
  for (std::uint64_t seed = 0; seed < 4000; ++seed) {
    SeededChoiceStream s(seed);
    const std::size_t p = draw_boundary_position(s, 1000);
    ASSERT_LT(p, 1000u);
    seen.insert(p);
  }
  for (std::size_t p : {0, 999, 7, 8, 15, 16, 31, 32, 255, 256, 767, 768}) EXPECT_TRUE(seen.count(p)) << p;
  ByteChoiceStream zero({});
  EXPECT_EQ(draw_boundary_position(zero, 1000), 999u) << "the zero choice is the last element, where tails are";
}

// Element e's exact sum, rounded to double (an exact sum of format values fits no double in
// general; equality of ExactSum is what matters, compared as rounded + the exact residue).
ExactSum exact_of(const Workload& w, std::size_t e) {
  std::vector<double> terms;
  element_terms(w, e, terms);
  return fast_exact_sum(terms);
}

// Added elements sum exactly in the storage format in their own order: each partial sum is a
// value of the format (zeros, +-2^e, or a copy of an original element for dense copies).
bool naive_sum_is_exact(const Workload& w, std::size_t e) {
  std::vector<double> terms;
  element_terms(w, e, terms);
  double acc = 0;
  for (double x : terms) acc = round_to_format(acc + x, format_of(w));
  const double exact = exact_of(w, e).rounded(format_of(w));
  return acc == exact || (std::isnan(acc) && std::isnan(exact));  // inf * 0 in an added column of a product is NaN
}

TEST(Shapes, WideningKeepsTheFamilysElementsAndAddsTrivialOnes) {
  GenerationLimits l;
  l.max_wide_values = 1 << 16;
  int widened[3] = {0, 0, 0};
  for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::sparse, WorkloadKind::product})
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
      const Format f = kind == WorkloadKind::product ? Format::f32 : all_formats[seed % 4];
      GenerationLimits unwidened = l;
      unwidened.max_wide_values = 0;
      SeededChoiceStream s(seed);
      const Workload narrow = generate(s, f, unwidened, kind);
      Workload wide = narrow;
      SeededChoiceStream w_stream(seed + 1000);
      if (!widen_at_boundaries(w_stream, l, wide)) continue;
      ++widened[static_cast<int>(kind)];
      ASSERT_EQ(validate(wide), "") << seed;
      std::size_t values = 0;
      for_each_value_array(wide, [&](const std::vector<double>& a) { values += a.size(); });
      ASSERT_LE(values, l.max_wide_values) << seed;
      ASSERT_TRUE(element_count(wide) > element_count(narrow) || workload_bytes(wide) > workload_bytes(narrow))
          << "wider, or (a product widening K alone) larger";
      // Every original element's exact sum is among the wide workload's (placement is a
      // permutation of positions: compare multisets of exact sums of the originals).
      std::multiset<std::pair<double, double>> originals, found;
      auto key = [&](const Workload& x, std::size_t e) {
        const ExactSum sum = exact_of(x, e);
        const double wide_sum = sum.rounded(Format::f64), narrow_sum = sum.rounded(f);  // NaN: a key equal to itself
        return std::pair{std::isnan(wide_sum) ? 1e300 : wide_sum, std::isnan(narrow_sum) ? 1e300 : narrow_sum};
      };
      // A dense widening may keep only the family's first steps: the originals are those.
      Workload kept = narrow;
      if (auto* d = std::get_if<DenseWorkload>(&kept)) {
        d->steps = std::get<DenseWorkload>(wide).steps;
        d->addends.resize(d->steps * d->elements);
      }
      for (std::size_t e = 0; e < element_count(kept); ++e) originals.insert(key(kept, e));
      std::size_t inexact = 0;
      for (std::size_t e = 0; e < element_count(wide); ++e) {
        found.insert(key(wide, e));
        if (!naive_sum_is_exact(wide, e)) ++inexact;
      }
      for (const auto& k : originals)
        ASSERT_TRUE(found.count(k)) << name(kind) << " seed " << seed << ": an original element lost";
      // Only original elements (and, for dense copies, copies of one) may be inexact.
      if (kind != WorkloadKind::dense) ASSERT_LE(inexact, element_count(narrow)) << name(kind) << " seed " << seed;
    }
  for (int k = 0; k < 3; ++k) EXPECT_GT(widened[k], 50) << k;  // of 300: a drawn size may not exceed the original
}

TEST(Shapes, GenerateReachesTheGridLimitAndBeyond) {
  GenerationLimits l;
  l.wide_one_in = 4;  // reachability, not frequency (the next test)
  bool at_grid_edge = false, beyond = false;
  int cases = 0;
  for (std::uint64_t seed = 0; seed < 40000 && !(at_grid_edge && beyond); ++seed) {
    SeededChoiceStream s(seed);
    const auto w = generate(s, Format::f32, l, WorkloadKind::dense);
    ++cases;
    const auto& d = std::get<DenseWorkload>(w);
    if (d.elements >= 65534 && d.elements <= 65536) at_grid_edge = true;
    if (d.elements > 65536) beyond = true;
    ASSERT_LE(d.elements * (d.steps + 1), std::max(l.max_wide_values, d.elements)) << seed;
  }
  EXPECT_TRUE(at_grid_edge) << "D = 65535 +- 1 within " << cases << " cases";
  EXPECT_TRUE(beyond) << "D above 65536 within " << cases << " cases";
}

TEST(Shapes, OneCaseInWideOneInIsWidened) {
  for (std::size_t one_in : {std::size_t{4}, std::size_t{32}}) {
    GenerationLimits l;
    l.wide_one_in = one_in;
    l.max_wide_values = 1 << 12;  // frequency only: keep the cases small
    int wide = 0;
    const int cases = 6400;
    for (int seed = 0; seed < cases; ++seed) {
      SeededChoiceStream s(static_cast<std::uint64_t>(seed));
      if (family_of(generate(s, Format::f32, l, WorkloadKind::dense)).ends_with("/wide")) ++wide;
    }
    // A widening whose drawn size is not larger leaves the case as it is: somewhat fewer.
    EXPECT_GT(wide, cases / static_cast<int>(one_in) / 2) << one_in;
    EXPECT_LT(wide, cases / static_cast<int>(one_in) * 3 / 2) << one_in;
  }
}

}  // namespace
}  // namespace accucheck
