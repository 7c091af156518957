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

int scenario_command(CommandLine& cl) {
  std::string known;
  for (const auto& s : scenarios::all()) known += (known.empty() ? "" : ", ") + std::string(s.name);
  const std::string give_one = "give one scenario name (" + known + ") or --list";
  std::vector<std::string> names;
  bool list = false, json = false;
  std::optional<std::string> dump_dir;
  cl.arguments("NAME", names, "the scenario (scenario --list names them)", 0, 1, give_one);
  cl.flag("--list", list, "the scenarios, one a line");
  cl.flag("--json", json, "print the scenario's results as JSON");
  cl.output_directory("--dump", dump_dir, "write every path's tensor as DIR/<path>_<tensor>.npy");
  if (!cl.parse()) return kExitOk;
  if (list) {
    if (!names.empty() || dump_dir) throw UsageError("--list takes no scenario name and no --dump");
    for (const auto& s : scenarios::all())
      std::printf("%-24s %s\n", std::string(s.name).c_str(), std::string(s.summary).c_str());
    return kExitOk;
  }
  if (names.size() != 1) throw UsageError(give_one);
  const scenarios::Scenario* s = scenarios::find(names[0]);
  if (!s) throw UsageError("unknown scenario '" + names[0] + "' (" + known + ")");
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
