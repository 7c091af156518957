// accucheck: checks gradient accumulators against exact sums and their stated error bounds.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli.h"
#include "numerics/fp_environment.h"

namespace {

struct Subcommand {
  const char* name;
  accucheck::cli::Command run;
  const char* summary;  // `accucheck --help`, and the line under the command's synopsis
};

// Each command declares its options itself (cmd_*.cpp); `accucheck <command> --help` shows them.
const Subcommand kSubcommands[] = {
    {"list", accucheck::cli::list_command, "every backend: formats, stated bound, determinism, origin"},
    {"exact", accucheck::cli::exact_command, "the exact and the correctly rounded sum of the numbers in a file"},
    {"check", accucheck::cli::check_command, "a campaign of adversarial cases against the backends"},
    {"merge", accucheck::cli::merge_command, "the results of check --shard K/M on several machines, as one campaign's"},
    {"replay", accucheck::cli::replay_command, "re-run a case file: the per-element verdict table"},
    {"compare", accucheck::cli::compare_command,
     "adversarial families vs uniform random inputs: the max error/bound each reaches, side by side"},
    {"trace", accucheck::cli::trace_command, "real gradients (.npy, shape (T, ...)) through every backend"},
    {"report", accucheck::cli::report_command, "one self-contained HTML report with plots from results files"},
    {"scenario", accucheck::cli::scenario_command, "replay a real accumulation incident (docs/scenarios.md)"},
    {"characterize", accucheck::cli::characterize_command,
     "reveal a backend's order, precision and rounding; derive the bound it can promise and check it"},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: accucheck <command> [options]\n\ncommands:\n");
  for (const auto& s : kSubcommands) std::fprintf(out, "  %-10s %s\n", s.name, s.summary);
  std::fprintf(out, "\n'accucheck <command> --help' shows the options of a command.\n");
  std::fprintf(out,
               "exit status: 0 ok, 1 a bound was violated, 2 usage or input error (or accucheck could not finish)\n");
  std::fprintf(out, "plugins: --plugin LIB.so or ACCUCHECK_PLUGINS=A.so:B.so (see docs/plugins.md)\n");
}

}  // namespace

int main(int argc, char** argv) {
  // Every bound and the exact parser assume IEEE's default environment; a process started
  // without it (an LD_PRELOADed -ffast-math library, say) would judge wrongly, so it stops here.
  if (const std::string change =
          accucheck::describe_fp_change(accucheck::default_fp_environment(), accucheck::current_fp_environment());
      !change.empty()) {
    std::fprintf(stderr,
                 "accucheck: the floating-point environment is not IEEE's default (%s): results would be wrong\n",
                 change.c_str());
    return accucheck::cli::kExitUsage;
  }
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? accucheck::cli::kExitUsage : accucheck::cli::kExitOk;
  }
  for (const auto& s : kSubcommands) {
    if (std::strcmp(argv[1], s.name) != 0) continue;
    try {
      accucheck::cli::CommandLine command_line(s.name, s.summary, std::vector<std::string>(argv + 2, argv + argc));
      return s.run(command_line);
    } catch (const accucheck::cli::UsageError& e) {
      std::fprintf(stderr, "accucheck %s: %s\n", s.name, e.what());
      return accucheck::cli::kExitUsage;
    } catch (const std::bad_alloc&) {
      // A last resort: inputs are sized against the memory limit before they are allocated.
      std::string command = "accucheck";
      for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
      std::fprintf(stderr,
                   "accucheck %s: out of memory while running '%s' (std::bad_alloc): the input is too large for the "
                   "memory this process may use\n",
                   s.name, command.c_str());
      return accucheck::cli::kExitUsage;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "accucheck %s: %s\n", s.name, e.what());
      return accucheck::cli::kExitUsage;
    }
  }
  std::fprintf(stderr, "accucheck: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return accucheck::cli::kExitUsage;
}
