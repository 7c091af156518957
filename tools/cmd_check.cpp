// accucheck check: a campaign of generated adversarial workloads against the selected backends.
//
// Every case is generated from (seed, format, case number), run on every selected backend of
// that storage format and judged element by element; determinism is re-checked on a sample.
// A violation is shrunk and written at once (atomically) as a case file under --findings, so
// a campaign killed at any moment keeps what it found.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "accucheck/case_file.h"
#include "accucheck/check.h"
#include "accucheck/families.h"
#include "accucheck/findings.h"
#include "accucheck/json.h"
#include "accucheck/properties.h"
#include "accucheck/plugin_loader.h"
#include "campaign_output.h"
#include "cli.h"

namespace accucheck::cli {
namespace {

using Clock = std::chrono::steady_clock;

double parse_minutes(const std::string& text) {
  char* end = nullptr;
  const double minutes = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(minutes > 0) || minutes > 100000)
    throw UsageError("--minutes needs a number of minutes above 0 and at most 100000 (about 69 days), got '" + text + "'");
  return minutes;
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

int check_command(Args& args) {
  CampaignOptions options;
  options.backend_globs = args.values("backend");
  const auto format_text = args.value("format");
  options.families = args.values("family");
  const auto minutes = args.value("minutes");
  const auto cases = args.value("cases");
  const auto seed = args.value("seed");
  options.findings_dir = args.value("findings").value_or("findings");
  const auto json_path = args.value("json");
  const auto junit_path = args.value("junit");
  const auto html_path = args.value("html");
  load_plugins(args);
  if (auto v = args.value("max-steps")) options.limits.max_steps = parse_count(*v, "--max-steps", 1);
  if (auto v = args.value("max-long-steps")) options.limits.max_long_steps = parse_count(*v, "--max-long-steps", 1);
  if (auto v = args.value("max-elements")) options.limits.max_elements = parse_count(*v, "--max-elements", 1);
  check_case_size(options.limits);
  options.quiet = args.flag("quiet");
  if (!args.positionals().empty()) throw UsageError("check takes options only (see accucheck check --help)");
  if (minutes && cases) throw UsageError("give --minutes or --cases, not both");

  if (format_text) {
    auto f = parse_format(*format_text);
    if (!f) throw UsageError("unknown format '" + *format_text + "' (f64, f32, f16, bf16)");
    options.format = *f;
  }
  for (const auto& family : options.families)
    if (!find_family(family)) {
      std::string known;
      for (const auto& f : families()) known += (known.empty() ? "" : ", ") + std::string(f.name);
      throw UsageError("unknown family '" + family + "' (" + known + ")");
    }
  options.seed = seed ? parse_count(*seed, "--seed") : std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32);
  if (cases) options.cases = parse_count(*cases, "--cases", 1);
  else options.seconds = 60.0 * (minutes ? parse_minutes(*minutes) : 1.0);

  check_output_paths({{"--json", json_path}, {"--junit", junit_path}, {"--html", html_path}});
  check_output_directory("--findings", options.findings_dir);

  options.found_by = "accucheck check --seed " + std::to_string(options.seed);
  for (const auto& plugin : loaded_plugins()) options.found_by += " --plugin " + plugin;

  Campaign campaign(options);
  campaign.run();
  const CampaignResults results = campaign.results();
  print_campaign_table(results, stdout, campaign.options().findings_dir, campaign.options().generate);
  write_campaign_outputs(results, json_path, junit_path, html_path);
  return campaign.violations() ? kExitViolation : kExitOk;
}

}  // namespace accucheck::cli
