// Workload equality (workload.h's operator==): every field counts, values compare bit for bit
// with any NaN equal to any NaN. Round trips (case files, choice streams, fuzz inputs) are
// checked with it, so a field it missed would let a lossy round trip pass.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "checking/workload.h"

namespace accucheck {
namespace {

DenseWorkload dense() {
  return DenseWorkload{.format = Format::f32,
                       .elements = 2,
                       .steps = 1,
                       .initial = {1.0, -0.0},
                       .addends = {0.5, 2.0},
                       .family = "hand",
                       .layout = {},
                       .input_format = {}};
}
ProductWorkload product() {
  return ProductWorkload{.format = Format::f16,
                         .rows = 1,
                         .cols = 1,
                         .batch = 2,
                         .steps = 1,
                         .initial = {3.0},
                         .a = {1.0, 2.0},
                         .b = {0.25, -1.0},
                         .family = "hand",
                         .input_format = {},
                         .b_input_format = {}};
}
SparseWorkload sparse() {
  return SparseWorkload{.format = Format::bf16,
                        .rows = 3,
                        .dim = 1,
                        .steps = 1,
                        .initial = {0.0, 1.0, 2.0},
                        .step_offsets = {0, 2},
                        .row_index = {2, 0},
                        .values = {4.0, 8.0},
                        .family = "hand",
                        .layout = {},
                        .input_format = {}};
}

// Each change of one field makes the workload unequal to the original, and only that change.
template <class W>
void expect_every_field_counts(const W& original, const std::vector<std::function<void(W&)>>& changes) {
  EXPECT_TRUE(original == W(original));
  for (std::size_t i = 0; i < changes.size(); ++i) {
    W changed = original;
    changes[i](changed);
    EXPECT_FALSE(original == changed) << "change " << i;
    EXPECT_FALSE(Workload(original) == Workload(changed)) << "change " << i << " through the variant";
  }
}

TEST(WorkloadEquality, EveryFieldOfEveryKindCounts) {
  expect_every_field_counts<DenseWorkload>(
      dense(), {[](auto& w) { w.format = Format::f64; }, [](auto& w) { w.elements = 1; }, [](auto& w) { w.steps = 2; },
                [](auto& w) { w.initial[0] = 2.0; }, [](auto& w) { w.addends.push_back(0.0); },
                [](auto& w) { w.family = "other"; }});
  expect_every_field_counts<ProductWorkload>(
      product(), {[](auto& w) { w.format = Format::f32; }, [](auto& w) { w.rows = 2; }, [](auto& w) { w.cols = 2; },
                  [](auto& w) { w.batch = 1; }, [](auto& w) { w.steps = 0; }, [](auto& w) { w.initial[0] = 0.0; },
                  [](auto& w) { w.a[1] = 4.0; }, [](auto& w) { w.b[0] = -0.25; }, [](auto& w) { w.family = ""; }});
  expect_every_field_counts<SparseWorkload>(
      sparse(),
      {[](auto& w) { w.format = Format::f16; }, [](auto& w) { w.rows = 4; }, [](auto& w) { w.dim = 2; },
       [](auto& w) { w.steps = 2; }, [](auto& w) { w.initial[2] = 3.0; }, [](auto& w) { w.step_offsets[1] = 1; },
       [](auto& w) { w.row_index[0] = 1; }, [](auto& w) { w.values[1] = 16.0; }, [](auto& w) { w.family = "x"; }});
}

TEST(WorkloadEquality, ValuesCompareBitForBit) {
  DenseWorkload w = dense(), v = dense();
  v.initial[1] = 0.0;  // +0 where w holds -0
  EXPECT_FALSE(w == v);
  // NaNs are equal to each other, whatever their sign or payload; a NaN is not a number.
  w.addends[0] = std::numeric_limits<double>::quiet_NaN();
  v = w;
  v.addends[0] = -std::nan("7");
  EXPECT_TRUE(w == v);
  v.addends[0] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(w == v);
}

TEST(WorkloadEquality, KindsDifferThroughTheVariant) {
  const Workload a = dense(), b = product(), c = sparse();
  EXPECT_TRUE(a == Workload(dense()));
  EXPECT_FALSE(a == b);
  EXPECT_FALSE(b == c);
  EXPECT_TRUE(a != b);
}

}  // namespace
}  // namespace accucheck
