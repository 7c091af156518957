// How plugins are run (docs/plugins.md, "Isolation"): in a worker process, a fresh process per
// call, or in this one; the time-out and memory limit of each load and call; read from the
// environment by plugin_options_from_environment (plugin_options.cpp).
#pragma once

#include <cstdint>
#include <stdexcept>

namespace accucheck {

// A plugin that cannot be loaded: the message names the file and what is wrong.
struct PluginError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class PluginIsolation { worker, fork_per_call, in_process };

struct PluginOptions {
  PluginIsolation isolation = PluginIsolation::worker;
  double timeout_seconds = 60;           // per load and per call, when isolated
  std::uint64_t memory_limit_bytes = 0;  // address space a worker may add; 0: no limit
};

// The options from ACCUCHECK_PLUGIN_ISOLATION, ACCUCHECK_PLUGIN_TIMEOUT and
// ACCUCHECK_PLUGIN_MEMORY (throws PluginError for a value it does not understand).
PluginOptions plugin_options_from_environment();

}  // namespace accucheck
