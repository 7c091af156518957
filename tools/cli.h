// Shared by the accucheck subcommands: argument access, exit codes, errors.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <utility>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "accucheck/backend.h"

namespace accucheck::cli {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;         // nothing violated
inline constexpr int kExitViolation = 1;  // a backend violated its stated bound
inline constexpr int kExitUsage = 2;      // usage or input error

// Thrown for bad usage or bad input; main prints "accucheck: <message>" and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Command-line arguments after the subcommand name, consumed option by option.
class Args {
 public:
  explicit Args(std::vector<std::string> args) : args_(std::move(args)) {}
  // --name VALUE or --name=VALUE; every occurrence, consumed (options that may repeat).
  std::vector<std::string> values(std::string_view name);
  // A single-valued option: given twice is a UsageError ("--seed given twice"), never "the last wins".
  std::optional<std::string> value(std::string_view name);
  bool flag(std::string_view name);                         // --name present (consumed)
  // The remaining arguments; a leftover "--option" is an error.
  std::vector<std::string> positionals();

 private:
  std::vector<std::string> args_;
};

using Command = int (*)(Args&);

int list_command(Args& args);
int exact_command(Args& args);
int check_command(Args& args);
int replay_command(Args& args);
int compare_command(Args& args);
int trace_command(Args& args);
int report_command(Args& args);
int scenario_command(Args& args);  // cmd_scenario.cpp, tools/scenarios/

// Loads the plugins named by ACCUCHECK_PLUGINS and by every --plugin option (consumed) into
// the registry; a plugin that cannot be loaded is a UsageError naming the file and the field.
void load_plugins(Args& args);

// An integer option value from low to high ("--cases needs a non-negative integer, got 'x'",
// "--cases must be at least 1, got 0"); at most 2^64-1.
std::uint64_t parse_count(const std::string& text, const std::string& option, std::uint64_t low = 0,
                          std::uint64_t high = UINT64_MAX);

// Output files are checked before a long run: their directory must exist.
void check_output_paths(std::initializer_list<std::pair<const char*, std::optional<std::string>>> outputs);
// An output directory (--findings, --dump), checked before a long run: a directory, or missing
// in a directory that exists (it is created then; its parents are not).
void check_output_directory(const char* option, const std::string& path);

// A max-ulps cell of the check table and of the report: exact below ten million, then three
// digits ("9.22e+18"): past that it says "the sign or the magnitude is off" (a cancellation
// within its bound can land across zero) as well as nineteen digits, and keeps the column narrow.
std::string ulps_text(std::int64_t ulps);

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
