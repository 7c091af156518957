// check --jobs N: one campaign run by N worker processes of this program. Worker J is
// `accucheck check <the same arguments> --seed S --worker J/N --worker-results FILE`: it runs the
// case numbers c with c mod N = J (within --shard K/M: c mod MN = K + MJ), in a process of its
// own (its own plugin workers, CUDA context and thread pools: nothing is shared on the hot path),
// writes each finding as it finds it and its results when it ends. The parent merges the results
// (merge_results, results.h) into what one process running every case would have reported: with
// --cases, the same table, findings and JSON whatever N is (not under --maximize: each worker
// climbs from the worst of its own cases, so the climb's path depends on N).
//
// SIGINT or SIGTERM stops every worker after the case it is judging (a second one ends them at
// once): the table then covers the cases judged, and every finding is on disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/campaign.h"

namespace accucheck::cli {

// The number of CPUs this process may run on (its affinity mask), at least 1.
std::uint64_t available_cpus();

// SIGINT and SIGTERM ask the running campaign to stop (request_campaign_stop); a second one of
// the same signal ends the process as usual.
void stop_campaign_on_signals();

struct JobsRequest {
  std::vector<std::string> args;  // check's arguments as given (worker arguments are appended)
  std::uint64_t jobs = 2;
  bool seed_given = false;  // else --seed options.seed is appended
  CampaignOptions options;  // as parsed (seed, findings, budget, shard, fail-fast, quiet)
  std::string start_line;   // Campaign::start_line of the campaign the workers share
};

// Where worker writes its progress ("<cases per stream> <violations>"), beside its results.
inline std::string worker_progress_file(const std::string& results_file) { return results_file + ".progress"; }

// Runs the workers and merges their results. A worker that ends without results (killed,
// crashed: accucheck's failure, not a backend's) is a note in the results and `complete` is
// false; its cases are missing from the table.
struct JobsOutcome {
  CampaignResults results;
  bool complete = true;
};
JobsOutcome run_campaign_jobs(const JobsRequest& request);

}  // namespace accucheck::cli
