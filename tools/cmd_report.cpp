// accucheck report --html FILE [--json] RESULTS.json...
// One self-contained HTML report (inline SVG plots) from the results JSON of `check --json`
// or `trace --json`; several files are merged backend by backend.
#include <cstdio>

#include "accucheck/case_file.h"
#include "campaign_output.h"
#include "cli.h"
#include "report.h"

namespace accucheck::cli {

int report_command(Args& args) {
  const auto html = args.value("html");
  auto inputs = args.values("json");
  for (auto& p : args.positionals()) inputs.push_back(p);
  if (!html) throw UsageError("report needs --html FILE (the report to write)");
  if (inputs.empty()) throw UsageError("report needs at least one results file (--json RESULTS.json, from check --json or trace --json)");
  check_output_paths({{"--html", html}});
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

}  // namespace accucheck::cli
