// accucheck characterize BACKEND... [--plugin LIB.so] [--python FILE.py] [--n N]... [--json F] [--html F] [--minutes M]
//                        [--workload KIND] [--seed S] [--findings DIR] [--width W] [--values-per-call V]
// Reveals each backend's order, accumulation precision and special behaviour, derives the bound
// that structure implies and relates it to the stated one (core characterize.h,
// docs/characterize.md); with --minutes, then a campaign that judges copies of the backends
// stating the derived bounds, at the probed lengths, reported like check.
#include <algorithm>
#include <cstdio>
#include <random>

#include "campaign_output.h"
#include "characterize/characterize.h"
#include "characterize_output.h"
#include "cli.h"
#include "engine/campaign.h"
#include "io/case_file.h"
#include "plugins/plugin_loader.h"

namespace accucheck::cli {
namespace {

std::optional<WorkloadKind> parse_kind(const std::string& text) {
  for (WorkloadKind k : {WorkloadKind::dense, WorkloadKind::sparse, WorkloadKind::product})
    if (name(k) == text) return k;
  throw UsageError("--workload: unknown workload kind '" + text + "' (dense, sparse, product)");
}

}  // namespace

int characterize_command(CommandLine& cl) {
  std::vector<std::string> globs;
  BackendSources plugins;
  CharacterizeOptions options;
  std::optional<std::string> json_path, html_path;
  std::optional<double> minutes;
  std::optional<std::uint64_t> seed;
  std::string findings_dir = "findings";
  bool quiet = false;
  cl.arguments("BACKEND", globs, "backends to characterize (names or shell globs; see accucheck list)", 1, SIZE_MAX,
               "characterize needs at least one BACKEND (a name or a glob; see accucheck list)");
  cl.plugins(plugins);
  cl.repeatable_option("--n", "N",
                       "probe sums of N terms, the initial value included, 2 to 65536 (default: 2 ... 4096 with the "
                       "boundaries of 8, 16, 32, 256, 1024)",
                       [&](const std::string& text) { options.lengths.push_back(parse_count(text, "--n", 2, 65536)); });
  cl.option("--workload", "KIND",
            "probe with dense, sparse or product workloads (default: dense when the backend runs them)",
            [&](const std::string& text) { options.kind = parse_kind(text); });
  cl.output_file("--json", json_path, "write the characterization as JSON");
  cl.output_file("--html", html_path, "write the HTML report: the trees drawn, leaf depth against position");
  cl.option("--minutes", "M", "then a campaign of M minutes that judges the derived bounds, at the probed lengths",
            [&](const std::string& text) { minutes = parse_minutes(text); });
  cl.count("--seed", seed, "S",
           "the seed of the random inputs and of the campaign, 0 to 2^64-1 (default: 1 for the probes, "
           "a random one for the campaign)");
  cl.output_directory("--findings", findings_dir,
                      "write witnesses and the campaign's findings here (default findings)");
  cl.count("--values-per-call", options.values_per_call, "V",
           "batch probes into calls of at most V values (default 2^20)", 1);
  cl.count("--width", options.width, "W",
           "probe in buffers of W elements (default 1025, within --values-per-call); one call still looks at 1025", 1,
           65536);
  cl.flag("--quiet", quiet, "no progress lines");
  if (!cl.parse()) return kExitOk;
  load_plugins(plugins);

  std::vector<const Backend*> backends;
  for (const auto& glob : globs) {
    const auto matched = Registry::global().match(glob);
    if (matched.empty()) throw UsageError("'" + glob + "' matches no backend (see accucheck list)");
    for (const Backend* b : matched)
      if (std::find(backends.begin(), backends.end(), b) == backends.end()) backends.push_back(b);
  }
  if (options.kind)
    for (const Backend* b : backends)
      if (!b->supports(*options.kind))
        throw UsageError(b->name + " does not run " + std::string(name(*options.kind)) + " workloads");
  options.seed = seed.value_or(1);
  options.findings_dir = findings_dir;
  options.found_by = "accucheck characterize" + std::string(seed ? " --seed " + std::to_string(*seed) : "");
  for (const auto& plugin : loaded_plugins()) options.found_by += origin_option(plugin);

  std::vector<BackendCharacterization> all;
  bool contradicted = false;
  for (const Backend* b : backends) {
    if (!quiet) std::fprintf(stderr, "accucheck characterize: %s ...\n", b->name.c_str());
    all.push_back(characterize(*b, options));
    print_characterization(all.back(), stdout);
    std::fflush(stdout);
    contradicted = contradicted || all.back().relation == Relation::contradicted;
  }
  if (json_path) write_file_atomically(*json_path, characterization_json(all, options.seed));
  if (html_path) write_file_atomically(*html_path, characterization_html(all));

  if (!minutes) return contradicted ? kExitViolation : kExitOk;

  // The campaign: copies stating the derived bounds, dense cases at the probed lengths.
  CampaignOptions campaign_options;
  for (std::size_t k = 0; k < backends.size(); ++k) {
    if (all[k].derived_bound.empty()) {
      std::fprintf(stdout, "\n%s: no bound derived over all lengths; not in the campaign\n", backends[k]->name.c_str());
      continue;
    }
    campaign_options.backends.push_back(with_bound(*backends[k], all[k].derived_bound));
  }
  if (campaign_options.backends.empty()) return contradicted ? kExitViolation : kExitOk;
  std::vector<std::size_t> lengths = options.lengths.empty() ? default_characterize_lengths() : options.lengths;
  for (std::size_t n : lengths) campaign_options.limits.step_choices.push_back(n - 1);
  for (std::size_t n : lengths) {
    campaign_options.limits.max_steps = std::max(campaign_options.limits.max_steps, n - 1);
    campaign_options.limits.max_long_steps = std::max(campaign_options.limits.max_long_steps, n - 1);
  }
  campaign_options.seconds = 60.0 * *minutes;
  campaign_options.seed = seed ? *seed : std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32);
  campaign_options.findings_dir = findings_dir;
  campaign_options.quiet = quiet;
  campaign_options.tool = "accucheck characterize";
  campaign_options.found_by = "accucheck characterize --seed " + std::to_string(campaign_options.seed);
  for (const auto& plugin : loaded_plugins()) campaign_options.found_by += origin_option(plugin);
  std::printf("\ncampaign with the derived bounds (%zu backends, dense cases at the probed lengths):\n",
              campaign_options.backends.size());
  Campaign campaign(campaign_options);
  campaign.run();
  print_campaign_table(campaign.results(), stdout, findings_dir, true);
  return contradicted || campaign.violations() ? kExitViolation : kExitOk;
}

}  // namespace accucheck::cli
