// The outputs of a campaign (check, trace), all written from its CampaignResults (results.h):
// the verdict table, JUnit XML, and the --json/--junit/--html files.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "engine/campaign.h"
#include "io/results.h"

namespace accucheck::cli {

// The verdict table, the backend failures, the notes and the summary line. `generated`: cases
// per format x workload stream and the seed (check); else a count of cases (trace).
void print_campaign_table(const CampaignResults& results, std::FILE* out, const std::string& findings_dir,
                          bool generated);

// One testcase per backend x format (each backend has one storage format).
std::string campaign_junit(const CampaignResults& results);

// Writes the --json, --junit and --html outputs of a finished campaign (each atomically).
void write_campaign_outputs(const CampaignResults& results, const std::optional<std::string>& json_path,
                            const std::optional<std::string>& junit_path, const std::optional<std::string>& html_path);

// XML text with &, <, >, " and ' escaped (and control characters other than tab and newline
// dropped, which XML 1.0 cannot hold).
std::string xml_escape(std::string_view text);

}  // namespace accucheck::cli
