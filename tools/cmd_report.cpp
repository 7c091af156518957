// accucheck report --html FILE [--json] RESULTS.json...
// One self-contained HTML report (inline SVG plots) from the results JSON of `check --json`
// or `trace --json`; several files are merged backend by backend.
#include <cstdio>

#include "campaign_output.h"
#include "cli.h"
#include "io/case_file.h"
#include "report.h"

namespace accucheck::cli {

int report_command(CommandLine& cl) {
  std::optional<std::string> html;
  std::vector<std::string> inputs, positional_inputs;
  cl.required(cl.output_file("--html", html, "the HTML report to write"));
  cl.repeatable("--json", inputs, "RESULTS.json", "a results file (as the arguments are)");
  cl.arguments("RESULTS.json", positional_inputs,
               "results files of check --json or trace --json, merged backend by backend");
  if (!cl.parse()) return kExitOk;
  inputs.insert(inputs.end(), positional_inputs.begin(), positional_inputs.end());
  if (inputs.empty())
    throw UsageError("report needs at least one results file (--json RESULTS.json, from check --json or trace --json)");
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
  std::printf("wrote %s: %zu backends from %zu results file(s)\n", html->c_str(), data.backends.size(),
              data.inputs.size());
  return kExitOk;
}

}  // namespace accucheck::cli
