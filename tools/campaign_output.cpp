#include "campaign_output.h"

#include <algorithm>
#include <filesystem>

#include "cli.h"
#include "io/case_file.h"
#include "report.h"

namespace accucheck::cli {

void print_campaign_table(const CampaignResults& results, std::FILE* out, const std::string& findings_dir,
                          bool generated) {
  const std::string text = campaign_table(results, findings_dir, generated);
  std::fwrite(text.data(), 1, text.size(), out);
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
        text += "accucheck replay " + f + replay_options(b.name, b.origin, b.bound) + "\n";
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
