#include "harness.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "checking/judge.h"
#include "checking/shrink.h"
#include "engine/findings.h"
#include "io/case_file.h"
#include "plugins/plugin_loader.h"

namespace accucheck::props {

namespace {

constexpr int kBytesPerSize = 8;

std::size_t environment_count(const char* variable, std::size_t fallback) {
  const char* text = std::getenv(variable);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || value == 0) {
    std::fprintf(stderr, "%s='%s' is not a positive integer; using %zu\n", variable, text, fallback);
    return fallback;
  }
  return static_cast<std::size_t>(value);
}

}  // namespace

HarnessOptions options_from_environment() {
  HarnessOptions o;
  o.limits.max_long_steps = environment_count("ACCUCHECK_MAX_LONG_STEPS", o.limits.max_long_steps);
  // A third of the suite's cases in boundary shapes (campaigns: 1 in 32), at most 2^16 values
  // each, every scale equally likely: 200 cases per property reach the element-boundary mutants,
  // and the ASan run stays short.
  o.limits.wide_one_in = environment_count("ACCUCHECK_WIDE_ONE_IN", 3);
  o.limits.max_wide_values = std::size_t{1} << 16;
  o.limits.wide_scale_draws = 1;  // scales up to 2^16 equally likely: D >= 1024 in a third of them
  const char* findings = std::getenv("ACCUCHECK_FINDINGS");
  o.findings_dir = findings && *findings ? findings : "findings";
  return o;
}

rc::Gen<std::vector<std::uint8_t>> choice_bytes() {
  return rc::gen::withSize([](int size) {
    return rc::gen::resize(size * kBytesPerSize, rc::gen::container<std::vector<std::uint8_t>>(rc::gen::resize(
                                                     rc::kNominalSize, rc::gen::arbitrary<std::uint8_t>())));
  });
}

std::uint64_t rapidcheck_seed() { return rc::detail::configuration().testParams.seed; }

PropertyRun run_property(const Backend& backend, Property property, WorkloadKind kind, const HarnessOptions& options) {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  if (options.max_success > 0) params.maxSuccess = options.max_success;
  if (!options.rapidcheck_shrink) params.disableShrinking = true;

  int calls = 0, first_failure = 0;
  std::optional<Workload> last;
  std::optional<Finding> last_failure;
  std::vector<std::uint8_t> last_bytes;
  const auto bytes_gen = choice_bytes();
  // The finding pipeline with this one property; the verdicts stand on the fast exact
  // accumulator, so the Boost reference checks it on every case first.
  FindingPolicy policy;
  policy.only = property;
  policy.cross_check_oracle = true;
  const auto failure_of = [&](const Workload& w) -> std::optional<Finding> {
    Judgement j = find_violations(backend, w, exact_sums(w), policy);
    if (!j.violated()) return std::nullopt;
    return std::move(j.findings.front());
  };
  auto check = [&] {
    const std::vector<std::uint8_t> bytes = *bytes_gen;
    ++calls;
    ByteChoiceStream stream(bytes);
    Workload w = generate_for_property(property, backend, kind, stream, options.limits, options.family);
    std::optional<Finding> found;
    if (const std::string problem = validate(w); !problem.empty()) {
      found = Finding{
          property, Verdict::ok, "invalid-workload", "the generator made an invalid workload: " + problem, {}, {}, {}};
    } else {
      found = failure_of(w);
    }
    if (found) {
      if (!first_failure) first_failure = calls;
      last = std::move(w);
      last_failure = found;
      last_bytes = bytes;
      RC_FAIL(found->label + "\n" + found->detail);
    }
  };

  rc::detail::TestMetadata metadata;
  metadata.id = std::string(name(property)) + "/" + backend.name + "/" + std::string(name(kind));
  metadata.description = metadata.id;
  const rc::detail::TestResult result = rc::detail::checkProperty(rc::detail::toProperty(check), metadata, params);

  PropertyRun run;
  if (result.template is<rc::detail::SuccessResult>()) {
    run.cases = result.template get<rc::detail::SuccessResult>().numSuccess;
    return run;
  }
  run.passed = false;
  run.cases = first_failure ? first_failure : calls;
  if (!last || !last_failure) {
    std::ostringstream rapidcheck_text;
    rc::detail::printResultMessage(result, rapidcheck_text);
    run.message = "RapidCheck did not pass " + metadata.id + ":\n" + rapidcheck_text.str();
    return run;
  }

  // Shrink further: fewest elements and steps, simplest values, the same kind of failure.
  Workload minimal = *last;
  if (last_failure->label != "invalid-workload")
    minimal = minimize_finding(backend, *last, *last_failure, options.shrink_budget, /*cross_check_oracle=*/true);
  auto final_failure = failure_of(minimal);
  if (!final_failure) {  // cannot happen for a deterministic check; keep RapidCheck's case then
    minimal = *last;
    final_failure = last_failure;
  }
  run.failure = final_failure;
  run.minimal = minimal;

  std::string text = "property " + std::string(name(property)) + " failed for backend " + backend.name + " on " +
                     std::string(name(kind)) + " workloads after " + std::to_string(run.cases) +
                     " case(s) (RC_PARAMS=\"seed=" + std::to_string(rapidcheck_seed()) + "\")\n" +
                     "minimal case: " + final_failure->detail;
  if (options.write_finding) {
    const std::string found_by = "property " + std::string(name(property)) +
                                 " (RC_PARAMS=\"seed=" + std::to_string(rapidcheck_seed()) + "\"), case " +
                                 std::to_string(run.cases);
    try {
      run.case_path =
          write_finding(options.findings_dir, backend, *final_failure, minimal, Provenance{found_by, std::nullopt});
      text += "written to " + run.case_path + "\n";
      if (options.registered) {
        text += "replay: accucheck replay " + run.case_path + "\n";
      } else {
        text += "replay: " + backend.name +
                " is a planted mutant (not in the CLI's registry): read_case_file + check_property, as "
                "properties/mutants_test.cpp does\n";
      }
    } catch (const std::exception& e) {
      text += std::string("could not write the case file: ") + e.what() + "\n";
    }
  }
  // RapidCheck's minimal counterexample: the choice bytes (ByteChoiceStream) of the last
  // failing case, before shrink_workload.
  std::string hex;
  for (std::size_t i = 0; i < last_bytes.size() && i < 256; ++i) {
    char byte[4];
    std::snprintf(byte, sizeof byte, "%02x", last_bytes[i]);
    hex += byte;
  }
  if (last_bytes.size() > 256) hex += "...";
  const int shrinks =
      result.template is<rc::detail::FailureResult>()
          ? static_cast<int>(result.template get<rc::detail::FailureResult>().reproduce.shrinkPath.size())
          : 0;
  text += "RapidCheck: falsifiable after " + std::to_string(run.cases) + " case(s) and " + std::to_string(shrinks) +
          " shrink(s); choice bytes [" + hex + "] (" + describe_shape(*last) + ")\n";
  run.message = text;
  return run;
}

// Plugins named by ACCUCHECK_PLUGINS join the registry before the suite lists its backends
// (gtest evaluates the parameter generators in InitGoogleTest, after static registration), so
// a plugin's backends get every property without a line of test code. A bad plugin stops the
// suite with the loader's message (file and field), exit 2.
static void load_environment_plugins() {
  try {
    load_plugins_from_environment();
  } catch (const PluginError& e) {
    std::fprintf(stderr, "property suite: %s\n", e.what());
    std::exit(2);
  }
  static const bool warned = [] {
    for (const auto& warning : plugin_warnings())
      std::fprintf(stderr, "property suite: warning: %s\n", warning.c_str());
    return true;
  }();
  (void)warned;
}

std::vector<std::string> registered_backends_where(Property p) {
  load_environment_plugins();
  std::vector<std::string> names;
  for (const Backend& b : Registry::global().all())
    if (property_applies(p, b)) names.push_back(b.name);
  return names;
}

std::string parameter_name(const std::string& backend) {
  std::string out;
  for (char c : backend) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return out;
}

}  // namespace accucheck::props
