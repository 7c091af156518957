// The plugin options a process takes from its environment: ACCUCHECK_PLUGIN_ISOLATION,
// ACCUCHECK_PLUGIN_TIMEOUT and ACCUCHECK_PLUGIN_MEMORY (docs/plugins.md), each refused with a
// PluginError naming the variable when it does not parse.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "plugins/plugin_options.h"

namespace accucheck {
namespace {

double parse_timeout(const char* text) {
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (!*text || *end || !(seconds > 0) || seconds > 86400)
    throw PluginError(std::string("ACCUCHECK_PLUGIN_TIMEOUT: '") + text + "' is not a number of seconds in (0, 86400]");
  return seconds;
}

// "4G", "512M", "1.5G", "1048576", "none" (0: no limit).
std::uint64_t parse_memory(const char* text) {
  const std::string value = text;
  if (value == "none") return 0;
  char* end = nullptr;
  const double number = std::strtod(text, &end);
  double unit = 1;
  const std::string suffix = end ? end : "";
  if (suffix == "K" || suffix == "k")
    unit = 1024.0;
  else if (suffix == "M" || suffix == "m")
    unit = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g")
    unit = 1024.0 * 1024 * 1024;
  else if (suffix == "T" || suffix == "t")
    unit = 1024.0 * 1024 * 1024 * 1024;
  else if (!suffix.empty())
    unit = -1;
  const double bytes = number * unit;
  if (value.empty() || end == text || unit < 0 || !(bytes >= 1 << 20) || bytes > 0x1p62)
    throw PluginError("ACCUCHECK_PLUGIN_MEMORY: '" + value +
                      "' is not a size of at least 1M (bytes, or a number with K, M, G or T), or 'none'");
  return static_cast<std::uint64_t>(bytes);
}

std::uint64_t default_memory_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 2;
}

}  // namespace

PluginOptions plugin_options_from_environment() {
  PluginOptions options;
  options.memory_limit_bytes = default_memory_limit();
  if (const char* isolation = std::getenv("ACCUCHECK_PLUGIN_ISOLATION"); isolation && *isolation) {
    const std::string value = isolation;
    if (value == "worker")
      options.isolation = PluginIsolation::worker;
    else if (value == "fork")
      options.isolation = PluginIsolation::fork_per_call;
    else if (value == "none")
      options.isolation = PluginIsolation::in_process;
    else
      throw PluginError("ACCUCHECK_PLUGIN_ISOLATION: '" + value + "' is not worker, fork or none");
  }
  if (const char* timeout = std::getenv("ACCUCHECK_PLUGIN_TIMEOUT"); timeout && *timeout)
    options.timeout_seconds = parse_timeout(timeout);
  if (const char* memory = std::getenv("ACCUCHECK_PLUGIN_MEMORY"); memory && *memory)
    options.memory_limit_bytes = parse_memory(memory);
  return options;
}

}  // namespace accucheck
