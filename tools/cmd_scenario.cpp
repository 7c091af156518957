// accucheck scenario --list
// accucheck scenario NAME [--json] [--dump DIR]
// Replays a real accumulation incident (docs/scenarios.md): per path and tensor the verdicts
// against the stated bound, the element shown (exact, computed, error, bound, error/bound,
// kappa), the divergence between the paths, the incident's figures and one sentence saying
// what happened. --dump writes every path's tensor as DIR/<path>_<tensor>.npy. The exit status
// is 0 when the scenario ran: its verdicts are the story, violations included.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli.h"
#include "scenarios.h"

namespace accucheck::cli {

int scenario_command(Args& args) {
  const bool list = args.flag("list");
  const bool json = args.flag("json");
  const auto dump_dir = args.value("dump");
  const auto names = args.positionals();
  if (list) {
    if (!names.empty() || dump_dir) throw UsageError("--list takes no scenario name and no --dump");
    for (const auto& s : scenarios::all()) std::printf("%-24s %s\n", std::string(s.name).c_str(), std::string(s.summary).c_str());
    return kExitOk;
  }
  std::string known;
  for (const auto& s : scenarios::all()) known += (known.empty() ? "" : ", ") + std::string(s.name);
  if (names.size() != 1) throw UsageError("give one scenario name (" + known + ") or --list");
  const scenarios::Scenario* s = scenarios::find(names[0]);
  if (!s) throw UsageError("unknown scenario '" + names[0] + "' (" + known + ")");
  if (dump_dir) check_output_directory("--dump", *dump_dir);
  const scenarios::ScenarioResult r = scenarios::run(*s);
  if (dump_dir) {
    std::vector<std::string> files;
    try {
      files = scenarios::dump(r, *dump_dir);
    } catch (const std::exception& e) {
      throw UsageError("--dump " + *dump_dir + ": " + e.what());
    }
    if (!json)
      for (const auto& f : files) std::printf("wrote %s\n", f.c_str());
  }
  std::fputs((json ? scenarios::to_json(r) : scenarios::to_text(r)).c_str(), stdout);
  return kExitOk;
}

}  // namespace accucheck::cli
