// accucheck check: a campaign of generated adversarial workloads against the selected backends.
//
// Every case is generated from (seed, format, case number), run on every selected backend of
// that storage format and judged element by element; determinism is re-checked on a sample.
// A violation is shrunk and written at once (atomically) as a case file under --findings, so
// a campaign killed at any moment keeps what it found.
#include <algorithm>
#include <cstdio>
#include <random>

#include "accucheck/campaign.h"
#include "accucheck/case_file.h"
#include "accucheck/families.h"
#include "accucheck/plugin_loader.h"
#include "campaign_output.h"
#include "cli.h"

namespace accucheck::cli {
namespace {

// A family name that generate() knows ("unknown family 'nope' (mixed_magnitudes, ...)").
void check_family(const std::string& family) {
  if (find_family(family)) return;
  std::string known;
  for (const auto& f : families()) known += (known.empty() ? "" : ", ") + std::string(f.name);
  throw UsageError("unknown family '" + family + "' (" + known + ")");
}

// The largest dense case the limits allow, D x (T + 1) values, must fit in a case file, so that
// every finding can be written; checked here, before anything is allocated.
void check_case_size(const GenerationLimits& l) {
  const std::uint64_t steps = std::max(l.max_steps, l.max_long_steps);
  if (steps < kMaxCaseValues && l.max_elements <= kMaxCaseValues / (steps + 1)) return;
  const char* steps_option = l.max_steps >= l.max_long_steps ? "--max-steps " : "--max-long-steps ";
  throw UsageError("--max-elements " + std::to_string(l.max_elements) + " x (" + steps_option + std::to_string(steps) +
                   " + 1) values per case exceed the " + kMaxCaseValuesText + " values a case may hold");
}

}  // namespace

int check_command(CommandLine& cl) {
  CampaignOptions options;
  std::optional<double> minutes;
  std::optional<std::uint64_t> seed;
  BackendSources plugins;
  std::optional<std::string> json_path, junit_path, html_path;
  cl.repeatable("--backend", options.backend_globs, "GLOB", "run the backends whose names match (default: every backend)");
  cl.format("--format", options.format, "only the backends that store this format (f64, f32, f16, bf16)");
  cl.repeatable_option("--family", "NAME", "only these generator families (default: all)", [&](const std::string& family) {
    check_family(family);
    options.families.push_back(family);
  });
  CLI::Option* minutes_option = cl.option("--minutes", "M", "run for M minutes, plugin time included (default 1)",
                                          [&](const std::string& text) { minutes = parse_minutes(text); });
  cl.exclusive(minutes_option, cl.count("--cases", options.cases, "N", "run N cases per format x workload stream instead", 1));
  cl.count("--seed", seed, "S", "the seed, 0 to 2^64-1 (default: a random one, printed)");
  cl.plugins(plugins);
  cl.output_directory("--findings", options.findings_dir, "write the minimized findings here (default findings)");
  cl.output_file("--json", json_path, "write the results as JSON");
  cl.output_file("--junit", junit_path, "write JUnit XML: one testcase per backend x format");
  cl.output_file("--html", html_path, "write the HTML report");
  cl.count("--max-steps", options.limits.max_steps, "N", "at most N steps per case", 1);
  cl.count("--max-long-steps", options.limits.max_long_steps, "N", "at most N steps per long-chain case", 1);
  cl.count("--max-elements", options.limits.max_elements, "N", "at most N elements per case", 1);
  cl.count("--max-wide-elements", options.limits.max_wide_elements, "N",
           "boundary shapes: at most N elements in a widened dense case (default 131072; 0: no widened cases)");
  cl.flag("--fail-fast", options.stop_at_first_violation, "stop after the case with the first violation");
  cl.flag("--maximize", options.maximize,
          "climb toward each backend's bound: mutate its worst case between generated cases; report when 0.9 and 0.99 of "
          "the bound were reached, write the worst case to <findings>/worst/");
  cl.flag("--quiet", options.quiet, "no progress line");
  if (!cl.parse()) return kExitOk;
  check_case_size(options.limits);
  if (options.limits.max_wide_elements == 0) options.limits.max_wide_values = 0;
  load_plugins(plugins);
  options.seed = seed ? *seed : std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32);
  if (!options.cases) options.seconds = 60.0 * minutes.value_or(1.0);

  options.found_by = "accucheck check --seed " + std::to_string(options.seed);
  for (const auto& plugin : loaded_plugins()) options.found_by += origin_option(plugin);

  Campaign campaign(options);
  campaign.run();
  const CampaignResults results = campaign.results();
  print_campaign_table(results, stdout, campaign.options().findings_dir, campaign.options().generate);
  write_campaign_outputs(results, json_path, junit_path, html_path);
  return campaign.violations() ? kExitViolation : kExitOk;
}

}  // namespace accucheck::cli
