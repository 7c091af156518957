#include "campaign_output.h"

#include <algorithm>
#include <filesystem>

#include "accucheck/case_file.h"
#include "cli.h"
#include "report.h"

namespace accucheck::cli {

void print_campaign_table(const CampaignResults& results, std::FILE* out, const std::string& findings_dir, bool generated) {
  BackendColumns width;
  for (const auto& b : results.backends) width.fit(b.name, b.bound);
  // --maximize: when 0.9 and 0.99 of the bound were first reached.
  const bool climbed = std::any_of(results.backends.begin(), results.backends.end(), [](const BackendResults& b) {
    return !b.worst_case.empty() || b.seconds_to_ratio_0_9;
  });
  auto seconds = [](const std::optional<double>& s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", s.value_or(0));
    return s ? std::string(text) : std::string("-");
  };
  std::fprintf(out, "\n%-*s %-6s %-*s %8s  %-28s %13s %10s  %s%s\n", width.name, "backend", "format", width.bound, "stated bound",
               "cases", "violations", "max err/bound", "max ulps", climbed ? "to 0.9 s  to 0.99 s  " : "", "determinism");
  for (const auto& b : results.backends) {
    std::string determinism;
    if (b.determinism == name(Determinism::run_to_run_nondeterministic)) determinism = "not promised";
    else determinism = "checked " + std::to_string(b.determinism_checks) + "x";
    if (b.origin != "builtin") determinism += "  [plugin " + std::filesystem::path(b.origin).filename().string() + "]";
    char climb[48] = "";
    if (climbed)
      std::snprintf(climb, sizeof climb, "%8s  %9s  ", seconds(b.seconds_to_ratio_0_9).c_str(), seconds(b.seconds_to_ratio_0_99).c_str());
    std::fprintf(out, "%-*s %-6s %-*s %8llu  %-28s %13.4g %10s  %s%s\n", width.name, b.name.c_str(),
                 std::string(name(b.storage)).c_str(), width.bound, b.bound.c_str(), static_cast<unsigned long long>(b.cases),
                 b.violation_text().c_str(), b.max_ratio, ulps_text(b.max_ulps).c_str(), climb, determinism.c_str());
  }
  for (const auto& b : results.backends)
    for (const auto& f : b.failures) std::fprintf(out, "backend failed: %s\n", f.c_str());
  for (const auto& note : results.notes) std::fprintf(out, "note: %s\n", note.c_str());
  if (climbed) std::fprintf(out, "worst cases (--maximize): %s/worst/<backend>.json\n", findings_dir.c_str());
  const std::uint64_t violations = results.violation_count();
  const std::string verdict =
      violations ? std::to_string(violations) + " violations (findings in " + findings_dir + "/)" : "no violations";
  if (generated)
    std::fprintf(out, "\n%zu backends, %llu cases per format x workload stream, %.1f s, seed %llu: %s\n", results.backends.size(),
                 static_cast<unsigned long long>(results.cases_per_stream), results.seconds,
                 static_cast<unsigned long long>(results.seed), verdict.c_str());
  else
    std::fprintf(out, "\n%zu backends, %llu cases, %.1f s: %s\n", results.backends.size(),
                 static_cast<unsigned long long>(results.cases_per_stream), results.seconds, verdict.c_str());
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') break;
        out += c;
    }
  }
  return out;
}

std::string campaign_junit(const CampaignResults& results) {
  std::string body;
  std::size_t failures = 0;
  for (const auto& b : results.backends) {
    body += "    <testcase classname=\"accucheck." + std::string(name(b.storage)) + "\" name=\"" + xml_escape(b.name) +
            "\" time=\"0\">\n";
    if (!b.violations.empty()) {
      ++failures;
      std::string text;
      for (const auto& f : b.findings)
        text += "accucheck replay " + f + (b.origin == "builtin" ? "" : " --plugin " + b.origin) + "\n";
      for (const auto& f : b.failures) text += "backend failed: " + f + "\n";
      body += "      <failure message=\"" + xml_escape(b.violation_text() + " (stated bound " + b.bound + ")") + "\">" +
              xml_escape(text) + "</failure>\n";
    }
    body += "    </testcase>\n";
  }
  char head[256];
  std::snprintf(head, sizeof head,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"%s\" "
                "tests=\"%zu\" failures=\"%zu\" time=\"%.1f\">\n",
                xml_escape(results.tool).c_str(), results.backends.size(), failures, results.seconds);
  return head + body + "  </testsuite>\n</testsuites>\n";
}

void write_campaign_outputs(const CampaignResults& results, const std::optional<std::string>& json_path,
                            const std::optional<std::string>& junit_path, const std::optional<std::string>& html_path) {
  if (json_path) write_file_atomically(*json_path, results_to_json(results));
  if (junit_path) write_file_atomically(*junit_path, campaign_junit(results));
  if (html_path) {
    ReportData data;
    add_results(data, results, json_path.value_or("(this campaign)"));
    write_file_atomically(*html_path, render_report(data));
    std::fprintf(stderr, "report: %s\n", html_path->c_str());
  }
}

}  // namespace accucheck::cli
