// Where plugin code runs (internal to core; plugin_loader.cpp is its one user).
//
// In the default isolation no plugin is ever loaded into accucheck's own process: a worker
// process (forked from it) loads every plugin, describes what accucheck_plugin_backends returned,
// and runs the calls. Whatever a plugin does while loading or running (crash, exit(0), hang,
// print, allocate without bound, switch on flush-to-zero) happens to the worker:
//  * its stdin is /dev/null, its stdout and stderr a pipe the parent reads, keeping the first
//    kCapturedBytes of each load or call for the message that reports it;
//  * loads and calls end at the time-out (and calls at the campaign's deadline, see
//    plugin_loader.h); the worker is killed and the next call starts a new one that loads the
//    plugins again;
//  * its address space may grow by at most PluginOptions::memory_limit_bytes beyond what it had
//    once its plugins were loaded and the call's region mapped (RLIMIT_AS, soft);
//  * the floating-point environment is IEEE's default before every load and call, and a plugin
//    that changes it is named: while loading, a note for the user (its backends then run in the
//    default environment); during a call, that call's failure.
// PluginIsolation::in_process loads into accucheck's own process instead (for debuggers), with
// the environment saved and restored around the load; nothing else is contained.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "accucheck/plugin_loader.h"
#include "accucheck/workload.h"

namespace accucheck::plugin_worker {

inline constexpr std::size_t kMaxBackendsPerPlugin = 4096;
inline constexpr std::size_t kMaxNameLength = 128;
inline constexpr std::size_t kMaxBoundLength = 1024;
inline constexpr std::size_t kCapturedBytes = 4096;

// One entry of the array accucheck_plugin_backends returned, read where the plugin's code runs
// (a garbage pointer crashes the worker, not accucheck). Strings are bounded: longer ones are
// flagged, not read on.
struct BackendDescription {
  std::optional<std::string> name;   // nullopt: the pointer was NULL
  bool name_too_long = false;
  std::optional<std::string> bound;  // stated_bound; nullopt: NULL
  bool bound_too_long = false;
  std::int32_t storage = 0, accumulation = 0, determinism = 0;  // as the plugin stored them
  bool dense = false, sparse = false;                           // which functions are non-NULL
  std::uint32_t layouts = 0;  // ABI 2's layouts bits (0 for a version 1 plugin)
};

struct PluginDescription {
  enum class Status : std::uint32_t { ok, cannot_load, missing_symbol, abi_refused, no_backends, too_many };
  Status status = Status::ok;
  std::string detail;  // dlerror()'s text, or the count returned
  std::vector<BackendDescription> backends;
  int abi = 0;            // the ABI version it accepted (the newest it did not return NULL for)
  std::string fp_change;  // how loading changed the floating-point environment ("" if it did not); restored
  std::string output;     // what it wrote to stdout/stderr while loading, escaped (output_summary)
};

// A plugin loaded provisionally by open_plugin: kept (its backends registered) or discarded.
using PluginId = std::size_t;

// Loads the library where its code will run (a worker, or this process for in_process) and
// describes it. Throws PluginError naming `display_path` when it crashes, exits or hangs while
// loading. The plugin stays provisional until keep_plugin or discard_plugin. A non-empty
// `argument` is the environment variable ACCUCHECK_PLUGIN_ARGUMENT while it loads (and while a new
// worker loads it again): a loader plugin serving another file's backends reads it there.
std::pair<PluginId, PluginDescription> open_plugin(const std::string& display_path, const std::string& absolute_path,
                                                   const PluginOptions& options, const std::string& argument = "");
void keep_plugin(PluginId id);
void discard_plugin(PluginId id);

// The memory of one call: [header][guard][result buffer][guard][inputs...], parts 64-byte
// aligned. Dense inputs: the addends. Sparse: step offsets, row indices, values. The buffer and
// the values span what their strides (ABI 2, in values) make them span.
struct CallLayout {
  bool sparse = false;
  std::uint64_t elements = 0, steps = 0, rows = 0, dim = 0;
  std::uint64_t buffer_offset = 0, buffer_bytes = 0, inputs_offset = 0, index_offset = 0, values_offset = 0, total = 0;
  std::int64_t addend_step_stride = 0, addend_element_stride = 0, buffer_stride = 0;  // dense
  std::int64_t table_row_stride = 0, value_pair_stride = 0;                          // sparse
  Format input_format = Format::f32;  // the addends' or pair values' format (ABI 3)
};
// `storage` is the buffer's format, `input` the addends' or values' (the storage format, or FP8).
CallLayout dense_layout(std::size_t elements, std::size_t steps, Format storage, Format input, const DenseStrides& strides);
CallLayout sparse_layout(std::size_t rows, std::size_t dim, std::size_t steps, std::size_t pairs, Format storage,
                         Format input, const SparseStrides& strides);

struct CallResult {
  std::vector<unsigned char> buffer;  // the result buffer's bytes
  std::string output;                 // what the call wrote to stdout/stderr, escaped ("" if nothing)
};

// Runs backend `index` of plugin `id` on a region that `fill` writes (the initial buffer and the
// inputs at the layout's offsets). Every way the call can fail is a BackendFailure whose message
// starts with `what`; a call cut short by the deadline throws PluginDeadlineReached.
CallResult call_plugin(PluginId id, std::size_t index, const std::string& what, const PluginOptions& options,
                       const CallLayout& layout, const std::function<void(unsigned char* base)>& fill);

// Bytes a program wrote, for a one-line message: printable ASCII kept, everything else escaped
// (\n, \t, \xNN), at most `limit` characters, then "... (N bytes in all)".
std::string output_summary(const std::string& bytes, std::size_t total_bytes, std::size_t limit = 300);

}  // namespace accucheck::plugin_worker
