// The plugin ABI and loader: the example plugins load with their declarations and their
// results cross the ABI exactly; every malformed plugin is refused with its file and field
// named; a plugin that crashes, aborts, hangs, overruns its buffer or returns an error becomes
// a backend failure instead of ending the process. (Comparisons with the built-in backends:
// impls/tests/plugin_builtins_test.cpp.)
#include "accucheck/plugin.h"  // first: the C header must compile on its own, as C++

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <limits>
#include <string>

#include "accucheck/testing/backends.h"
#include "accucheck/testing/bits.h"
#include "accucheck/testing/workloads.h"
#include "checking/choice.h"
#include "checking/determinism.h"
#include "checking/families.h"
#include "checking/judge.h"
#include "checking/shrink.h"
#include "numerics/fp8.h"
#include "numerics/fp_environment.h"
#include "plugins/plugin_loader.h"

namespace accucheck {
namespace {

using test::random_sparse;
using test::results_of;
using test::same_bits;

static_assert(ACCUCHECK_PLUGIN_ABI == 4);
static_assert(sizeof(accucheck_format) == sizeof(int) && sizeof(accucheck_determinism) == sizeof(int));
static_assert(ACCUCHECK_F64 == 0 && ACCUCHECK_F32 == 1 && ACCUCHECK_F16 == 2 && ACCUCHECK_BF16 == 3);
static_assert(ACCUCHECK_DETERMINISTIC == 0 && ACCUCHECK_ORDER_INDEPENDENT == 1 && ACCUCHECK_NONDETERMINISTIC == 2);
// ABI v1 layout: later versions may only append fields.
static_assert(offsetof(accucheck_backend, name) == 0);
static_assert(offsetof(accucheck_dense_problem, elements) == 0 &&
              offsetof(accucheck_dense_problem, buffer) == 3 * sizeof(void*));
static_assert(offsetof(accucheck_sparse_problem, table) == 6 * sizeof(void*));
// ABI v2 appended its fields after v1's.
static_assert(offsetof(accucheck_backend, layouts) == 6 * sizeof(void*));
static_assert(offsetof(accucheck_dense_problem, addend_step_stride) == 4 * sizeof(void*));
static_assert(offsetof(accucheck_sparse_problem, table_row_stride) == 7 * sizeof(void*));
// ABI v3 appended the input formats; the backend struct is unchanged, the FP8 values match Format's.
static_assert(offsetof(accucheck_dense_problem, addend_format) == 7 * sizeof(void*));
static_assert(offsetof(accucheck_sparse_problem, value_format) == 9 * sizeof(void*));
// ABI v4 appended accumulate_product to the backend (versions 2 and 3 end before it) and a problem.
static_assert(offsetof(accucheck_backend, accumulate_product) == 7 * sizeof(void*));
static_assert(sizeof(accucheck_backend) == 8 * sizeof(void*));
static_assert(offsetof(accucheck_product_problem, a_format) == 7 * sizeof(void*));
static_assert(ACCUCHECK_E4M3 == static_cast<int>(Format::e4m3) && ACCUCHECK_E5M2 == static_cast<int>(Format::e5m2));

std::string test_plugin(const std::string& variant) {
  return std::string(ACCUCHECK_TEST_PLUGIN_DIR) + "/libtest_plugin_" + variant + ".so";
}

// Plugin workloads: ordinary values (the misbehaving variants key on the number of steps).
DenseWorkload random_dense(Format f, std::size_t elements, std::size_t steps, std::uint64_t seed) {
  return test::random_dense(f, elements, steps, seed, test::Values::ordinary);
}

TEST(PluginLoader, LoadsTheGoodExampleWithItsDeclarations) {
  Registry registry;
  const auto names = load_plugin(ACCUCHECK_GOOD_EXAMPLE_PLUGIN, registry);
  ASSERT_EQ(names, (std::vector<std::string>{"example.naive_f64", "example.kahan_f32", "example.widened_bf16",
                                             "example.widened_f16"}));
  const Backend* kahan = registry.find("example.kahan_f32");
  ASSERT_NE(kahan, nullptr);
  EXPECT_EQ(kahan->storage, Format::f32);
  EXPECT_EQ(kahan->bound_text(), "kahan(f32)");
  EXPECT_EQ(kahan->determinism, Determinism::bitwise_deterministic);
  EXPECT_TRUE(kahan->supports(WorkloadKind::dense));
  EXPECT_TRUE(kahan->supports(WorkloadKind::sparse));
  EXPECT_FALSE(kahan->supports(WorkloadKind::product));
  EXPECT_TRUE(std::filesystem::path(kahan->origin).is_absolute());
  EXPECT_EQ(kahan->origin, std::filesystem::absolute(ACCUCHECK_GOOD_EXAMPLE_PLUGIN).lexically_normal().string());
  const Backend* bf16 = registry.find("example.widened_bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->storage, Format::bf16);
  EXPECT_EQ(bf16->accumulation, Format::f32);
  EXPECT_EQ(bf16->bound_text(), "widened(recursive(f32),bf16)");
  // A second load of the same file registers nothing and is not an error.
  EXPECT_TRUE(load_plugin(ACCUCHECK_GOOD_EXAMPLE_PLUGIN, registry).empty());
  EXPECT_EQ(registry.all().size(), 4u);
}

// Sparse workloads cross the ABI too (step offsets, row indices, pair-major values), and every
// example backend's result is within its stated bound on them.
TEST(PluginLoader, ExampleSparseResultsAreJudgedOk) {
  Registry registry;
  load_plugin(ACCUCHECK_GOOD_EXAMPLE_PLUGIN, registry);
  for (const Backend& b : registry.all()) {
    ASSERT_TRUE(b.supports(WorkloadKind::sparse)) << b.name;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const Workload s = random_sparse(b.storage, seed);
      const auto outcome = run_and_judge(b, s);
      EXPECT_FALSE(outcome.violated()) << b.name << ": " << describe_violation(b, s, outcome);
      // Rows 5 and 6 are never touched: their initial values come back unchanged.
      const auto out = results_of(b, s);
      const auto& w = std::get<SparseWorkload>(s);
      for (std::size_t i = 5 * w.dim; i < 7 * w.dim; ++i) EXPECT_TRUE(same_bits(out[i], w.initial[i])) << b.name;
    }
  }
}

// Special values and subnormals survive the trip through the ABI in every storage format.
TEST(PluginLoader, SpecialValuesCrossTheAbiExactly) {
  Registry registry;
  load_plugin(ACCUCHECK_GOOD_EXAMPLE_PLUGIN, registry);
  for (const char* name : {"example.naive_f64", "example.widened_bf16", "example.widened_f16"}) {
    const Backend* b = registry.find(name);
    ASSERT_NE(b, nullptr);
    const Format f = b->storage;
    DenseWorkload w;
    w.format = f;
    w.elements = 6;
    w.steps = 1;
    w.initial = {0.0, -0.0, smallest_subnormal(f), -largest_finite(f), 1.0, 0.0};
    w.addends = {-0.0, -0.0, smallest_subnormal(f), 0.0, std::numeric_limits<double>::infinity(), std::nan("")};
    const auto out = results_of(*b, w);
    EXPECT_TRUE(same_bits(out[0], 0.0)) << name;
    EXPECT_TRUE(same_bits(out[1], -0.0)) << name;
    EXPECT_EQ(out[2], 2 * smallest_subnormal(f)) << name;
    EXPECT_EQ(out[3], -largest_finite(f)) << name;
    EXPECT_EQ(out[4], std::numeric_limits<double>::infinity()) << name;
    EXPECT_TRUE(std::isnan(out[5])) << name;
  }
}

TEST(PluginLoader, TheWrongExampleIsCaught) {
  Registry registry;
  load_plugin(ACCUCHECK_WRONG_EXAMPLE_PLUGIN, registry);
  const Backend* b = registry.find("example_wrong.elemwise_sum_f32");
  ASSERT_NE(b, nullptr);
  const auto outcome = run_and_judge(*b, random_dense(Format::f32, 2, 8, 3));
  EXPECT_TRUE(outcome.violated());
  EXPECT_EQ(outcome.worst, Verdict::bound_exceeded);
}

// Layouts a stride-accepting backend is given (workload.h): transposed, sliced, padded, and
// every field at its largest.
std::vector<DenseLayout> dense_layouts() {
  return {DenseLayout{},
          DenseLayout{.element_major = true},
          DenseLayout{.gap = 1},
          DenseLayout{.padding = 5},
          DenseLayout{.buffer_gap = 2},
          DenseLayout{.element_major = true, .gap = 2, .padding = 3, .buffer_gap = 1},
          DenseLayout{
              .element_major = false, .gap = kMaxLayoutGap, .padding = kMaxLayoutPadding, .buffer_gap = kMaxLayoutGap}};
}

// The strides follow from the layout (workload.h), worked by hand for D = 3, T = 4.
TEST(PluginLayouts, StridesAndSpansOfEachLayout) {
  const auto contiguous = dense_strides(DenseLayout{}, 3, 4);
  EXPECT_EQ(contiguous.step, 3u);
  EXPECT_EQ(contiguous.element, 1u);
  EXPECT_EQ(contiguous.buffer, 1u);
  EXPECT_EQ(contiguous.addend_span, 12u);
  EXPECT_EQ(contiguous.buffer_span, 3u);
  // Transposed: element j's 4 steps are contiguous, then the next element's.
  const auto transposed = dense_strides(DenseLayout{.element_major = true}, 3, 4);
  EXPECT_EQ(transposed.step, 1u);
  EXPECT_EQ(transposed.element, 4u);
  EXPECT_EQ(transposed.addend_span, 12u);
  // x[:, ::2] of a 4 x 7 array: rows of 3*2 + 1 = 7 values, the last place 3*7 + 2*2 = 25.
  const auto sliced = dense_strides(DenseLayout{.gap = 1, .padding = 1, .buffer_gap = 2}, 3, 4);
  EXPECT_EQ(sliced.step, 7u);
  EXPECT_EQ(sliced.element, 2u);
  EXPECT_EQ(sliced.addend_span, 26u);
  EXPECT_EQ(sliced.buffer, 3u);
  EXPECT_EQ(sliced.buffer_span, 7u);
  // No steps: no addends at all.
  EXPECT_EQ(dense_strides(DenseLayout{.element_major = true, .padding = 4}, 3, 0).addend_span, 0u);
  // A table of 4 rows of dim 3 padded by 2, 5 pair vectors padded by 1: the last row and
  // vector end after their 3 values (3*5 + 3, 4*4 + 3).
  const auto sparse = sparse_strides(SparseLayout{.table_padding = 2, .value_padding = 1}, 4, 3, 5);
  EXPECT_EQ(sparse.table_row, 5u);
  EXPECT_EQ(sparse.value_pair, 4u);
  EXPECT_EQ(sparse.table_span, 18u);
  EXPECT_EQ(sparse.values_span, 19u);
  EXPECT_EQ(sparse_strides(SparseLayout{}, 4, 3, 0).values_span, 0u);
}

// A backend that honours its strides gives the same bits in every layout; a dense and a sparse
// one of the good example, on ordinary values.
TEST(PluginLayouts, StridedBackendsGiveTheSameBitsInEveryLayout) {
  Registry registry;
  load_plugin(ACCUCHECK_GOOD_EXAMPLE_PLUGIN, registry);
  for (const char* name : {"example.naive_f64", "example.kahan_f32"}) {
    const Backend* b = registry.find(name);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(b->accepts_strides) << name;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      DenseWorkload w = random_dense(b->storage, 5, 7, seed);
      const auto expected = results_of(*b, w);
      for (const DenseLayout& layout : dense_layouts()) {
        w.layout = layout;
        const auto out = results_of(*b, w);
        for (std::size_t j = 0; j < w.elements; ++j)
          EXPECT_TRUE(same_bits(out[j], expected[j])) << name << " " << describe(layout) << " element " << j;
        EXPECT_FALSE(run_and_judge(*b, w).violated()) << name << " " << describe(layout);
      }
      SparseWorkload sp = random_sparse(b->storage, seed);
      const auto sparse_expected = results_of(*b, sp);
      for (SparseLayout layout : {SparseLayout{.table_padding = 3}, SparseLayout{.value_padding = 1},
                                  SparseLayout{.table_padding = kMaxLayoutPadding, .value_padding = 7}}) {
        sp.layout = layout;
        const auto out = results_of(*b, sp);
        for (std::size_t i = 0; i < out.size(); ++i)
          EXPECT_TRUE(same_bits(out[i], sparse_expected[i])) << name << " " << describe(layout) << " value " << i;
      }
    }
  }
  // The widened ones do not accept strides: given contiguous memory, they are right in every layout.
  const Backend* widened = registry.find("example.widened_f16");
  ASSERT_NE(widened, nullptr);
  EXPECT_FALSE(widened->accepts_strides);
  DenseWorkload w = random_dense(Format::f16, 4, 6, 9);
  for (const DenseLayout& layout : dense_layouts()) {
    w.layout = layout;
    EXPECT_FALSE(run_and_judge(*widened, w).violated()) << describe(layout);
  }
}

// The wrong example's ignores_strides_f32 declares strides and indexes contiguously: right on
// contiguous memory, and on a strided layout it writes between the buffer's elements (an
// overrun) or reads the NaN between the addends (a wrong result).
TEST(PluginLayouts, ABackendIgnoringItsStridesIsCaught) {
  Registry registry;
  load_plugin(ACCUCHECK_WRONG_EXAMPLE_PLUGIN, registry);
  const Backend* b = registry.find("example_wrong.ignores_strides_f32");
  ASSERT_NE(b, nullptr);
  DenseWorkload w = random_dense(Format::f32, 3, 5, 4);
  EXPECT_FALSE(run_and_judge(*b, w).violated());
  w.layout = DenseLayout{.buffer_gap = 1};
  auto outcome = run_and_judge(*b, w);
  ASSERT_TRUE(outcome.violated());
  EXPECT_EQ(outcome.worst, Verdict::backend_failed);
  EXPECT_NE(outcome.failure.find("wrote between the strided places of its result buffer"), std::string::npos)
      << outcome.failure;
  EXPECT_EQ(outcome.failure_kind, FailureKind::overrun);
  w.layout = DenseLayout{.element_major = true};
  EXPECT_TRUE(run_and_judge(*b, w).violated());
  w.layout = DenseLayout{.padding = 1};  // only step 0 read right, the rest shifted onto the gap
  EXPECT_TRUE(run_and_judge(*b, w).violated());
  // Shrinking keeps only as much layout as the failure needs: one field, at 1.
  w.layout = DenseLayout{.element_major = true, .gap = 2, .padding = 3, .buffer_gap = 1};
  const Workload shrunk = shrink_workload(
      w, [&](const Workload& x) { return run_and_judge(*b, x).violated(); }, 300);
  const DenseLayout& kept = std::get<DenseWorkload>(shrunk).layout;
  EXPECT_FALSE(kept.contiguous());
  EXPECT_EQ(kept.element_major + (kept.gap > 0) + (kept.padding > 0) + (kept.buffer_gap > 0), 1) << describe(kept);
  EXPECT_LE(std::max({kept.gap, kept.padding, kept.buffer_gap}), 1u) << describe(kept);
}

// A plugin built against ABI 1 (its backend struct without ABI 2's field) loads with version
// 1's struct size: all three backends, whole, never given strided memory.
TEST(PluginLayouts, AVersion1PluginLoadsAndGetsContiguousMemory) {
  Registry registry;
  const auto names = load_plugin(test_plugin("abi1"), registry);
  ASSERT_EQ(names, (std::vector<std::string>{"abi1.naive_f32", "abi1.naive_f64", "abi1.sparse_f32"}));
  const Backend* f64 = registry.find("abi1.naive_f64");
  ASSERT_NE(f64, nullptr);
  EXPECT_EQ(f64->storage, Format::f64);
  EXPECT_EQ(f64->bound_text(), "recursive(f64)");
  EXPECT_TRUE(f64->supports(WorkloadKind::dense));
  EXPECT_FALSE(f64->supports(WorkloadKind::sparse));
  const Backend* sparse = registry.find("abi1.sparse_f32");
  ASSERT_NE(sparse, nullptr);
  EXPECT_EQ(sparse->determinism, Determinism::order_independent);
  EXPECT_FALSE(sparse->supports(WorkloadKind::dense));
  for (const Backend& b : registry.all()) {
    EXPECT_FALSE(b.accepts_strides) << b.name;
    if (b.supports(WorkloadKind::dense)) {
      DenseWorkload w = random_dense(b.storage, 4, 6, 2);
      for (const DenseLayout& layout : dense_layouts()) {
        w.layout = layout;
        EXPECT_FALSE(run_and_judge(b, w).violated()) << b.name << " " << describe(layout);
      }
    }
    if (b.supports(WorkloadKind::sparse)) {
      SparseWorkload sp = random_sparse(b.storage, 3);
      sp.layout = SparseLayout{.table_padding = 2, .value_padding = 2};
      EXPECT_FALSE(run_and_judge(b, sp).violated()) << b.name;
    }
  }
}

// ABI 3: FP8 gradients reach a backend with ACCUCHECK_ACCEPTS_FP8_INPUTS as FP8 bytes (in every
// layout: it accepts strides too), which the test plugin decodes with its own code (a wrong byte,
// format or offset gives another sum), and a backend without it, or a version 2 plugin (asked
// for 3, it answers 2), as the same values in f32. All sum sequentially in f32, as this test does.
TEST(PluginLoader, Fp8GradientsReachAnAbi3BackendAsBytesAndOthersAsValues) {
  Registry registry, version2;
  load_plugin(test_plugin("fp8_inputs"), registry);
  load_plugin(test_plugin("good"), registry);
  load_plugin(test_plugin("abi2"), version2);
  const Backend* bytes = registry.find("test.fp8_inputs");
  const Backend* values = registry.find("test.variant");
  const Backend* abi2 = version2.find("test.variant");
  ASSERT_NE(bytes, nullptr);
  ASSERT_NE(values, nullptr);
  ASSERT_NE(abi2, nullptr);
  EXPECT_TRUE(bytes->accepts_strides);
  for (Format fp8 : {Format::e4m3, Format::e5m2}) {
    std::vector<double> every;  // every finite value of the format
    for (int code = 0; code < 256; ++code)
      if (const double v = fp8_decode(static_cast<std::uint8_t>(code), fp8); std::isfinite(v)) every.push_back(v);
    DenseWorkload w;
    w.format = Format::f32;
    w.input_format = fp8;
    w.elements = 16;
    w.steps = (every.size() + w.elements - 1) / w.elements;
    w.addends.assign(w.steps * w.elements, 0.0);
    std::copy(every.begin(), every.end(), w.addends.begin());
    for (std::size_t j = 0; j < w.elements; ++j) w.initial.push_back(0.25 * static_cast<double>(j) - 1.0);
    std::vector<float> expected(w.initial.begin(), w.initial.end());
    for (std::size_t t = 0; t < w.steps; ++t)
      for (std::size_t j = 0; j < w.elements; ++j) expected[j] += static_cast<float>(w.addends[t * w.elements + j]);
    for (const DenseLayout& layout : dense_layouts()) {
      w.layout = layout;
      const auto from_bytes = results_of(*bytes, w);
      // It was given bytes (a conversion to f32 would sum the same: the format must say FP8).
      EXPECT_NE(bytes->captured_output().find("addend_format " + std::to_string(static_cast<int>(fp8))),
                std::string::npos)
          << bytes->captured_output();
      const auto from_values = results_of(*values, w), from_abi2 = results_of(*abi2, w);
      for (std::size_t j = 0; j < w.elements; ++j) {
        EXPECT_TRUE(same_bits(from_bytes[j], expected[j])) << name(fp8) << " " << describe(layout) << " element " << j;
        EXPECT_TRUE(same_bits(from_values[j], expected[j])) << name(fp8) << " element " << j << ": " << from_values[j];
        EXPECT_TRUE(same_bits(from_abi2[j], expected[j])) << name(fp8) << " element " << j << ": " << from_abi2[j];
      }
    }
    SparseWorkload sp;
    sp.format = Format::f32;
    sp.input_format = fp8;
    sp.rows = 3;
    sp.dim = 2;
    sp.steps = 2;
    sp.initial = {1, 2, 3, 4, 5, 6};
    sp.step_offsets = {0, 2, 3};
    sp.row_index = {2, 0, 2};
    sp.values = {every[3], every[200], every[40], every[120], every[77], every[150]};
    std::vector<float> table(sp.initial.begin(), sp.initial.end());
    for (std::size_t q = 0; q < sp.pairs(); ++q)
      for (std::size_t d = 0; d < sp.dim; ++d)
        table[sp.row_index[q] * sp.dim + d] += static_cast<float>(sp.values[q * sp.dim + d]);
    sp.layout = SparseLayout{.table_padding = 2, .value_padding = 3};
    const auto sparse_bytes = results_of(*bytes, sp);
    EXPECT_NE(bytes->captured_output().find("value_format " + std::to_string(static_cast<int>(fp8))), std::string::npos)
        << bytes->captured_output();
    const auto sparse_values = results_of(*values, sp);
    for (std::size_t e = 0; e < table.size(); ++e) {
      EXPECT_TRUE(same_bits(sparse_bytes[e], table[e])) << name(fp8) << " sparse element " << e;
      EXPECT_TRUE(same_bits(sparse_values[e], table[e])) << name(fp8) << " sparse element " << e;
    }
  }
}

struct BadPlugin {
  const char* variant;
  const char* message;  // what the error must say besides the file name
};
// Test names show the variant, not the struct's bytes (which hold addresses that change per run).
void PrintTo(const BadPlugin& bad, std::ostream* out) { *out << bad.variant; }

class BadPluginTest : public ::testing::TestWithParam<BadPlugin> {};

TEST_P(BadPluginTest, IsRefusedNamingTheFileAndTheField) {
  const BadPlugin& bad = GetParam();
  Registry registry;
  const std::string path = test_plugin(bad.variant);
  try {
    load_plugin(path, registry);
    FAIL() << bad.variant << " loaded";
  } catch (const PluginError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(bad.message), std::string::npos) << message;
  }
  EXPECT_TRUE(registry.all().empty()) << "nothing of a refused plugin is registered";
}

INSTANTIATE_TEST_SUITE_P(
    Variants, BadPluginTest,
    ::testing::Values(
        BadPlugin{"missing_symbol", "does not export accucheck_plugin_backends"},
        BadPlugin{"wrong_abi", "returned NULL for ABI versions 4 to 1"},
        BadPlugin{"load_crash", "crashed with SIGSEGV"}, BadPlugin{"zero_count", "returned no backends"},
        BadPlugin{"null_functions", "accumulate_dense, accumulate_sparse and accumulate_product are all NULL"},
        BadPlugin{"duplicate_name", "backend 'test.same': name is used by two backends"},
        BadPlugin{"invalid_name", "backend #0: name 'bad name!' is invalid"},
        BadPlugin{"null_name", "backend #0: name is NULL"},
        BadPlugin{"unknown_bound", "backend 'test.variant': stated_bound 'recursive(f33)' is not a bound expression"},
        BadPlugin{"null_bound", "stated_bound is NULL"}, BadPlugin{"storage_range", "storage is 7, not a format"},
        BadPlugin{"accumulation_range", "accumulation is -1, not a format"},
        BadPlugin{"storage_fp8", "storage is 4 (E4M3), an input format only"},
        BadPlugin{"determinism_range", "determinism is 5, not a class"},
        BadPlugin{"exit_on_load", "exited the process (status"},
        BadPlugin{"exit_in_backends", "exited the process (status"}),
    [](const auto& info) { return std::string(info.param.variant); });

TEST(PluginLoader, MissingFilesAndNonLibrariesAreRefused) {
  Registry registry;
  EXPECT_THROW(load_plugin("/nonexistent/libnothing.so", registry), PluginError);
  try {
    load_plugin("/nonexistent/libnothing.so", registry);
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libnothing.so: no such file"), std::string::npos) << e.what();
  }
  const std::string text = ::testing::TempDir() + "/not_a_library.so";
  FILE* f = fopen(text.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("this is not an ELF file\n", f);
  fclose(f);
  try {
    load_plugin(text, registry);
    FAIL();
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find(text + ": cannot load"), std::string::npos) << e.what();
  }
  try {
    load_plugin(::testing::TempDir(), registry);
    FAIL();
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

// A plugin that misbehaves while running is that backend's failure: the caller goes on.
struct Misbehaviour {
  const char* variant;
  const char* message;
};
void PrintTo(const Misbehaviour& m, std::ostream* out) { *out << m.variant; }

class MisbehavingPluginTest : public ::testing::TestWithParam<Misbehaviour> {};

TEST_P(MisbehavingPluginTest, BecomesABackendFailure) {
  const Misbehaviour& m = GetParam();
  for (PluginIsolation isolation : {PluginIsolation::worker, PluginIsolation::fork_per_call}) {
    Registry registry;
    PluginOptions options;
    options.isolation = isolation;
    options.timeout_seconds = 1;
    load_plugin(test_plugin(m.variant), options, registry);
    const Backend* b = registry.find("test.variant");
    ASSERT_NE(b, nullptr);
    // Short cases run normally (the variants misbehave from 4 steps on).
    EXPECT_FALSE(run_and_judge(*b, random_dense(Format::f32, 3, 3, 1)).violated());
    for (int round = 0; round < 2; ++round) {
      const auto outcome = run_and_judge(*b, random_dense(Format::f32, 3, 10, 2));
      EXPECT_EQ(outcome.worst, Verdict::backend_failed);
      EXPECT_NE(outcome.failure.find("test.variant: accumulate_dense"), std::string::npos) << outcome.failure;
      EXPECT_NE(outcome.failure.find(m.message), std::string::npos) << outcome.failure;
      EXPECT_TRUE(outcome.violated());
      // The caller goes on: the next call (in a new worker when the old one died) works.
      EXPECT_FALSE(run_and_judge(*b, random_dense(Format::f32, 2, 3, 5)).violated()) << "after " << m.variant;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, MisbehavingPluginTest,
                         ::testing::Values(Misbehaviour{"crash", "crashed with SIGSEGV"},
                                           Misbehaviour{"abort", "crashed with SIGABRT"},
                                           Misbehaviour{"error", "returned 7 (an error)"},
                                           Misbehaviour{"hang", "timed out after 1 s"},
                                           Misbehaviour{"overrun", "wrote past the end of its result buffer"},
                                           Misbehaviour{"exit_in_call", "exited the process (status"},
                                           Misbehaviour{"round_up",
                                                        "changed the floating-point environment and left it changed: "
                                                        "SSE rounding mode changed"}),
                         [](const auto& info) { return std::string(info.param.variant); });

// The worker is forked at the first call; a plugin loaded after that is still callable (the
// worker is replaced by one forked after the load).
TEST(PluginLoader, PluginsLoadedAfterTheWorkerStartedAreCallable) {
  Registry first, second;
  load_plugin(ACCUCHECK_GOOD_EXAMPLE_PLUGIN, first);
  EXPECT_FALSE(run_and_judge(*first.find("example.naive_f64"), random_dense(Format::f64, 2, 9, 1)).violated());
  load_plugin(test_plugin("good"), second);
  EXPECT_FALSE(run_and_judge(*second.find("test.variant"), random_dense(Format::f32, 2, 9, 1)).violated());
  EXPECT_FALSE(run_and_judge(*first.find("example.naive_f64"), random_dense(Format::f64, 2, 9, 2)).violated());
}

TEST(PluginLoader, InProcessIsolationStillReportsErrorsAndOverruns) {
  Registry registry;
  PluginOptions options;
  options.isolation = PluginIsolation::in_process;
  load_plugin(test_plugin("error"), options, registry);
  const auto outcome = run_and_judge(*registry.find("test.variant"), random_dense(Format::f32, 3, 10, 2));
  EXPECT_EQ(outcome.worst, Verdict::backend_failed);
  EXPECT_NE(outcome.failure.find("returned 7"), std::string::npos) << outcome.failure;
}

TEST(PluginLoader, WrongFormatWorkloadIsAFailureNotACrash) {
  Registry registry;
  load_plugin(test_plugin("good"), registry);
  const auto outcome = run_and_judge(*registry.find("test.variant"), random_dense(Format::f64, 2, 5, 1));
  EXPECT_EQ(outcome.worst, Verdict::backend_failed);
  EXPECT_NE(outcome.failure.find("stores f32"), std::string::npos) << outcome.failure;
}

TEST(PluginLoader, EnvironmentOptionsAreValidated) {
  setenv("ACCUCHECK_PLUGIN_ISOLATION", "sometimes", 1);
  EXPECT_THROW(plugin_options_from_environment(), PluginError);
  setenv("ACCUCHECK_PLUGIN_ISOLATION", "none", 1);
  EXPECT_EQ(plugin_options_from_environment().isolation, PluginIsolation::in_process);
  setenv("ACCUCHECK_PLUGIN_ISOLATION", "fork", 1);
  EXPECT_EQ(plugin_options_from_environment().isolation, PluginIsolation::fork_per_call);
  setenv("ACCUCHECK_PLUGIN_ISOLATION", "worker", 1);
  EXPECT_EQ(plugin_options_from_environment().isolation, PluginIsolation::worker);
  unsetenv("ACCUCHECK_PLUGIN_ISOLATION");
  setenv("ACCUCHECK_PLUGIN_TIMEOUT", "-3", 1);
  EXPECT_THROW(plugin_options_from_environment(), PluginError);
  setenv("ACCUCHECK_PLUGIN_TIMEOUT", "2.5", 1);
  EXPECT_EQ(plugin_options_from_environment().timeout_seconds, 2.5);
  unsetenv("ACCUCHECK_PLUGIN_TIMEOUT");
  EXPECT_GT(plugin_options_from_environment().memory_limit_bytes, 0u) << "limited by default";
  setenv("ACCUCHECK_PLUGIN_MEMORY", "2G", 1);
  EXPECT_EQ(plugin_options_from_environment().memory_limit_bytes, std::uint64_t{2} << 30);
  setenv("ACCUCHECK_PLUGIN_MEMORY", "1536M", 1);
  EXPECT_EQ(plugin_options_from_environment().memory_limit_bytes, std::uint64_t{1536} << 20);
  setenv("ACCUCHECK_PLUGIN_MEMORY", "none", 1);
  EXPECT_EQ(plugin_options_from_environment().memory_limit_bytes, 0u);
  for (const char* bad : {"lots", "2X", "-1G", "12"}) {
    setenv("ACCUCHECK_PLUGIN_MEMORY", bad, 1);
    EXPECT_THROW(plugin_options_from_environment(), PluginError) << bad;
  }
  unsetenv("ACCUCHECK_PLUGIN_MEMORY");
}

// The one function the property suite and the fuzz targets call at start-up.
TEST(PluginLoader, LoadsPluginsFromTheEnvironment) {
  const std::size_t before = Registry::global().all().size();
  setenv("ACCUCHECK_PLUGINS",
         (std::string("::") + ACCUCHECK_GOOD_EXAMPLE_PLUGIN + ":" + test_plugin("good") + ":").c_str(), 1);
  EXPECT_EQ(load_plugins_from_environment(), 5u);
  EXPECT_EQ(Registry::global().all().size(), before + 5);
  const Backend* b = Registry::global().find("example.kahan_f32");
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b->origin, "builtin");
  EXPECT_EQ(load_plugins_from_environment(), 0u) << "already loaded";
  setenv("ACCUCHECK_PLUGINS", test_plugin("wrong_abi").c_str(), 1);
  try {
    load_plugins_from_environment();
    FAIL();
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("ACCUCHECK_PLUGINS: " + test_plugin("wrong_abi")), std::string::npos)
        << e.what();
  }
  unsetenv("ACCUCHECK_PLUGINS");
}

// A plugin that hangs while loading is killed at the time-out, like one that hangs in a call.
TEST(PluginLoader, HangingWhileLoadingTimesOut) {
  Registry registry;
  PluginOptions options;
  options.timeout_seconds = 1;
  const auto start = std::chrono::steady_clock::now();
  try {
    load_plugin(test_plugin("hang_on_load"), options, registry);
    FAIL() << "loaded";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find(test_plugin("hang_on_load") + ": did not finish loading within 1 s"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  EXPECT_TRUE(registry.all().empty());
  // The worker that hung was replaced: other plugins still load and run.
  load_plugin(test_plugin("good"), options, registry);
  EXPECT_FALSE(run_and_judge(*registry.find("test.variant"), random_dense(Format::f32, 2, 9, 1)).violated());
}

// A library built with -ffast-math switches on flush-to-zero and denormals-are-zero when it is
// loaded. accucheck's own environment stays IEEE's default, the change is reported, and its
// backends run (and are judged) in the default environment: subnormals survive.
// A -ffast-math plugin switches on FTZ and DAZ for every process that loads it. accucheck's own
// environment never changes; in a worker the plugin's calls run as its users' processes run them
// (subnormals flushed, and the verdict says what that costs); loaded in-process (isolation none),
// accucheck must restore IEEE's environment, so its calls run there.
TEST(PluginLoader, FastMathPluginsRunAsTheirUsersRunThemAndAccucheckStaysIeee) {
  ASSERT_EQ(current_fp_environment(), default_fp_environment());
  for (PluginIsolation isolation : {PluginIsolation::worker, PluginIsolation::in_process}) {
    Registry registry;
    PluginOptions options;
    options.isolation = isolation;
    const bool worker = isolation == PluginIsolation::worker;
    const std::size_t warnings = plugin_warnings().size();
    load_plugin(test_plugin("fast_math"), options, registry);
    EXPECT_EQ(current_fp_environment(), default_fp_environment()) << "loading changed accucheck's environment";
    ASSERT_EQ(plugin_warnings().size(), warnings + 1);
    EXPECT_NE(plugin_warnings().back().find("libtest_plugin_fast_math.so changed the floating-point environment while "
                                            "loading: flush-to-zero and denormals-are-zero switched on"),
              std::string::npos)
        << plugin_warnings().back();
    EXPECT_NE(plugin_warnings().back().find(worker ? "its backends run in that environment" : "accucheck restored it"),
              std::string::npos)
        << plugin_warnings().back();
    DenseWorkload w;
    w.format = Format::f32;
    w.elements = 1;
    w.steps = 2;
    w.initial = {0x1p-140};
    w.addends = {0x1p-140, 0x1p-149};
    const Backend& b = *registry.find("test.variant");
    const auto result = results_of(b, w);
    EXPECT_EQ(current_fp_environment(), default_fp_environment()) << "a call changed accucheck's environment";
    if (worker) {
      EXPECT_EQ(result[0], 0.0)
          << "denormals-are-zero: the subnormal addends read as 0 where the plugin's users run it";
      EXPECT_TRUE(run_and_judge(b, w).violated());
    } else {
      EXPECT_EQ(result[0], 0x1p-139 + 0x1p-149) << "subnormals flushed";
      EXPECT_FALSE(run_and_judge(b, w).violated());
    }
  }
}

// The worker's stdout and stderr are not accucheck's: what a plugin prints is captured, escaped
// and shown, never mixed into accucheck's output (forged FINDING lines, broken JSON).
TEST(PluginLoader, PluginOutputIsCapturedNotPrinted) {
  Registry registry;
  PluginOptions options;
  options.isolation = PluginIsolation::fork_per_call;  // a worker forked while stdout is captured
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  load_plugin(test_plugin("print"), options, registry);
  const Backend* b = registry.find("test.variant");
  ASSERT_NE(b, nullptr);
  const auto outcome = run_and_judge(*b, random_dense(Format::f32, 2, 5, 3));
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "");
  EXPECT_FALSE(outcome.violated()) << outcome.failure;
  ASSERT_TRUE(b->captured_output);
  EXPECT_EQ(b->captured_output(), "'FINDING naive_f32: bound-exceeded\\n{\"not\": json\\ntest plugin: 5 steps\\n'");
  EXPECT_NE(plugin_warnings().back().find(
                "libtest_plugin_print.so wrote to its output while loading: 'test plugin: loaded\\n'"),
            std::string::npos)
      << plugin_warnings().back();
}

// A worker may grow its address space by at most memory_limit_bytes: a plugin that allocates
// 3 GiB under a 1 GiB limit fails as that backend's failure, saying it ran out of memory.
TEST(PluginLoader, MemoryLimitContainsAPluginThatAllocatesTooMuch) {
  Registry registry;
  PluginOptions options;
  options.memory_limit_bytes = std::uint64_t{1} << 30;
  options.timeout_seconds = 30;
  load_plugin(test_plugin("allocate"), options, registry);
  const Backend* b = registry.find("test.variant");
  EXPECT_FALSE(run_and_judge(*b, random_dense(Format::f32, 3, 3, 1)).violated()) << "small cases allocate nothing";
  const auto outcome = run_and_judge(*b, random_dense(Format::f32, 3, 10, 2));
  EXPECT_EQ(outcome.worst, Verdict::backend_failed);
  EXPECT_NE(outcome.failure.find("out of memory"), std::string::npos) << outcome.failure;
  EXPECT_FALSE(run_and_judge(*b, random_dense(Format::f32, 2, 3, 5)).violated()) << "a new worker after the failure";
}

// A campaign's deadline ends plugin calls: a hanging call returns at the deadline, not at its
// 30 s time-out, and as PluginDeadlineReached (not a backend failure); later calls end at once.
TEST(PluginLoader, TheDeadlineEndsCallsEarly) {
  Registry registry;
  PluginOptions options;
  options.timeout_seconds = 30;
  load_plugin(test_plugin("hang"), options, registry);
  const Backend* b = registry.find("test.variant");
  const auto start = std::chrono::steady_clock::now();
  {
    PluginCallDeadline deadline(start + std::chrono::milliseconds(500));
    EXPECT_FALSE(run_and_judge(*b, random_dense(Format::f32, 2, 3, 1)).violated()) << "before the deadline";
    EXPECT_THROW(run_and_judge(*b, random_dense(Format::f32, 2, 10, 1)), PluginDeadlineReached);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(waited, 0.45);
    EXPECT_LT(waited, 5);
    EXPECT_THROW(run_and_judge(*b, random_dense(Format::f32, 2, 3, 1)), PluginDeadlineReached);
  }
  EXPECT_FALSE(plugin_call_deadline().has_value());
  EXPECT_FALSE(run_and_judge(*b, random_dense(Format::f32, 2, 3, 1)).violated()) << "no deadline any more";
}

// ABI 4: product workloads (GEMM with beta = 1). The gemm_fma plugin computes what this test
// computes, one std::fma chain from C per element; gemm_drops_step loses the last step and is caught.
std::vector<float> fma_chain(const ProductWorkload& w) {
  std::vector<float> c(w.initial.begin(), w.initial.end());
  for (std::size_t m = 0; m < w.rows; ++m)
    for (std::size_t n = 0; n < w.cols; ++n)
      for (std::size_t t = 0; t < w.steps; ++t)
        for (std::size_t k = 0; k < w.batch; ++k)
          c[m * w.cols + n] =
              std::fma(static_cast<float>(w.a_at(t, m, k)), static_cast<float>(w.b_at(t, k, n)), c[m * w.cols + n]);
  return c;
}

TEST(PluginProducts, AnAbi4ProductBackendGetsRealOperandsAndIsJudged) {
  Registry registry;
  load_plugin(test_plugin("gemm_fma"), registry);
  const Backend* b = registry.find("product_test.gemm_f32");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->supports(WorkloadKind::product));
  EXPECT_FALSE(b->supports(WorkloadKind::dense));
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const ProductWorkload w = test::random_product(3, 5, 7, 4, seed, seed % 2 == 0);
    const auto computed = results_of(*b, w);
    const auto expected = fma_chain(w);
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_TRUE(same_bits(computed[i], expected[i])) << "seed " << seed << " element " << i;
    EXPECT_FALSE(run_and_judge(*b, w).violated()) << "seed " << seed;
  }
  // The generated product families, FP8 inputs among them, as a campaign gives them.
  SeededChoiceStream stream(7);
  for (int i = 0; i < 40; ++i) {
    const Workload w = generate(stream, Format::f32, GenerationLimits{}, WorkloadKind::product);
    if (!b->runs(w)) continue;
    EXPECT_FALSE(run_and_judge(*b, w).violated()) << "case " << i;
  }
}

TEST(PluginProducts, AProductBackendThatDropsAStepIsCaught) {
  Registry registry;
  load_plugin(test_plugin("gemm_drops_step"), registry);
  const Backend* b = registry.find("product_test.gemm_f32");
  ASSERT_NE(b, nullptr);
  const auto outcome = run_and_judge(*b, test::random_product(2, 2, 3, 3, 5, false));
  EXPECT_TRUE(outcome.violated());
  EXPECT_EQ(outcome.worst, Verdict::bound_exceeded);
}

// FP8 A and B reach a backend with ACCUCHECK_ACCEPTS_FP8_INPUTS as bytes that it decodes itself:
// its results equal the chain over the values (a backend given f32 values would read garbage).
TEST(PluginProducts, Fp8OperandsReachABackendThatAsksForThemAsBytes) {
  Registry registry;
  load_plugin(test_plugin("gemm_fp8_inputs"), registry);
  const Backend* b = registry.find("product_test.gemm_f32");
  ASSERT_NE(b, nullptr);
  for (Format fp8 : {Format::e4m3, Format::e5m2}) {
    ProductWorkload w = test::random_product(2, 3, 4, 2, 9, false);
    w.input_format = fp8;
    w.b_input_format = fp8 == Format::e4m3 ? std::optional<Format>(Format::e5m2) : std::nullopt;
    for (double& v : w.a) v = fp8_decode(static_cast<std::uint8_t>(std::llround(std::fabs(v) * 100)) & 0x7e, fp8);
    for (double& v : w.b)
      v = fp8_decode(static_cast<std::uint8_t>(std::llround(std::fabs(v) * 90)) & 0x6f, w.b_inputs());
    ASSERT_EQ(w.validate(), "");
    const auto computed = results_of(*b, w);
    const auto expected = fma_chain(w);
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_TRUE(same_bits(computed[i], expected[i])) << name(fp8) << " " << i;
  }
}

// A plugin built against version 3's header: two entries of version 3's size, no product field.
// Read with version 4's size, the second entry would be garbage.
TEST(PluginProducts, AVersion3PluginOfTwoBackendsLoadsAsBefore) {
  Registry registry;
  const auto names = load_plugin(test_plugin("abi3"), registry);
  ASSERT_EQ(names, (std::vector<std::string>{"product_test.v3_first", "product_test.v3_second"}));
  for (const auto& n : names) {
    const Backend* b = registry.find(n);
    EXPECT_FALSE(b->supports(WorkloadKind::product));
    EXPECT_FALSE(run_and_judge(*b, random_dense(Format::f32, 3, 5, 2)).violated());
  }
}

}  // namespace
}  // namespace accucheck
