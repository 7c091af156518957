// accucheck report --html FILE [--json] RESULTS.json...
// One self-contained HTML report (inline SVG plots) from the results JSON of `check --json`
// or `trace --json`; several files are merged backend by backend.
#include <cstdio>

#include "accucheck/case_file.h"
#include "campaign.h"
#include "cli.h"
#include "report.h"

namespace accucheck::cli {

int report_command(CommandLine& cl) {
  std::optional<std::string> html;
  std::vector<std::string> inputs, positional_inputs;
  cl.required(cl.output_file("--html", html, "the HTML report to write"));
  cl.repeatable("--json", inputs, "RESULTS.json", "a results file (as the arguments are)");
  cl.arguments("RESULTS.json", positional_inputs, "results files of check --json or trace --json, merged backend by backend");
  if (!cl.parse()) return kExitOk;
  inputs.insert(inputs.end(), positional_inputs.begin(), positional_inputs.end());
  if (inputs.empty()) throw UsageError("report needs at least one results file (--json RESULTS.json, from check --json or trace --json)");
  ReportData data;
  for (const auto& path : inputs) {
    std::string text;
    try {
      text = read_text_file(path);
    } catch (const CaseError& e) {
      throw UsageError(e.what());
    }
    add_results(data, text, path);
  }
  if (data.backends.empty()) throw UsageError("the results file(s) hold no backends: nothing to report");
  write_file_atomically(*html, render_report(data));
  std::printf("wrote %s: %zu backends from %zu results file(s)\n", html->c_str(), data.backends.size(), data.inputs.size());
  return kExitOk;
}

void write_campaign_outputs(const Campaign& campaign, const std::optional<std::string>& json_path,
                            const std::optional<std::string>& junit_path, const std::optional<std::string>& html_path) {
  const std::string json = campaign.json();
  if (json_path) write_file_atomically(*json_path, json);
  if (junit_path) write_file_atomically(*junit_path, campaign.junit());
  if (html_path) {
    ReportData data;
    add_results(data, json, json_path.value_or("(this campaign)"));
    write_file_atomically(*html_path, render_report(data));
    std::fprintf(stderr, "report: %s\n", html_path->c_str());
  }
}

}  // namespace accucheck::cli
