#include "accucheck/plugin_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "accucheck/plugin.h"
#include "plugin_worker.h"

namespace accucheck {
namespace {

using plugin_worker::BackendDescription;
using plugin_worker::PluginDescription;
using plugin_worker::PluginId;

std::mutex& loader_mutex() {
  static std::mutex m;
  return m;
}

std::vector<std::string>& loaded_list() {
  static std::vector<std::string> list;
  return list;
}

std::vector<std::string>& warning_list() {
  static std::vector<std::string> list;
  return list;
}

// ---- values in the storage format (format.h: storage_size, store_value, load_value) -----------

// Values between the strided places. Inputs: all-ones bytes, a NaN in every format, so that a
// backend reading them (one that ignores its strides) gives NaN. The result buffer: a pattern
// that must still be there after the call, 0x01 bytes, a tiny normal value (a subnormal in f16)
// that adding any larger value changes (a large one, 0x5A..., absorbed the ordinary values a
// stride-ignoring sum added to it and kept its bits).
constexpr unsigned char kInputGapByte = 0xFF;
constexpr unsigned char kBufferGapByte = 0x01;

// `rows` rows of `per_row` values: value (r, c) of `values` (row-major) goes to place
// r*row_stride + c*value_stride of `out`; `span_values` places in all, the others filled.
void encode_strided(const double* values, std::size_t rows, std::size_t per_row, std::size_t row_stride,
                    std::size_t value_stride, std::size_t span_values, Format f, unsigned char gap_byte,
                    unsigned char* out) {
  const std::size_t size = storage_size(f);
  const bool dense = per_row == 0 || rows == 0 || (value_stride == 1 && (rows == 1 || row_stride == per_row));
  if (!dense) std::memset(out, gap_byte, span_values * size);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < per_row; ++c) store_value(values[r * per_row + c], f, out + (r * row_stride + c * value_stride) * size);
}

void decode_strided(const unsigned char* in, std::size_t rows, std::size_t per_row, std::size_t row_stride,
                    std::size_t value_stride, Format f, std::span<double> out) {
  const std::size_t size = storage_size(f);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < per_row; ++c) out[r * per_row + c] = load_value(in + (r * row_stride + c * value_stride) * size, f);
}

// Where a strided buffer's gaps were written over ("" if nowhere): a backend that ignores its
// strides writes its results there.
std::string buffer_gap_damage(const std::vector<unsigned char>& buffer, std::size_t rows, std::size_t per_row,
                              std::size_t row_stride, std::size_t value_stride, Format f) {
  const std::size_t size = storage_size(f);
  std::vector<bool> used(buffer.size() / size, false);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < per_row; ++c) used[r * row_stride + c * value_stride] = true;
  for (std::size_t place = 0; place < used.size(); ++place) {
    if (used[place]) continue;
    for (std::size_t k = 0; k < size; ++k)
      if (buffer[place * size + k] != kBufferGapByte)
        return "wrote between the strided places of its result buffer (at value " + std::to_string(place) +
               ", which holds no element: does it ignore its strides?)";
  }
  return "";
}

Determinism to_determinism(long long d) {
  switch (d) {
    case 0: return Determinism::bitwise_deterministic;    // ACCUCHECK_DETERMINISTIC
    case 1: return Determinism::order_independent;        // ACCUCHECK_ORDER_INDEPENDENT
    default: return Determinism::run_to_run_nondeterministic;
  }
}

void require_storage(const std::string& name, Format storage, Format workload) {
  if (workload != storage)
    throw BackendFailure(name + " stores " + std::string(accucheck::name(storage)) + ", the workload is " +
                         std::string(accucheck::name(workload)));
}

// A registered backend calling backend `index` of plugin `id` through plugin_worker.
// `abi`: the version the plugin answered (its problem structs have addend_format from 3 on).
Backend make_backend(PluginId id, std::size_t index, const BackendDescription& b, int abi, BoundExpr bound,
                     const std::string& origin, const PluginOptions& options) {
  Backend backend;
  backend.name = *b.name;
  backend.device = Device::cpu;
  backend.storage = static_cast<Format>(b.storage);
  backend.accumulation = static_cast<Format>(b.accumulation);
  backend.bound = std::move(bound);
  backend.determinism = to_determinism(b.determinism);
  backend.origin = origin;
  backend.summary = std::string(origin_kind(origin) == "python" ? "Python" : "plugin") + " backend from " +
                    std::filesystem::path(origin).filename().string();
  const std::string name = backend.name;
  const Format storage = backend.storage;
  auto output = std::make_shared<std::string>();
  backend.captured_output = [output] { return *output; };
  const bool strided = (b.layouts & ACCUCHECK_ACCEPTS_STRIDES) != 0;
  backend.accepts_strides = strided;
  // FP8 gradients as FP8 bytes where the backend asks for them; else as storage-format values.
  const bool fp8_bytes = abi >= 3 && (b.layouts & ACCUCHECK_ACCEPTS_FP8_INPUTS) != 0;
  if (b.dense) {
    backend.run_dense = [=](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
      output->clear();
      require_storage(name, storage, w.format);
      const auto strides = dense_strides(strided ? w.layout : DenseLayout{}, w.elements, w.steps);
      const Format input = fp8_bytes ? w.addend_format() : storage;
      const auto layout = plugin_worker::dense_layout(w.elements, w.steps, storage, input, strides);
      const std::string what = name + ": accumulate_dense";
      auto call = plugin_worker::call_plugin(id, index, what, options, layout, [&](unsigned char* base) {
        encode_strided(w.initial.data(), 1, w.elements, 0, strides.buffer, strides.buffer_span, storage, kBufferGapByte,
                       base + layout.buffer_offset);
        encode_strided(w.addends.data(), w.steps, w.elements, strides.step, strides.element, strides.addend_span, input,
                       kInputGapByte, base + layout.inputs_offset);
      });
      *output = std::move(call.output);
      if (strides.buffer != 1)
        if (auto damage = buffer_gap_damage(call.buffer, 1, w.elements, 0, strides.buffer, storage); !damage.empty())
          throw BackendFailure(what + " " + damage, FailureKind::overrun);
      decode_strided(call.buffer.data(), 1, w.elements, 0, strides.buffer, storage, result);
    };
  }
  if (b.sparse) {
    backend.run_sparse = [=](const SparseWorkload& w, std::span<double> result, const RunOptions&) {
      output->clear();
      require_storage(name, storage, w.format);
      const std::size_t pairs = w.row_index.size();
      const auto strides = sparse_strides(strided ? w.layout : SparseLayout{}, w.rows, w.dim, pairs);
      const Format input = fp8_bytes ? w.value_format() : storage;
      const auto layout = plugin_worker::sparse_layout(w.rows, w.dim, w.steps, pairs, storage, input, strides);
      const std::string what = name + ": accumulate_sparse";
      auto call = plugin_worker::call_plugin(id, index, what, options, layout, [&](unsigned char* base) {
        encode_strided(w.initial.data(), w.rows, w.dim, strides.table_row, 1, strides.table_span, storage, kBufferGapByte,
                       base + layout.buffer_offset);
        for (std::size_t t = 0; t < w.step_offsets.size(); ++t) {
          const size_t offset = w.step_offsets[t];
          std::memcpy(base + layout.inputs_offset + t * sizeof(size_t), &offset, sizeof offset);
        }
        if (!w.row_index.empty())
          std::memcpy(base + layout.index_offset, w.row_index.data(), w.row_index.size() * sizeof(std::uint32_t));
        encode_strided(w.values.data(), pairs, w.dim, strides.value_pair, 1, strides.values_span, input, kInputGapByte,
                       base + layout.values_offset);
      });
      *output = std::move(call.output);
      if (strides.table_row != w.dim)
        if (auto damage = buffer_gap_damage(call.buffer, w.rows, w.dim, strides.table_row, 1, storage); !damage.empty())
          throw BackendFailure(what + " " + damage, FailureKind::overrun);
      decode_strided(call.buffer.data(), w.rows, w.dim, strides.table_row, 1, storage, result);
    };
  }
  return backend;
}


std::string format_range_error(const char* field, long long value) {
  if (value == ACCUCHECK_E4M3 || value == ACCUCHECK_E5M2)
    return std::string(field) + " is " + std::to_string(value) + " (" + (value == ACCUCHECK_E4M3 ? "E4M3" : "E5M2") +
           "), an input format only: FP8 gradients reach a backend with ACCUCHECK_ACCEPTS_FP8_INPUTS as addend_format "
           "(ABI 3); storage and accumulation are 0 f64, 1 f32, 2 f16 or 3 bf16";
  return std::string(field) + " is " + std::to_string(value) + ", not a format (0 f64, 1 f32, 2 f16, 3 bf16)";
}

// Checks every backend the plugin described; returns them ready to register.
std::vector<Backend> validate(PluginId id, const std::string& path, const std::string& origin, const PluginDescription& d,
                              const Registry& registry, const PluginOptions& options) {
  using Status = PluginDescription::Status;
  switch (d.status) {
    case Status::ok: break;
    case Status::cannot_load: throw PluginError(path + ": cannot load: " + d.detail);
    case Status::missing_symbol:
      throw PluginError(path + ": does not export accucheck_plugin_backends (the one symbol of accucheck/plugin.h)");
    case Status::abi_refused:
      throw PluginError(path + ": accucheck_plugin_backends returned NULL for ABI versions " +
                        std::to_string(ACCUCHECK_PLUGIN_ABI) + " to 1: the plugin supports none of them");
    case Status::no_backends: throw PluginError(path + ": accucheck_plugin_backends returned no backends (count 0)");
    case Status::too_many:
      throw PluginError(path + ": accucheck_plugin_backends returned count " + d.detail + " (at most " +
                        std::to_string(plugin_worker::kMaxBackendsPerPlugin) + ")");
  }
  std::vector<Backend> backends;
  std::set<std::string> names;
  for (std::size_t i = 0; i < d.backends.size(); ++i) {
    const BackendDescription& b = d.backends[i];
    std::string label = path + ": backend #" + std::to_string(i);
    if (!b.name) throw PluginError(label + ": name is NULL");
    if (b.name_too_long)
      throw PluginError(label + ": name is longer than " + std::to_string(plugin_worker::kMaxNameLength) + " characters");
    if (!valid_backend_name(*b.name))
      throw PluginError(label + ": name '" + *b.name + "' is invalid (letters, digits, '_', '-', '.' only, not empty, not starting with '.' or '-')");
    label = path + ": backend '" + *b.name + "'";
    if (!names.insert(*b.name).second) throw PluginError(label + ": name is used by two backends of this plugin");
    if (const Backend* other = registry.find(*b.name))
      throw PluginError(label + ": name is already registered" +
                        (other->origin == "builtin" ? " (a built-in backend)" : " (by plugin " + other->origin + ")"));
    if (b.storage < 0 || b.storage > 3) throw PluginError(label + ": " + format_range_error("storage", b.storage));
    if (b.accumulation < 0 || b.accumulation > 3)
      throw PluginError(label + ": " + format_range_error("accumulation", b.accumulation));
    if (b.determinism < 0 || b.determinism > 2)
      throw PluginError(label + ": determinism is " + std::to_string(b.determinism) +
                        ", not a class (0 deterministic, 1 order-independent, 2 nondeterministic)");
    if (!b.bound) throw PluginError(label + ": stated_bound is NULL");
    if (b.bound_too_long)
      throw PluginError(label + ": stated_bound is longer than " + std::to_string(plugin_worker::kMaxBoundLength) +
                        " characters");
    std::string error;
    auto bound = parse_bound(*b.bound, &error);
    if (!bound) throw PluginError(label + ": stated_bound '" + *b.bound + "' is not a bound expression: " + error);
    if (!b.dense && !b.sparse)
      throw PluginError(label + ": accumulate_dense and accumulate_sparse are both NULL (it runs no workload)");
    backends.push_back(make_backend(id, i, b, d.abi, std::move(*bound), origin, options));
  }
  return backends;
}

}  // namespace

std::vector<std::string> load_plugin(const std::string& path, Registry& registry) {
  return load_plugin(path, plugin_options_from_environment(), registry);
}

namespace {

// What load_plugin and load_served_backends share: `library` is dlopened (with `argument` in the
// environment while it loads); `display` names it in every message and `origin` is what its
// backends record (the library itself, or the file it serves).
std::vector<std::string> load_library(const std::string& library, const std::string& display, const std::string& origin,
                                      const std::string& argument, const PluginOptions& options, Registry& registry) {
  namespace fs = std::filesystem;
  std::lock_guard lock(loader_mutex());
  // Loaded before into this registry: its backends are there, with this origin.
  for (const auto& b : registry.all())
    if (b.origin == origin) return {};

  auto [id, description] = plugin_worker::open_plugin(display, library, options, argument);
  std::vector<Backend> backends;
  try {
    backends = validate(id, display, origin, description, registry, options);
  } catch (const PluginError& e) {
    plugin_worker::discard_plugin(id);
    // What it wrote while loading often says why (a served Python file's traceback).
    if (description.output.empty()) throw;
    throw PluginError(std::string(e.what()) + "; it wrote: " + description.output);
  } catch (...) {
    plugin_worker::discard_plugin(id);
    throw;
  }
  plugin_worker::keep_plugin(id);  // from here on the registered backends call it
  const std::string file = fs::path(origin).filename().string();
  if (!description.fp_change.empty())
    warning_list().push_back("plugin " + file + " changed the floating-point environment while loading: " +
                             description.fp_change +
                             " (built with -ffast-math?); accucheck restored it, its backends run in IEEE's default "
                             "environment");
  if (!description.output.empty())
    warning_list().push_back("plugin " + file + " wrote to its output while loading: " + description.output);
  std::vector<std::string> names;
  for (auto& b : backends) {
    names.push_back(b.name);
    try {
      registry.add(std::move(b));
    } catch (const std::exception& e) {
      throw PluginError(display + ": " + e.what());
    }
  }
  if (std::find(loaded_list().begin(), loaded_list().end(), origin) == loaded_list().end())
    loaded_list().push_back(origin);
  return names;
}

// The absolute path of an existing file, or a PluginError naming it.
std::string existing_file(const std::string& path, const char* expected) {
  namespace fs = std::filesystem;
  if (path.empty()) throw PluginError(std::string(expected) + " path is empty");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw PluginError(path + ": no such file");
  if (fs::is_directory(st)) throw PluginError(path + ": is a directory, not a " + expected);
  return fs::absolute(path, ec).lexically_normal().string();
}

}  // namespace

std::vector<std::string> load_plugin(const std::string& path, const PluginOptions& options, Registry& registry) {
  const std::string absolute = existing_file(path, "shared library");
  return load_library(absolute, path, absolute, "", options, registry);
}

std::vector<std::string> load_served_backends(const std::string& loader_library, const std::string& served_file,
                                              const PluginOptions& options, Registry& registry) {
  const std::string served = existing_file(served_file, "file");
  const std::string library = existing_file(loader_library, "loader library");
  return load_library(library, served_file, served, served, options, registry);
}

std::size_t load_plugins_from_environment() {
  const char* value = std::getenv("ACCUCHECK_PLUGINS");
  if (!value || !*value) return 0;
  const std::string list = value;
  std::size_t registered = 0;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(':', start), list.size());
    const std::string path = list.substr(start, end - start);
    if (!path.empty()) {
      try {
        registered += load_plugin(path).size();
      } catch (const PluginError& e) {
        throw PluginError(std::string("ACCUCHECK_PLUGINS: ") + e.what());
      }
    }
    start = end + 1;
  }
  return registered;
}

std::vector<std::string> loaded_plugins() {
  std::lock_guard lock(loader_mutex());
  return loaded_list();
}

std::vector<std::string> plugin_warnings() {
  std::lock_guard lock(loader_mutex());
  return warning_list();
}

}  // namespace accucheck
