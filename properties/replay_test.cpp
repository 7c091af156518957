// Case files round-trip for every workload kind the generators make, and the CLI replays a
// case file written by the property harness: exit 0 when the backend passes, 2 for a file it
// cannot read. (A failing replay through the CLI needs a failing registered backend, which
// the product does not ship; mutants_test.cpp replays mutant findings through read_case_file
// and check_property instead.)
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "checking/judge.h"
#include "harness.h"
#include "io/case_file.h"

namespace accucheck::props {
namespace {

// Every generated workload (any family, kind and format, special values included) survives
// case_to_json -> parse_case bit for bit, zero signs and NaNs included.
RC_GTEST_PROP(CaseFile, RoundTripsEveryGeneratedWorkload, ()) {
  const auto bytes = *choice_bytes();
  ByteChoiceStream s(bytes);
  const auto kind = static_cast<WorkloadKind>(s.draw(2));
  Format f = all_formats[s.draw(3)];
  if (kind == WorkloadKind::product && f == Format::f64) f = Format::f32;  // f64 products are not supported
  GenerationLimits limits;
  limits.max_long_steps = 300;  // keep the JSON small
  const Workload w = generate(s, f, limits, kind);
  RC_ASSERT(validate(w) == "");
  CaseFile c;
  c.workload = w;
  c.backend = "naive_f32";
  c.seed = s.seed();
  const CaseFile back = parse_case(case_to_json(c), "generated");
  RC_ASSERT(w == back.workload);
  RC_ASSERT(back.seed == c.seed);
}

// The accucheck binary of this build (a compile definition set in CMakeLists.txt; the
// environment variable ACCUCHECK_CLI overrides it).
std::string cli() {
  if (const char* path = std::getenv("ACCUCHECK_CLI"); path && *path) return path;
#ifdef ACCUCHECK_CLI_PATH
  return ACCUCHECK_CLI_PATH;
#else
  return "";
#endif
}

int run_cli(const std::string& arguments) {
  const int status = std::system((cli() + " " + arguments + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(cli().empty()) << "no accucheck binary: set ACCUCHECK_CLI";
    directory_ = std::filesystem::temp_directory_path() / ("accucheck_replay_" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override {
    if (!directory_.empty()) std::filesystem::remove_all(directory_);
  }
  std::filesystem::path directory_;
};

// A case written by the harness for a registered backend that passes replays with exit 0:
// generated workloads of naive_f32 (the special-value family too), written through
// write_finding exactly as a failure would be.
TEST_F(Cli, ReplayPassingCaseExitsZero) {
  const Backend* naive = Registry::global().find("naive_f32");
  ASSERT_NE(naive, nullptr);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SeededChoiceStream s(seed);
    const Workload w = generate_for_property(seed == 3 ? Property::special_values : Property::stated_bound, *naive,
                                             WorkloadKind::dense, s, GenerationLimits{});
    ASSERT_FALSE(check_property(Property::stated_bound, *naive, w).has_value());
    Finding label{Property::stated_bound, Verdict::ok, "ok", "a passing case, written to test replay", {}, {}, {}};
    const std::string path =
        write_finding(directory_.string(), *naive, label, w, Provenance{"replay_test", std::nullopt});
    EXPECT_EQ(run_cli("replay " + path), 0) << path;
    EXPECT_EQ(run_cli("replay --json " + path), 0) << path;
  }
}

TEST_F(Cli, ReplayUnreadableCaseExitsTwo) {
  const auto path = directory_ / "broken.json";
  std::ofstream(path)
      << "{\"accucheck_case\": 1, \"workload\": \"dense\", \"format\": \"f32\", \"elements\": 1, \"steps\": 1,"
         " \"initial\": [\"0x1p-200\"], \"addends\": [[\"1\"]]}";
  EXPECT_EQ(run_cli("replay " + path.string()), 2);  // 2^-200 is not an f32 value
  EXPECT_EQ(run_cli("replay " + (directory_ / "missing.json").string()), 2);
}

// `accucheck compare`: the adversarial families reach the recursive bound on naive f32 at
// n = 100 (error/bound >= 0.9) where uniform floats in [-1, 1] stay far below it.
TEST_F(Cli, CompareAdversarialReachesTheBound) {
  const std::string out = (directory_ / "compare.txt").string();
  ASSERT_EQ(std::system((cli() + " compare --backend naive_f32 --n 100 --cases 60 > " + out + " 2>&1").c_str()), 0);
  std::ifstream in(out);
  std::string line;
  bool found = false;
  while (std::getline(in, line)) {
    if (line.rfind("naive_f32", 0) != 0) continue;
    std::istringstream fields(line);
    std::string backend, bound, n, adversarial, family, uniform;
    fields >> backend >> bound >> n >> adversarial >> family >> uniform;
    EXPECT_EQ(n, "100");
    EXPECT_GE(std::stod(adversarial), 0.9) << line;
    EXPECT_LT(std::stod(uniform), 0.5) << line;
    found = true;
  }
  EXPECT_TRUE(found) << "no naive_f32 line in " << out;
}

}  // namespace
}  // namespace accucheck::props
