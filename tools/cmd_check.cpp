// accucheck check: a campaign of generated adversarial workloads against the selected backends.
//
// Every case is generated from (seed, format, case number), run on every selected backend of
// that storage format and judged element by element; determinism is re-checked on a sample.
// A violation is shrunk and written at once (atomically) as a case file under --findings, so
// a campaign killed at any moment keeps what it found.
#include <algorithm>
#include <cstdio>
#include <random>

#include "campaign_jobs.h"
#include "campaign_output.h"
#include "checking/families.h"
#include "cli.h"
#include "engine/campaign.h"
#include "io/case_file.h"
#include "plugins/plugin_loader.h"

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

// --shard K/M and --worker J/N: a share "K/M" with M in 1..2^32 and K < M.
struct Share {
  std::uint64_t index = 0, count = 1;
};
Share parse_share(const std::string& text, const std::string& option) {
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw UsageError(option + ": expected K/M (this is share K of M, 0 <= K < M), got '" + text + "'");
  Share share;
  share.count = parse_count(text.substr(slash + 1), option + " (M of K/M)", 1, std::uint64_t(1) << 32);
  share.index = parse_count(text.substr(0, slash), option + " (K of K/M)", 0, share.count - 1);
  return share;
}

}  // namespace

int check_command(CommandLine& cl) {
  CampaignOptions options;
  std::optional<double> minutes;
  std::optional<std::uint64_t> seed;
  BackendSources plugins;
  std::optional<std::string> json_path, junit_path, html_path;
  cl.repeatable("--backend", options.backend_globs, "GLOB",
                "run the backends whose names match (default: every backend)");
  cl.format("--format", options.format, "only the backends that store this format (f64, f32, f16, bf16)");
  cl.repeatable_option("--family", "NAME", "only these generator families (default: all)",
                       [&](const std::string& family) {
                         check_family(family);
                         options.families.push_back(family);
                       });
  CLI::Option* minutes_option = cl.option("--minutes", "M", "run for M minutes, plugin time included (default 1)",
                                          [&](const std::string& text) { minutes = parse_minutes(text); });
  cl.exclusive(minutes_option,
               cl.count("--cases", options.cases, "N", "run N cases per format x workload stream instead", 1));
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
  cl.flag(
      "--maximize", options.maximize,
      "climb toward each backend's bound: mutate its worst case between generated cases; report when 0.9 and 0.99 of "
      "the bound were reached, write the worst case to <findings>/worst/");
  cl.flag("--quiet", options.quiet, "no progress line");
  std::optional<std::uint64_t> jobs;
  cl.count("--jobs", jobs, "N",
           "run the campaign in N processes (default: one per CPU this process may use); with --cases, the same cases, "
           "findings and table whatever N is (but with --maximize: each process climbs from its own cases)",
           1, 1024);
  Share shard, worker;
  cl.option("--shard", "K/M",
            "run share K of M of the campaign (0 <= K < M; the same seed on M machines), merge the M "
            "--json results with `accucheck merge`",
            [&](const std::string& text) { shard = parse_share(text, "--shard"); });
  // check --jobs's workers (campaign_jobs.h): worker J of N writes its results to a file.
  std::optional<std::string> worker_results;
  cl.internal(
      cl.option("--worker", "J/N", "", [&](const std::string& text) { worker = parse_share(text, "--worker"); }));
  cl.internal(cl.text("--worker-results", worker_results, "FILE", ""));
  if (!cl.parse()) return kExitOk;
  const bool is_worker = worker_results.has_value();
  check_case_size(options.limits);
  if (options.limits.max_wide_elements == 0) options.limits.max_wide_values = 0;
  load_plugins(plugins);
  options.seed = seed ? *seed : std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32);
  if (!options.cases) options.seconds = 60.0 * minutes.value_or(1.0);

  options.found_by = "accucheck check --seed " + std::to_string(options.seed);
  for (const auto& plugin : loaded_plugins()) options.found_by += origin_option(plugin);

  // Shard K of M, worker J of N within it: the case numbers c with c mod MN = K + MJ.
  options.shard_index = shard.index + shard.count * worker.index;
  options.shard_count = shard.count * worker.count;
  std::uint64_t job_count = is_worker ? 1 : jobs.value_or(available_cpus());
  if (options.cases) job_count = std::min(job_count, *options.cases);  // one case per stream at least
  stop_campaign_on_signals();

  if (is_worker)  // its progress, for the parent's progress line (campaign_jobs.h)
    options.on_progress = [path = worker_progress_file(*worker_results)](std::uint64_t cases, std::size_t violations) {
      try {
        write_file_atomically(path, std::to_string(cases) + " " + std::to_string(violations) + "\n");
      } catch (const std::exception&) {  // a progress line is not worth stopping a campaign for
      }
    };
  Campaign campaign(options);  // checks the selection (backends, formats, families) before any worker starts
  if (is_worker) {
    campaign.run();
    write_file_atomically(*worker_results, results_to_json(campaign.results()));
    return campaign.violations() ? kExitViolation : kExitOk;
  }
  CampaignResults results;
  bool complete = true;
  if (job_count == 1) {
    campaign.run();
    results = campaign.results();
  } else {
    JobsOutcome outcome = run_campaign_jobs(JobsRequest{.args = cl.args(),
                                                        .jobs = job_count,
                                                        .seed_given = seed.has_value(),
                                                        .options = campaign.options(),
                                                        .start_line = campaign.start_line()});
    results = std::move(outcome.results);
    complete = outcome.complete;
  }
  print_campaign_table(results, stdout, options.findings_dir, options.generate);
  write_campaign_outputs(results, json_path, junit_path, html_path);
  if (results.violation_count() > 0) return kExitViolation;
  if (!complete) {
    std::fprintf(stderr,
                 "accucheck check: a worker ended without results (see the notes above): the campaign is incomplete\n");
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace accucheck::cli
