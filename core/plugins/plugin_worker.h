// Where plugin code runs (internal to core; plugin_loader.cpp is its one user).
//
// In the default isolation no plugin is ever loaded into accucheck's own process: a worker
// process (forked from it) loads every plugin, describes what accucheck_plugin_backends returned,
// and runs the calls. Whatever a plugin does while loading or running (crash, exit(0), hang,
// print, allocate without bound, switch on flush-to-zero) happens to the worker:
//  * its stdin is /dev/null, its stdout and stderr a pipe the parent reads, keeping the first
//    guest::kCapturedBytes of each load or call for the message that reports it;
//  * loads and calls end at the time-out (and calls at the campaign's deadline, see
//    plugin_loader.h); the worker is killed and the next call starts a new one that loads the
//    plugins again;
//  * its address space may grow by at most PluginOptions::memory_limit_bytes beyond what it had
//    once its plugins were loaded and the call's region mapped (RLIMIT_AS, soft);
//  * the floating-point environment is IEEE's default before every load; a plugin whose loading
//    changes it is named in a note for the user, and its calls run in the environment its loading
//    left (flush-to-zero from a -ffast-math constructor is what its users' processes get too);
//    a call that changes it further is that call's failure.
// PluginIsolation::in_process loads into accucheck's own process instead (for debuggers), with
// the environment saved and restored around the load; nothing else is contained.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checking/workload.h"
#include "plugins/guest_process.h"
#include "plugins/plugin_loader.h"

namespace accucheck::plugin_worker {

inline constexpr std::size_t kMaxBackendsPerPlugin = 4096;
inline constexpr std::size_t kMaxNameLength = 128;
inline constexpr std::size_t kMaxBoundLength = 1024;

// One entry of the array accucheck_plugin_backends returned, read where the plugin's code runs
// (a garbage pointer crashes the worker, not accucheck). Strings are bounded: longer ones are
// flagged, not read on.
struct BackendDescription {
  std::optional<std::string> name;  // nullopt: the pointer was NULL
  bool name_too_long = false;
  std::optional<std::string> bound;  // stated_bound; nullopt: NULL
  bool bound_too_long = false;
  std::int32_t storage = 0, accumulation = 0, determinism = 0;  // as the plugin stored them
  bool dense = false, sparse = false, product = false;          // which functions are non-NULL (product: ABI 4)
  std::uint32_t layouts = 0;                                    // ABI 2's layouts bits (0 for a version 1 plugin)
};

struct PluginDescription {
  enum class Status : std::uint32_t { ok, cannot_load, missing_symbol, abi_refused, no_backends, too_many };
  Status status = Status::ok;
  std::string detail;  // dlerror()'s text, or the count returned
  std::vector<BackendDescription> backends;
  int abi = 0;            // the ABI version it accepted (the newest it did not return NULL for)
  std::string fp_change;  // how loading changed the floating-point environment ("" if it did not); restored
  std::string output;     // what it wrote to stdout/stderr while loading, escaped (guest::output_summary)
};

// A plugin loaded provisionally by open_plugin: kept (its backends registered) or discarded.
using PluginId = std::size_t;

// Loads the library where its code will run (a worker, or this process for in_process) and
// describes it. Throws PluginError naming `display_path` when it crashes, exits or hangs while
// loading. The plugin stays provisional until keep_plugin or discard_plugin.
std::pair<PluginId, PluginDescription> open_plugin(const std::string& display_path, const std::string& absolute_path,
                                                   const PluginOptions& options);
void keep_plugin(PluginId id);
void discard_plugin(PluginId id);

// The memory of one call: [header][guard][result buffer][guard][inputs...], parts 64-byte
// aligned. Dense inputs: the addends. Sparse: step offsets, row indices, values. Product: A at
// inputs_offset, B at b_offset (the result buffer is C). The buffer and the values span what their
// strides (ABI 2, in values) make them span.
struct CallLayout {
  bool sparse = false;
  bool product = false;
  std::uint64_t elements = 0, steps = 0, rows = 0, dim = 0, pairs = 0;
  std::uint64_t cols = 0, batch = 0;  // product: C is rows x cols, A_t rows x batch, B_t batch x cols
  std::uint64_t buffer_offset = 0, buffer_bytes = 0, inputs_offset = 0, index_offset = 0, values_offset = 0, total = 0;
  std::uint64_t b_offset = 0;                                                         // product
  std::int64_t addend_step_stride = 0, addend_element_stride = 0, buffer_stride = 0;  // dense
  std::int64_t table_row_stride = 0, value_pair_stride = 0;                           // sparse
  Format input_format = Format::f32;    // the addends' or pair values' format (ABI 3); A's for a product
  Format b_input_format = Format::f32;  // product: B's format
};
// `storage` is the buffer's format, `input` the addends' or values' (the storage format, or FP8).
CallLayout dense_layout(std::size_t elements, std::size_t steps, Format storage, Format input,
                        const DenseStrides& strides);
CallLayout sparse_layout(std::size_t rows, std::size_t dim, std::size_t steps, std::size_t pairs, Format storage,
                         Format input, const SparseStrides& strides);
// C (rows x cols, row-major) += sum over t of A_t B_t: A as steps*rows*batch values of `a_input`,
// B as steps*batch*cols of `b_input` (ProductWorkload's order), both contiguous.
CallLayout product_layout(std::size_t rows, std::size_t cols, std::size_t batch, std::size_t steps, Format storage,
                          Format a_input, Format b_input);

// The guards around the result buffer: set before a call; "" after it when both are intact, else
// where the guest wrote out of bounds.
void set_guards(const CallLayout& layout, unsigned char* base);
std::string guard_damage(const CallLayout& layout, const unsigned char* base);

struct CallResult {
  std::vector<unsigned char> buffer;  // the result buffer's bytes
  std::string output;                 // what the call wrote to stdout/stderr, escaped ("" if nothing)
};

// Runs backend `index` of plugin `id` on a region that `fill` writes (the initial buffer and the
// inputs at the layout's offsets). Every way the call can fail is a BackendFailure whose message
// starts with `what`; a call cut short by the deadline throws PluginDeadlineReached.
CallResult call_plugin(PluginId id, std::size_t index, const std::string& what, const PluginOptions& options,
                       const CallLayout& layout, const std::function<void(unsigned char* base)>& fill);

}  // namespace accucheck::plugin_worker
