// Loading backends from plugins (shared libraries exporting the C ABI of accucheck/plugin.h) and
// from Python files. A plugin is validated as a whole before any of its backends is registered
// (else a PluginError naming the file and the field); its backends run in a worker process
// (plugin_worker.h), so a crash, exit, hang or overrun is that backend's failure. The rules and
// the options: docs/plugins.md ("What accucheck checks when it loads a plugin", "... isolation").
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "plugins/plugin_options.h"

namespace accucheck {

// Loads one plugin and registers its backends into `registry` (default: Registry::global()).
// Returns the names registered. Loading the same file twice registers nothing the second
// time. Throws PluginError.
std::vector<std::string> load_plugin(const std::string& path, Registry& registry = Registry::global());
std::vector<std::string> load_plugin(const std::string& path, const PluginOptions& options,
                                     Registry& registry = Registry::global());

// Loads the backends a Python file registers with @accucheck.backend: a Python worker (a process
// running the interpreter ACCUCHECK_PYTHON, else `python3` on PATH; core/plugins/python_worker.h)
// runs the file and every call, contained as a plugin worker contains plugins. Messages name
// `path`, and the backends' origin is its absolute path (so a replay hint says which file to load).
// Registers nothing when the file was loaded before. Throws PluginError.
std::vector<std::string> load_python_file(const std::string& path, const PluginOptions& options,
                                          Registry& registry = Registry::global());

// Loads every plugin named in ACCUCHECK_PLUGINS (colon-separated paths; empty entries are
// ignored) into Registry::global(). Returns the number of backends registered. Throws
// PluginError. The property suite, the fuzz targets and the CLI call this at start-up.
std::size_t load_plugins_from_environment();

// The absolute paths of the plugins (and served files) loaded so far.
std::vector<std::string> loaded_plugins();

// What the user should know about the plugins loaded so far, one line each, e.g. that one
// changed the floating-point environment while loading (accucheck restored it; its backends
// run in IEEE's default environment) or wrote to its output. The CLI prints them as warnings.
std::vector<std::string> plugin_warnings();

// While one is alive, every plugin call ends by `deadline`: its time-out shrinks to the time
// left, and a call the deadline cuts short (or one started after it) throws
// PluginDeadlineReached. A campaign with a time budget holds one, so slow plugins cannot
// stretch the budget; the property suite and the fuzzers never do.
class PluginCallDeadline {
 public:
  explicit PluginCallDeadline(std::chrono::steady_clock::time_point deadline);
  ~PluginCallDeadline();
  PluginCallDeadline(const PluginCallDeadline&) = delete;
  PluginCallDeadline& operator=(const PluginCallDeadline&) = delete;

 private:
  std::int64_t previous_ns_;
};
std::optional<std::chrono::steady_clock::time_point> plugin_call_deadline();

// Thrown by a plugin call that the deadline ended: the budget is spent, the backend did
// nothing wrong. Deliberately not a std::exception, so that the code that turns a backend's
// exceptions into its failure (run_and_judge) lets it through to the campaign.
struct PluginDeadlineReached {
  std::string call;            // "backend: accumulate_dense"
  double running_seconds = 0;  // how long it had run when the deadline came (0: not started)
};

}  // namespace accucheck
