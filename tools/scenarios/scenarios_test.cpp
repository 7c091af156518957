// Each scenario's story, asserted on its verdicts and figures (not on its printed text):
//   - mxnet-16686-cpu reproduces the incident report's figures to every digit given (numbers
//     from the report, INCIDENTS.md), both paths within their bound, the biases bit-identical,
//     and `--dump` writes the four gradient tensors as float32 .npy of the weights' shapes;
//   - the other scenarios: who is within its bound, who is vacuous, who exceeds it, and the
//     values that hand arithmetic gives (stagnation at 256 / 2048 / 32);
//   - every scenario runs in under 10 seconds, and the CLI lists seven.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "io/json.h"
#include "io/json_parse.h"
#include "io/npy.h"
#include "scenarios.h"

namespace accucheck::scenarios {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

const ScenarioResult& result(const char* name) {
  static std::map<std::string, ScenarioResult> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    const Scenario* s = find(name);
    if (!s) throw std::runtime_error(std::string("no scenario ") + name);
    it = cache.emplace(name, run(*s)).first;
    std::printf("%s", to_text(it->second).c_str());
  }
  return it->second;
}

// Every element of the path has verdict v.
void expect_all(const PathResult& p, Verdict v) {
  EXPECT_EQ(p.count(v), p.values.size()) << p.path << " " << p.tensor << " (" << p.backend
                                         << "): expected every element " << name(v) << ", worst is "
                                         << name(p.outcome.worst);
}

// |x - reported| within half a unit of the last digit the report gives.
void expect_digits(double x, double reported, double half_unit, const char* what) {
  EXPECT_LE(std::fabs(x - reported), half_unit) << what << ": " << x << " vs reported " << reported;
}

TEST(Scenarios, EightAreListedAndEachRunsInUnderTenSeconds) {
  EXPECT_EQ(all().size(), 8u);
  for (const char* name : {"mxnet-16686-cpu", "mxnet-16686-embedding", "mxnet-17995", "mxnet-17703", "bf16-stagnation",
                           "bf16-long-accumulation", "fp8-gemm-accumulation", "fsdp-bf16-reduce"}) {
    const ScenarioResult& r = result(name);
    EXPECT_EQ(r.name, name);
    EXPECT_FALSE(r.story.empty());
    EXPECT_FALSE(r.provenance.empty());
    if (!kSanitized) {
      EXPECT_LT(r.seconds, 10.0) << name;
    }
  }
}

// The CLI: --list names eight, --json parses and carries the verdicts, bad usage exits 2.
std::string capture(const std::string& arguments, int* status) {
  const std::string command = std::string(ACCUCHECK_CLI_PATH) + " " + arguments + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string out;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe.get())) out.append(buffer, n);
  *status = WEXITSTATUS(pclose(pipe.release()));
  return out;
}

TEST(ScenarioCli, ListJsonAndBadUsage) {
  int status = -1;
  const std::string list = capture("scenario --list", &status);
  EXPECT_EQ(status, 0);
  int lines = 0;
  for (char c : list) lines += c == '\n';
  EXPECT_EQ(lines, 8) << list;
  for (const auto& s : all()) EXPECT_NE(list.find(std::string(s.name)), std::string::npos) << s.name;

  const std::string json = capture("scenario mxnet-17703 --json", &status);
  EXPECT_EQ(status, 0);
  const JsonParseResult parsed = parse_json(json);
  ASSERT_TRUE(parsed.ok()) << parsed.error << "\n" << json;
  ASSERT_NE(parsed.value.find("paths"), nullptr);
  bool vacuous = false;
  for (const JsonValue& p : parsed.value.find("paths")->items)
    if (p.find("path")->text == "fp16_accumulation") vacuous = p.find("worst")->text == "bound-vacuous";
  EXPECT_TRUE(vacuous) << json;

  for (const char* bad :
       {"scenario", "scenario no-such-incident", "scenario mxnet-17703 mxnet-17995", "scenario --list mxnet-17703",
        "scenario mxnet-17703 --dump /dev/null", "scenario mxnet-17703 --bogus"}) {
    const std::string out = capture(bad, &status);
    EXPECT_EQ(status, 2) << bad << ": " << out;
    EXPECT_NE(out.find("accucheck scenario:"), std::string::npos) << bad << ": " << out;
  }
}

// ---- mxnet-16686-cpu -----------------------------------------------------------------------

TEST(Mxnet16686Cpu, ReproducesTheReportedFigures) {
  const ScenarioResult& r = result("mxnet-16686-cpu");
  // INCIDENTS.md: dense1_weight rtol 11.1050821841 %, atol 1.31473879093e-14; dense0_weight rtol
  // 100 %, atol 1.42072226379e-14 (max over elements of |manual - add| / |add|, max |manual - add|).
  const Divergence& w1 = r.divergence("dense1_weight", "add", "manual");
  const Divergence& w0 = r.divergence("dense0_weight", "add", "manual");
  expect_digits(100 * w1.max_relative, 11.1050821841, 0.5e-10, "dense1_weight rtol %");
  expect_digits(w1.max_absolute, 1.31473879093e-14, 0.5e-25, "dense1_weight atol");
  EXPECT_EQ(100 * w0.max_relative, 100.0) << "dense0_weight rtol: manual exactly 0 where add is not";
  expect_digits(w0.max_absolute, 1.42072226379e-14, 0.5e-25, "dense0_weight atol");
  EXPECT_GT(w0.only_b_zero, 0u) << "elements where manual is exactly 0";
  EXPECT_EQ(w0.only_a_zero, 0u) << "elements where add is exactly 0 and manual is not";
  // The report's description of the reproduction.
  EXPECT_EQ(r.figure("hidden_active"), 445);
  EXPECT_LE(r.figure("hidden_max"), 7.6e-7);
  EXPECT_GE(r.figure("hidden_max"), 7.4e-7);
  EXPECT_GE(r.figure("dense1_weight.kappa_max"), 1e6) << "kappa about 5e6";
  EXPECT_LE(r.figure("dense1_weight.kappa_max"), 1e7) << "kappa about 5e6";
}

TEST(Mxnet16686Cpu, BothPathsWithinTheirBoundBiasesIdentical) {
  const ScenarioResult& r = result("mxnet-16686-cpu");
  for (const char* tensor : {"dense0_weight", "dense0_bias", "dense1_weight", "dense1_bias"}) {
    expect_all(r.path("add", tensor), Verdict::ok);
    expect_all(r.path("manual", tensor), Verdict::ok);
    EXPECT_EQ(r.path("add", tensor).bound, "products(f32)");
  }
  EXPECT_EQ(r.divergence("dense0_bias", "add", "manual").differing, 0u)
      << "bias gradients are bit-identical in both paths";
  EXPECT_EQ(r.divergence("dense1_bias", "add", "manual").differing, 0u)
      << "bias gradients are bit-identical in both paths";
  // Against the exact sum both paths are off by a large fraction somewhere: neither is right.
  for (const char* path : {"add", "manual"}) {
    double worst = 0;
    for (const auto& e : r.path(path, "dense1_weight").outcome.elements)
      worst = std::max(worst, e.error / std::fabs(e.exact));
    EXPECT_GT(worst, 0.05) << path;
  }
}

std::filesystem::path temporary_directory(const char* tag) {
  auto dir = std::filesystem::temp_directory_path() /
             ("accucheck_scenario_" + std::string(tag) + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(Mxnet16686Cpu, DumpWritesTheFourTensorsAsFloat32Npy) {
  const auto dir = temporary_directory("dump");
  const std::string command =
      std::string(ACCUCHECK_CLI_PATH) + " scenario mxnet-16686-cpu --dump " + dir.string() + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const ScenarioResult& r = result("mxnet-16686-cpu");
  const std::vector<std::size_t> w0_shape = {1000, 10}, w1_shape = {2, 1000};
  std::vector<double> arrays[2][2];  // [path][tensor]
  int path_index = 0;
  for (const char* path : {"add", "manual"}) {
    int tensor_index = 0;
    for (const auto& [tensor, shape] : {std::pair{"dense0_weight", w0_shape}, std::pair{"dense1_weight", w1_shape}}) {
      const auto file = dir / (std::string(path) + "_" + tensor + ".npy");
      ASSERT_TRUE(std::filesystem::exists(file)) << file;
      const NpyArray a = read_npy(file.string());
      EXPECT_EQ(a.dtype, NpyDtype::f32) << file;
      EXPECT_EQ(a.shape, shape) << file;
      const auto values = a.floats();
      const auto& expected = r.path(path, tensor).values;
      ASSERT_EQ(values.size(), expected.size());
      for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(values[i], expected[i]) << file << " element " << i;
      arrays[path_index][tensor_index++] = values;
    }
    ++path_index;
  }
  // The reporter's evaluation, redone from the files alone (float32 arithmetic, as numpy).
  float rtol = 0;
  for (std::size_t i = 0; i < arrays[0][1].size(); ++i) {
    const float add = static_cast<float>(arrays[0][1][i]), manual = static_cast<float>(arrays[1][1][i]);
    if (add != 0) rtol = std::max(rtol, std::fabs(manual - add) / std::fabs(add));
  }
  expect_digits(100.0 * rtol, 11.1050821841, 0.5e-10, "dense1_weight rtol % from the dumped files");
  std::filesystem::remove_all(dir);
}

// ---- mxnet-16686-embedding -------------------------------------------------------------------

TEST(Mxnet16686Embedding, BothOrdersWithinBoundTheyDisagree) {
  const ScenarioResult& r = result("mxnet-16686-embedding");
  for (const char* tensor : {"embedding0_weight@16", "embedding0_weight@32"}) {
    for (const char* path : {"add", "manual", "atomic"}) expect_all(r.path(path, tensor), Verdict::ok);
    const Divergence& d = r.divergence(tensor, "add", "manual");
    EXPECT_GT(d.differing, d.elements / 10) << tensor << ": the orders should disagree in many elements";
    // The report's 0.65 %: a relative difference of a fraction of a percent, far above u.
    EXPECT_GT(d.max_relative, 1e-4) << tensor;
    EXPECT_LT(d.max_relative, 1e-1) << tensor;
    EXPECT_LE(r.figure(std::string(tensor) + ".most_hits"), 7.0 * 32 + 28 * 32);
  }
}

// ---- mxnet-17995 ------------------------------------------------------------------------------

TEST(Mxnet17995, DoubleCountingFlaggedFromFiveInputsOn) {
  const ScenarioResult& r = result("mxnet-17995");
  for (int m = 2; m <= 8; ++m) {
    const std::string tensor = "bias_grad@" + std::to_string(m) + "_inputs";
    expect_all(r.path("fixed", tensor), Verdict::ok);
    if (m <= 4) {
      expect_all(r.path("mxnet-1.6", tensor), Verdict::ok);
      EXPECT_EQ(r.divergence(tensor, "fixed", "mxnet-1.6").differing, 0u) << m;
    } else {
      expect_all(r.path("mxnet-1.6", tensor), Verdict::bound_exceeded);
      // Hand arithmetic: from the third input on, out = out + (out + in) at least doubles a
      // positive running sum: element 0 (exact 19.947) reads more than twice its value.
      EXPECT_GT(r.figure(tensor + ".read"), 2 * 19.947) << m;
    }
  }
}

// ---- mxnet-17703 ------------------------------------------------------------------------------

TEST(Mxnet17703, Fp16StopsAt32Fp32GivesAbout126) {
  const ScenarioResult& r = result("mxnet-17703");
  const PathResult& f16 = r.path("fp16_accumulation", "embedding_grad");
  const PathResult& f32 = r.path("fp32_accumulation", "embedding_grad");
  for (double x : f16.values) EXPECT_EQ(x, 32.0) << "hand arithmetic: 32 + fp16(0.01) rounds back to 32";
  expect_all(f16, Verdict::bound_vacuous);
  expect_all(f32, Verdict::ok);
  for (double x : f32.values) {
    EXPECT_GT(x, 120.0) << "about 126 (12500 x 0.01)";
    EXPECT_LT(x, 130.0) << "about 126 (12500 x 0.01)";
  }
}

// ---- bf16-stagnation --------------------------------------------------------------------------

TEST(Bf16Stagnation, HandArithmetic) {
  const ScenarioResult& r = result("bf16-stagnation");
  // 256 + 1 is a tie between 256 and 258 in bf16, 2048 + 1 one between 2048 and 2050 in f16.
  EXPECT_EQ(r.path("bf16", "bf16_from_0_x1000").values[0], 256.0);
  expect_all(r.path("bf16", "bf16_from_0_x1000"), Verdict::bound_vacuous);  // 1001 addends: (n-1) u >= 1
  EXPECT_EQ(r.path("bf16", "bf16_from_256_x100").values[0], 256.0);
  expect_all(r.path("bf16", "bf16_from_256_x100"), Verdict::ok);  // error 100 <= 100/256 * 356
  EXPECT_EQ(r.path("f16", "f16_from_0_x3000").values[0], 2048.0);
  expect_all(r.path("f16", "f16_from_0_x3000"), Verdict::bound_vacuous);
  EXPECT_EQ(r.path("f32_acc", "bf16_from_0_x1000").values[0], 1000.0);
  EXPECT_EQ(r.path("f32_master", "bf16_from_0_x1000").values[0], 1000.0);
  EXPECT_EQ(r.path("f32_acc", "bf16_from_256_x100").values[0], 356.0);
  EXPECT_EQ(r.path("f32_acc", "f16_from_0_x3000").values[0], 3000.0);
  for (const auto& p : r.paths) EXPECT_FALSE(p.outcome.violated()) << p.path << " " << p.tensor;
}

// ---- bf16-long-accumulation -------------------------------------------------------------------

TEST(Bf16LongAccumulation, Bf16StallsF32Holds) {
  const ScenarioResult& r = result("bf16-long-accumulation");
  for (const char* tensor : {"grad@10000", "grad@100000", "grad@1000000"}) {
    expect_all(r.path("bf16", tensor), Verdict::bound_vacuous);
    expect_all(r.path("kahan_bf16", tensor), Verdict::bound_vacuous);
    expect_all(r.path("f32_acc", tensor), Verdict::ok);
    expect_all(r.path("f32", tensor), Verdict::ok);
    EXPECT_FALSE(r.path("sr_bf16", tensor).outcome.violated()) << tensor;
    const std::string t(tensor);
    EXPECT_GT(r.figure(t + ".bf16.relative_error"), 0.5) << tensor << ": bf16 stalls";
    EXPECT_LT(r.figure(t + ".sr_bf16.relative_error"), r.figure(t + ".bf16.relative_error")) << tensor;
    EXPECT_LT(r.figure(t + ".f32.relative_error"), 1e-3) << tensor;
  }
  EXPECT_LT(r.figure("grad@100000.kahan_bf16.relative_error"), 0.01) << "Kahan holds at 10^5 steps";
}

// ---- fp8-gemm-accumulation ----------------------------------------------------------------------

TEST(Fp8GemmAccumulation, WindowErrsByTenthsOfAPercentPromotionStaysWithinItsBound) {
  const ScenarioResult& r = result("fp8-gemm-accumulation");
  for (const char* tensor : {"random", "layer"}) {
    SCOPED_TRACE(tensor);
    // K = 4096 is past fused(32,14,f32)'s 3,968 addends: undefined, hence vacuous; every promoted
    // chain is within its bound, as is the FP32 sum.
    expect_all(r.path("tc_no_promotion", tensor), Verdict::bound_vacuous);
    for (const char* path : {"tc_nc512", "tc_nc128", "tc_nc32", "fp32"}) expect_all(r.path(path, tensor), Verdict::ok);
    // Shorter chains, smaller errors: the window's loss grows with the chain's length.
    auto normwise = [&](const char* path) { return r.figure(std::string(tensor) + "." + path + ".normwise_error"); };
    EXPECT_GT(normwise("tc_no_promotion"), normwise("tc_nc512"));
    EXPECT_GT(normwise("tc_nc512"), normwise("tc_nc128"));
    EXPECT_GT(normwise("tc_nc128"), normwise("tc_nc32"));
    EXPECT_GT(normwise("tc_nc32"), 100 * normwise("fp32"));
    // The window without promotion: tenths of a percent of the largest output (2^-13 relative per
    // step beside the accumulator, times the 128 steps' random walk), far above FP32's 2^-24 A.
    EXPECT_GT(normwise("tc_no_promotion"), 5e-4);
    EXPECT_LT(normwise("tc_no_promotion"), 1e-2);
  }
  // Hopper's arithmetic per the simulators (sums truncated to 14 bits): K = 4096 is past its bound's
  // 3,744 addends too; its outputs differ from the nearest-rounding model's in a few elements,
  // slightly (the truncation matters only where a sum carries into the next binade).
  for (const char* tensor : {"random", "layer"}) {
    expect_all(r.path("tc_h100_truncating", tensor), Verdict::bound_vacuous);
    const Divergence& d = r.divergence(tensor, "tc_no_promotion", "tc_h100_truncating");
    EXPECT_GT(d.differing, 0u) << tensor;
    EXPECT_LT(d.differing, d.elements / 4) << tensor;
    EXPECT_LT(d.max_relative, 1e-3) << tensor;
  }
  // DeepSeek-V3's promotion on Hopper's arithmetic: every output within fused_promoted(32,14,128,14,f32),
  // and the error a fraction of the unpromoted chain's.
  for (const char* tensor : {"random", "layer"}) {
    expect_all(r.path("tc_h100_nc128", tensor), Verdict::ok);
    const std::string t(tensor);
    EXPECT_LT(r.figure(t + ".tc_h100_nc128.normwise_error"), r.figure(t + ".tc_no_promotion.normwise_error") / 4)
        << tensor;
  }
  // The report's "maximum relative error of nearly 2 %": the largest elementwise relative error
  // of the unpromoted chain on random matrices is of that order.
  EXPECT_GT(r.figure("random.tc_no_promotion.max_relative_error"), 2e-3);
  EXPECT_LT(r.figure("random.tc_no_promotion.max_relative_error"), 2e-1);
}

// ---- fsdp-bf16-reduce ---------------------------------------------------------------------------

TEST(FsdpBf16Reduce, Bf16RingErrorGrowsWithRanksFp32AccumulationStaysAtOneRounding) {
  const ScenarioResult& r = result("fsdp-bf16-reduce");
  auto figure = [&](std::size_t ranks, const char* path, const char* what) {
    return r.figure("P=" + std::to_string(ranks) + "." + path + "." + what);
  };
  for (std::size_t ranks : {8u, 48u, 96u, 192u, 384u}) {
    SCOPED_TRACE(ranks);
    // Within every bound, except the bf16 ring's at 384 ranks: (P - 1) u_bf16 = 383/256 > 1, the
    // bound is at least sum |x| and promises nothing.
    for (const char* path : {"ring_bf16", "tree_bf16", "ring_fp32", "tree_fp32"})
      expect_all(r.path(path, "P=" + std::to_string(ranks)),
                 ranks == 384 && std::string(path) == "ring_bf16" ? Verdict::bound_vacuous : Verdict::ok);
    // f32 accumulation: the sum of at most 384 bf16 values is nearly exact in f32, then one bf16
    // rounding: at most u_bf16 = 2^-8 of the largest value, plus f32's share.
    EXPECT_LE(figure(ranks, "ring_fp32", "normwise_error"), 0x1p-8 * (1 + 0x1p-10));
    EXPECT_LE(figure(ranks, "tree_fp32", "normwise_error"), 0x1p-8 * (1 + 0x1p-10));
  }
  // In bf16 the ring's error grows with P, past the tree's (h ~ 2 log2 P against P - 1 roundings)
  // and far past one rounding; so does its bound.
  EXPECT_GT(figure(384, "ring_bf16", "normwise_error"), 2 * figure(8, "ring_bf16", "normwise_error"));
  EXPECT_GT(figure(384, "ring_bf16", "normwise_error"), figure(384, "tree_bf16", "normwise_error"));
  EXPECT_GT(figure(384, "ring_bf16", "normwise_error"), 4 * figure(384, "ring_fp32", "normwise_error"));
  EXPECT_GT(figure(384, "ring_bf16", "normwise_bound"), 10 * figure(8, "ring_bf16", "normwise_bound"));
  EXPECT_LT(figure(384, "tree_bf16", "normwise_bound"), figure(384, "ring_bf16", "normwise_bound") / 4);
  EXPECT_GT(r.divergence("P=384", "ring_fp32", "ring_bf16").differing, 1024u);
}

}  // namespace
}  // namespace accucheck::scenarios
