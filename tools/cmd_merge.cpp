// accucheck merge RESULTS.json... : the results of the shards of one campaign (check --shard K/M
// --json, one per machine) merged into the results of the whole (merge_results, results.h):
// the table of one process that ran every case, and its --json, --junit and --html outputs.
#include <cstdio>

#include "campaign_output.h"
#include "cli.h"
#include "io/case_file.h"
#include "io/results.h"

namespace accucheck::cli {

int merge_command(CommandLine& cl) {
  std::vector<std::string> inputs;
  std::optional<std::string> json_path, junit_path, html_path;
  std::optional<std::string> findings_dir;
  cl.arguments("RESULTS.json", inputs, "the --json results of the shards (check --shard K/M --json F)", 1);
  cl.output_file("--json", json_path, "write the merged results as JSON");
  cl.output_file("--junit", junit_path, "write JUnit XML: one testcase per backend x format");
  cl.output_file("--html", html_path, "write the HTML report");
  cl.text("--findings", findings_dir, "DIR", "where the shards wrote their findings, for the table (default findings)");
  if (!cl.parse()) return kExitOk;
  std::vector<CampaignResults> parts;
  for (const auto& path : inputs) {
    try {
      parts.push_back(results_from_json(read_text_file(path), path));
    } catch (const CaseError& e) {
      throw UsageError(e.what());
    } catch (const ResultsError& e) {
      throw UsageError(e.what());
    }
  }
  MergedResults merged;
  try {
    merged = merge_results(parts, inputs);
  } catch (const ResultsError& e) {
    throw UsageError(e.what());
  }
  const CampaignResults& results = merged.results;
  print_campaign_table(results, stdout, findings_dir.value_or("findings"), results.tool == "accucheck check");
  // Files of the shards that the merged results no longer name (later findings of a class,
  // worst cases that others beat): left on disk, listed.
  for (const auto& path : merged.superseded) std::printf("superseded: %s\n", path.c_str());
  write_campaign_outputs(results, json_path, junit_path, html_path);
  return results.violation_count() ? kExitViolation : kExitOk;
}

}  // namespace accucheck::cli
