// accucheck: checks gradient accumulators against exact sums and their stated error bounds.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "accucheck/fp_environment.h"
#include "cli.h"

namespace {

struct Subcommand {
  const char* name;
  accucheck::cli::Command run;
  const char* synopsis;
};

const Subcommand kSubcommands[] = {
    {"list", accucheck::cli::list_command,
     "list [--json] [--plugin LIB.so]...  every backend: formats, bound, determinism, origin"},
    {"exact", accucheck::cli::exact_command,
     "exact --format F [FILE|-] [--json]  exact and correctly rounded sum of the numbers in FILE"},
    {"check", accucheck::cli::check_command,
     "check [--backend GLOB]... [--format F] [--family NAME]... [--minutes M | --cases N] [--seed S]\n"
     "        [--plugin LIB.so]... [--findings DIR] [--json FILE] [--junit FILE] [--html FILE]\n"
     "        [--max-steps N] [--max-long-steps N] [--max-elements N] [--quiet]\n"
     "                                     a campaign of adversarial cases against the backends"},
    {"replay", accucheck::cli::replay_command,
     "replay CASE [--backend GLOB]... [--plugin LIB.so]... [--json] [--all]\n"
     "                                     re-run a case file: the per-element verdict table (--all: every element)"},
    {"compare", accucheck::cli::compare_command,
     "compare [--backend GLOB]... [--n N]... [--cases N] [--seed S] [--plugin LIB.so]...\n"
     "                                     adversarial families vs uniform random: max error/bound side by side"},
    {"trace", accucheck::cli::trace_command,
     "trace FILE.npy... [--indices IDX.npy --rows ROWS.npy [--vocab V]] [--bf16] [--as F]\n"
     "        [--backend GLOB]... [--plugin LIB.so]... [--chunk N] [--findings DIR] [--json FILE]\n"
     "        [--junit FILE] [--html FILE] [--quiet]\n"
     "                                     real gradients (.npy, shape (T, ...)) through every backend"},
    {"report", accucheck::cli::report_command,
     "report --html FILE [--json] RESULTS.json...\n"
     "                                     one self-contained HTML report with plots"},
    {"scenario", accucheck::cli::scenario_command,
     "scenario --list | scenario NAME [--json] [--dump DIR]\n"
     "                                     replay a real accumulation incident (docs/scenarios.md)"},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: accucheck <command> [options]\n\ncommands:\n");
  for (const auto& s : kSubcommands) std::fprintf(out, "  %s\n", s.synopsis);
  std::fprintf(out, "\nexit status: 0 ok, 1 a bound was violated, 2 usage or input error\n");
  std::fprintf(out, "plugins: --plugin LIB.so or ACCUCHECK_PLUGINS=A.so:B.so (see docs/plugins.md)\n");
}

}  // namespace

int main(int argc, char** argv) {
  // Every bound and the exact parser assume IEEE's default environment; a process started
  // without it (an LD_PRELOADed -ffast-math library, say) would judge wrongly, so it stops here.
  if (const std::string change = accucheck::describe_fp_change(accucheck::default_fp_environment(),
                                                               accucheck::current_fp_environment());
      !change.empty()) {
    std::fprintf(stderr, "accucheck: the floating-point environment is not IEEE's default (%s): results would be wrong\n",
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
    for (int i = 2; i < argc; ++i)
      if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
        std::printf("usage: accucheck %s\n", s.synopsis);
        return accucheck::cli::kExitOk;
      }
    accucheck::cli::Args args(std::vector<std::string>(argv + 2, argv + argc));
    try {
      return s.run(args);
    } catch (const accucheck::cli::UsageError& e) {
      std::fprintf(stderr, "accucheck %s: %s\n", s.name, e.what());
      return accucheck::cli::kExitUsage;
    } catch (const std::bad_alloc&) {
      // A last resort: inputs are sized against the memory limit before they are allocated.
      std::string command = "accucheck";
      for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
      std::fprintf(stderr, "accucheck %s: out of memory while running '%s' (std::bad_alloc): the input is too large for the memory this process may use\n",
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
