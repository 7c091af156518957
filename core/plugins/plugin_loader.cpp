#include "plugins/plugin_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "accucheck/plugin.h"
#include "plugins/plugin_worker.h"
#include "plugins/python_worker.h"

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
    for (std::size_t c = 0; c < per_row; ++c)
      store_value(values[r * per_row + c], f, out + (r * row_stride + c * value_stride) * size);
}

void decode_strided(const unsigned char* in, std::size_t rows, std::size_t per_row, std::size_t row_stride,
                    std::size_t value_stride, Format f, std::span<double> out) {
  const std::size_t size = storage_size(f);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < per_row; ++c)
      out[r * per_row + c] = load_value(in + (r * row_stride + c * value_stride) * size, f);
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
    case 0: return Determinism::bitwise_deterministic;  // ACCUCHECK_DETERMINISTIC
    case 1: return Determinism::order_independent;      // ACCUCHECK_ORDER_INDEPENDENT
    default: return Determinism::run_to_run_nondeterministic;
  }
}

void require_storage(const std::string& name, Format storage, Format workload) {
  if (workload != storage)
    throw BackendFailure(name + " stores " + std::string(accucheck::name(storage)) + ", the workload is " +
                         std::string(accucheck::name(workload)));
}

// Runs one call of a guest's backend where its code runs (plugin_worker::call_plugin,
// python_worker::call_backend): `what` names it in failures.
using GuestCall =
    std::function<plugin_worker::CallResult(const std::string& what, const plugin_worker::CallLayout& layout,
                                            const std::function<void(unsigned char* base)>& fill)>;

// A registered backend whose calls go through `call`. `abi`: the version the plugin answered (its
// problem structs have addend_format from 3 on).
Backend make_backend(const GuestCall& call, const BackendDescription& b, int abi, BoundExpr bound,
                     const std::string& origin) {
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
      auto answer = call(what, layout, [&](unsigned char* base) {
        encode_strided(w.initial.data(), 1, w.elements, 0, strides.buffer, strides.buffer_span, storage, kBufferGapByte,
                       base + layout.buffer_offset);
        encode_strided(w.addends.data(), w.steps, w.elements, strides.step, strides.element, strides.addend_span, input,
                       kInputGapByte, base + layout.inputs_offset);
      });
      *output = std::move(answer.output);
      if (strides.buffer != 1)
        if (auto damage = buffer_gap_damage(answer.buffer, 1, w.elements, 0, strides.buffer, storage); !damage.empty())
          throw BackendFailure(what + " " + damage, FailureKind::overrun);
      decode_strided(answer.buffer.data(), 1, w.elements, 0, strides.buffer, storage, result);
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
      auto answer = call(what, layout, [&](unsigned char* base) {
        encode_strided(w.initial.data(), w.rows, w.dim, strides.table_row, 1, strides.table_span, storage,
                       kBufferGapByte, base + layout.buffer_offset);
        for (std::size_t t = 0; t < w.step_offsets.size(); ++t) {
          const size_t offset = w.step_offsets[t];
          std::memcpy(base + layout.inputs_offset + t * sizeof(size_t), &offset, sizeof offset);
        }
        if (!w.row_index.empty())
          std::memcpy(base + layout.index_offset, w.row_index.data(), w.row_index.size() * sizeof(std::uint32_t));
        encode_strided(w.values.data(), pairs, w.dim, strides.value_pair, 1, strides.values_span, input, kInputGapByte,
                       base + layout.values_offset);
      });
      *output = std::move(answer.output);
      if (strides.table_row != w.dim)
        if (auto damage = buffer_gap_damage(answer.buffer, w.rows, w.dim, strides.table_row, 1, storage);
            !damage.empty())
          throw BackendFailure(what + " " + damage, FailureKind::overrun);
      decode_strided(answer.buffer.data(), w.rows, w.dim, strides.table_row, 1, storage, result);
    };
  }
  if (b.product) {
    backend.run_product = [=](const ProductWorkload& w, std::span<double> result, const RunOptions&) {
      output->clear();
      require_storage(name, storage, w.format);
      const Format a_input = fp8_bytes ? w.a_inputs() : storage, b_input = fp8_bytes ? w.b_inputs() : storage;
      const auto layout = plugin_worker::product_layout(w.rows, w.cols, w.batch, w.steps, storage, a_input, b_input);
      const std::string what = name + ": accumulate_product";
      auto answer = call(what, layout, [&](unsigned char* base) {
        encode_strided(w.initial.data(), 1, w.elements(), 0, 1, w.elements(), storage, 0, base + layout.buffer_offset);
        encode_strided(w.a.data(), 1, w.a.size(), 0, 1, w.a.size(), a_input, 0, base + layout.inputs_offset);
        encode_strided(w.b.data(), 1, w.b.size(), 0, 1, w.b.size(), b_input, 0, base + layout.b_offset);
      });
      *output = std::move(answer.output);
      decode_strided(answer.buffer.data(), 1, w.elements(), 0, 1, storage, result);
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

// Checks every backend the plugin (or Python file) described; returns them ready to register, each
// calling `call_of(its index)`.
std::vector<Backend> validate(const std::function<GuestCall(std::size_t index)>& call_of, const std::string& path,
                              const std::string& origin, const PluginDescription& d, const Registry& registry) {
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
      throw PluginError(label + ": name is longer than " + std::to_string(plugin_worker::kMaxNameLength) +
                        " characters");
    if (!valid_backend_name(*b.name))
      throw PluginError(label + ": name '" + *b.name +
                        "' is invalid (letters, digits, '_', '-', '.' only, not empty, not starting with '.' or '-')");
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
    if (!b.dense && !b.sparse && !b.product)
      throw PluginError(
          label + ": accumulate_dense, accumulate_sparse and accumulate_product are all NULL (it runs no workload)");
    backends.push_back(make_backend(call_of(i), b, d.abi, std::move(*bound), origin));
  }
  return backends;
}

}  // namespace

std::vector<std::string> load_plugin(const std::string& path, Registry& registry) {
  return load_plugin(path, plugin_options_from_environment(), registry);
}

namespace {

bool loaded_before(const Registry& registry, const std::string& origin) {
  for (const auto& b : registry.all())
    if (b.origin == origin) return true;
  return false;
}

// Registers a loaded guest's validated backends, with the notes its loading earned: a changed
// floating-point environment (`in_worker`: its calls run in it, as in its users' processes) and
// what it wrote.
std::vector<std::string> register_loaded(std::vector<Backend> backends, const std::string& display,
                                         const std::string& origin, const char* kind, const std::string& fp_change,
                                         const std::string& output, bool in_worker, Registry& registry) {
  const std::string file = std::filesystem::path(origin).filename().string();
  if (!fp_change.empty())
    warning_list().push_back(
        std::string(kind) + " " + file + " changed the floating-point environment while loading: " + fp_change +
        (in_worker
             ? " (built with -ffast-math?); its backends run in that environment, as in the processes of its "
               "users, while accucheck's own arithmetic (another process) stays IEEE's: the verdicts say what it costs"
             : " (built with -ffast-math?); accucheck restored it (ACCUCHECK_PLUGIN_ISOLATION=none), its "
               "backends run in IEEE's default environment"));
  if (!output.empty())
    warning_list().push_back(std::string(kind) + " " + file + " wrote to its output while loading: " + output);
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

// The calls into a guest's backend `index` (call_of for validate): through `call`, the worker's
// entry point, with the guest's id and options.
template <class Id, class Call>
auto calls_into(Id id, const PluginOptions& options, Call call) {
  return [=](std::size_t index) -> GuestCall {
    return
        [=](const std::string& what, const plugin_worker::CallLayout& layout,
            const std::function<void(unsigned char*)>& fill) { return call(id, index, what, options, layout, fill); };
  };
}

// `library` is dlopened; `display` names it in every message and its backends record `library`.
std::vector<std::string> load_library(const std::string& library, const std::string& display,
                                      const PluginOptions& options, Registry& registry) {
  std::lock_guard lock(loader_mutex());
  if (loaded_before(registry, library)) return {};
  auto [id, description] = plugin_worker::open_plugin(display, library, options);
  const auto call_of = calls_into(id, options, &plugin_worker::call_plugin);
  std::vector<Backend> backends;
  try {
    backends = validate(call_of, display, library, description, registry);
  } catch (...) {
    plugin_worker::discard_plugin(id);
    throw;
  }
  plugin_worker::keep_plugin(id);  // from here on the registered backends call it
  return register_loaded(std::move(backends), display, library, "plugin", description.fp_change, description.output,
                         options.isolation != PluginIsolation::in_process, registry);
}

// A Python file's backends as a plugin's description (the decorator checked their fields).
PluginDescription as_plugin_description(const python_worker::FileDescription& file) {
  static const std::map<std::string, int> formats = {
      {"f64", ACCUCHECK_F64}, {"f32", ACCUCHECK_F32}, {"f16", ACCUCHECK_F16}, {"bf16", ACCUCHECK_BF16}};
  static const std::map<std::string, int> classes = {{"deterministic", ACCUCHECK_DETERMINISTIC},
                                                     {"order_independent", ACCUCHECK_ORDER_INDEPENDENT},
                                                     {"nondeterministic", ACCUCHECK_NONDETERMINISTIC}};
  const auto code = [](const std::map<std::string, int>& codes, const std::string& key) {
    const auto it = codes.find(key);
    return it == codes.end() ? -1 : it->second;
  };
  PluginDescription d;
  d.abi = ACCUCHECK_PLUGIN_ABI;
  d.fp_change = file.fp_change;
  d.output = file.output;
  for (const auto& served : file.backends) {
    BackendDescription b;
    b.name = served.name;
    b.bound = served.bound;
    b.storage = code(formats, served.storage);
    b.accumulation = code(formats, served.accumulation);
    b.determinism = code(classes, served.determinism);
    b.dense = served.kind == "dense";
    b.sparse = served.kind == "sparse";
    b.product = served.kind == "product";
    b.layouts = served.fp8_inputs ? ACCUCHECK_ACCEPTS_FP8_INPUTS : 0;
    d.backends.push_back(std::move(b));
  }
  return d;
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
  return load_library(absolute, path, options, registry);
}

std::vector<std::string> load_python_file(const std::string& path, const PluginOptions& options, Registry& registry) {
  const std::string file = existing_file(path, "Python file");
  std::lock_guard lock(loader_mutex());
  if (loaded_before(registry, file)) return {};
  auto [id, served] = python_worker::open_file(path, file, options);
  if (served.backends.empty())
    throw PluginError(path + ": registered no backends (decorate a function with @accucheck.backend)" +
                      (served.output.empty() ? "" : "; it wrote: " + served.output));
  const auto call_of = calls_into(id, options, &python_worker::call_backend);
  std::vector<Backend> backends;
  try {
    backends = validate(call_of, path, file, as_plugin_description(served), registry);
  } catch (const PluginError& e) {
    // What it wrote while loading often says why.
    if (served.output.empty()) throw;
    throw PluginError(std::string(e.what()) + "; it wrote: " + served.output);
  }
  const std::string versions = " (Python " + served.python + ", " + served.libraries + ": " + served.executable + ")";
  for (auto& b : backends) b.summary += versions;
  return register_loaded(std::move(backends), path, file, "Python file", served.fp_change, served.output, true,
                         registry);
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
