// Shared by the accucheck subcommands: the command line, exit codes, errors.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checking/backend.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace accucheck::cli {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;         // nothing violated
inline constexpr int kExitViolation = 1;  // a backend violated its stated bound
inline constexpr int kExitUsage = 2;      // usage or input error, or accucheck could not finish

// Thrown for bad usage or bad input; main prints "accucheck <command>: <message>" and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An integer option value from low to high ("--cases needs a non-negative integer, got 'x'",
// "--cases must be at least 1, got 0"); at most 2^64-1.
std::uint64_t parse_count(const std::string& text, const std::string& option, std::uint64_t low = 0,
                          std::uint64_t high = UINT64_MAX);
// --minutes M: a number above 0 and at most 100000 (about 69 days).
double parse_minutes(const std::string& text);

// One subcommand's command line (CLI11 underneath): every option is declared once, with its help
// text and the parser that validates its value, and the synopsis of --help is made from the
// declarations. Parsing refuses, with a UsageError naming the option: a single-valued option
// given twice ("--seed given twice"), a value that does not parse, an option missing its value,
// an unknown option, the wrong number of arguments, and options declared exclusive given together.
// Where backends beyond the built-in ones come from: --plugin and --python.
struct BackendSources {
  std::vector<std::string> libraries;     // --plugin LIB.so
  std::vector<std::string> python_files;  // --python FILE.py
};

class CommandLine {
 public:
  // `command` as typed after "accucheck"; `summary` is the line under the synopsis of --help.
  CommandLine(std::string command, std::string summary, std::vector<std::string> args);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // --name, present or not (it takes no value).
  CLI::Option* flag(const std::string& name, bool& target, const std::string& help);
  // --name VALUE (or --name=VALUE), at most once. `store` parses the text into its target and
  // throws UsageError naming the option when it does not parse.
  CLI::Option* option(const std::string& name, const std::string& placeholder, const std::string& help,
                      std::function<void(const std::string&)> store);
  // A single-valued option kept as the text given.
  CLI::Option* text(const std::string& name, std::optional<std::string>& target, const std::string& placeholder,
                    const std::string& help);
  // --name VALUE, repeatable: `store` is called for every occurrence, in order.
  CLI::Option* repeatable_option(const std::string& name, const std::string& placeholder, const std::string& help,
                                 std::function<void(const std::string&)> store);
  // A repeatable option kept as the texts given.
  CLI::Option* repeatable(const std::string& name, std::vector<std::string>& target, const std::string& placeholder,
                          const std::string& help);
  // A count or seed from low to high (parse_count); `target` keeps its default when absent.
  template <typename Target>
  CLI::Option* count(const std::string& name, Target& target, const std::string& placeholder, const std::string& help,
                     std::uint64_t low = 0, std::uint64_t high = UINT64_MAX) {
    return option(name, placeholder, help,
                  [&target, name, low, high](const std::string& text) { target = parse_count(text, name, low, high); });
  }
  // A format: f64, f32, f16 or bf16 ("--format: unknown format 'f8' (f64, f32, f16, bf16)"), and
  // with fp8_too the OCP fp8 formats e4m3 and e5m2 as well (parse_any_format).
  CLI::Option* format(const std::string& name, std::optional<Format>& target, const std::string& help,
                      bool fp8_too = false);
  // An output file, checked before the command runs: a file name, not a directory, in a
  // directory that exists.
  CLI::Option* output_file(const std::string& name, std::optional<std::string>& target, const std::string& help);
  // An output directory, checked before the command runs: a directory, or missing in a directory
  // that exists (it is created then; its parents are not). A std::string target holds the
  // default, which is checked as well.
  CLI::Option* output_directory(const std::string& name, std::string& target, const std::string& help);
  CLI::Option* output_directory(const std::string& name, std::optional<std::string>& target, const std::string& help);
  // --plugin LIB.so and --python FILE.py, repeatable; load_plugins(sources) loads them after
  // ACCUCHECK_PLUGINS.
  void plugins(BackendSources& sources);
  // The arguments that are not options (files, names), anywhere among the options: from `min`
  // to `max` of them, another count is a UsageError saying `count_error`.
  CLI::Option* arguments(const std::string& placeholder, std::vector<std::string>& target, const std::string& help,
                         std::size_t min = 0, std::size_t max = SIZE_MAX, std::string count_error = "");
  // At most one of the two ("give --minutes or --cases, not both"); the synopsis shows [a | b].
  void exclusive(CLI::Option* a, CLI::Option* b);
  // An option that must be given ("--format F is required: ..."); the synopsis shows it bare.
  CLI::Option* required(CLI::Option* o);
  // An option for accucheck's own use (check --jobs passes its workers their share): parsed like
  // the others, not shown by --help.
  CLI::Option* internal(CLI::Option* o);

  // The arguments as given after the command's name.
  const std::vector<std::string>& args() const { return args_; }

  // Parses the arguments. False when --help or -h is among them (anywhere, before anything is
  // parsed): the synopsis was printed on stdout and the command exits 0.
  [[nodiscard]] bool parse();
  // The text of --help: synopsis, summary, arguments and options.
  std::string help() const;

  // How many arguments a declared `arguments` option takes (the synopsis shows them).
  struct ArgumentCount {
    const CLI::Option* option;
    std::size_t min, max;
    std::string count_error;
  };

 private:
  std::string usage_message(const std::exception& error) const;

  std::string command_;
  std::vector<std::string> args_;
  std::unique_ptr<CLI::App> app_;
  std::vector<ArgumentCount> argument_counts_;
  std::vector<std::function<void()>> checks_;  // on the parsed values, in declaration order
};

using Command = int (*)(CommandLine&);

int list_command(CommandLine& cl);
int exact_command(CommandLine& cl);
int check_command(CommandLine& cl);
int replay_command(CommandLine& cl);
int compare_command(CommandLine& cl);
int trace_command(CommandLine& cl);
int report_command(CommandLine& cl);
int scenario_command(CommandLine& cl);  // cmd_scenario.cpp, tools/scenarios/
int characterize_command(CommandLine& cl);
int merge_command(CommandLine& cl);  // the shards of check --shard K/M

// Loads the plugins named by ACCUCHECK_PLUGINS, then the --plugin libraries, then the backends of
// the --python files (each in a Python worker of ACCUCHECK_PYTHON) into the registry; one that
// cannot be loaded is a UsageError naming the file and the field.
void load_plugins(const BackendSources& sources);

// Widths of the backend-name and stated-bound columns of a table of backends (list, check,
// trace): the longest entry, at least the header, so long plugin names keep the table aligned.
struct BackendColumns {
  int name = 7;    // "backend"
  int bound = 12;  // "stated bound"
  void fit(const Backend& b) { fit(b.name, b.bound_text()); }
  void fit(const std::string& backend_name, const std::string& bound_text) {
    name = std::max(name, static_cast<int>(backend_name.size()));
    bound = std::max(bound, static_cast<int>(bound_text.size()));
  }
};

}  // namespace accucheck::cli
