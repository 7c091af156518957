// Loading backends from plugins (shared libraries exporting the C ABI of accucheck/plugin.h).
//
// A plugin is validated as a whole before any of its backends is registered: the library
// loads, exports accucheck_plugin_backends, accepts ABI version 1, and every backend has a
// valid unique name, formats and determinism class in range, a stated bound that parses and
// at least one accumulate function. Anything else is a PluginError naming the file and the
// field; nothing of that plugin is registered.
//
// Plugin backends are registered into Registry::global() with Backend::origin = the plugin's
// absolute path. Their results are validated the same way as every backend's: the returned
// bits are decoded in the storage format and judged against the exact sum.
//
// Isolation: by default every call into a plugin runs in a worker process (forked once, reused
// for every call; the workload and the result buffer in shared memory), so that a plugin that
// crashes (SIGSEGV, abort), exits, hangs past the timeout, writes past the end of its buffer
// or returns non-zero becomes a BackendFailure of that backend (verdict backend_failed)
// instead of ending the caller; the next call forks a new worker.
// ACCUCHECK_PLUGIN_ISOLATION=fork forks a fresh worker for every call (no plugin state carries
// over between calls); =none calls plugins in process (for debuggers, and plugins that cannot
// run after fork, e.g. ones that initialised a GPU context before it).
// ACCUCHECK_PLUGIN_TIMEOUT=SECONDS sets the per-call timeout (default 60).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "accucheck/backend.h"

namespace accucheck {

// A plugin that cannot be loaded: the message names the file and what is wrong.
struct PluginError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class PluginIsolation { worker, fork_per_call, in_process };

struct PluginOptions {
  PluginIsolation isolation = PluginIsolation::worker;
  double timeout_seconds = 60;  // per call, when isolated
};

// The options from ACCUCHECK_PLUGIN_ISOLATION and ACCUCHECK_PLUGIN_TIMEOUT (throws PluginError
// for a value it does not understand).
PluginOptions plugin_options_from_environment();

// Loads one plugin and registers its backends into `registry` (default: Registry::global()).
// Returns the names registered. Loading the same file twice registers nothing the second
// time. Throws PluginError.
std::vector<std::string> load_plugin(const std::string& path, Registry& registry = Registry::global());
std::vector<std::string> load_plugin(const std::string& path, const PluginOptions& options,
                                     Registry& registry = Registry::global());

// Loads every plugin named in ACCUCHECK_PLUGINS (colon-separated paths; empty entries are
// ignored) into Registry::global(). Returns the number of backends registered. Throws
// PluginError. The property suite, the fuzz targets and the CLI call this at start-up.
std::size_t load_plugins_from_environment();

// The absolute paths of the plugins loaded so far.
std::vector<std::string> loaded_plugins();

}  // namespace accucheck
