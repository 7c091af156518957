#include "accucheck/plugin_loader.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "accucheck/plugin.h"

namespace accucheck {
namespace {

constexpr std::size_t kMaxBackendsPerPlugin = 4096;
constexpr std::size_t kMaxNameLength = 128;
constexpr std::size_t kMaxBoundLength = 1024;
constexpr std::size_t kGuardBytes = 64;
constexpr unsigned char kGuardByte = 0xA5;

using BackendsFunction = const accucheck_backend* (*)(int, size_t*);

std::mutex& loader_mutex() {
  static std::mutex m;
  return m;
}

std::vector<std::string>& loaded_list() {
  static std::vector<std::string> list;
  return list;
}

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* description = strsignal(sig);
  std::string text = abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
  if (description) text += std::string(" (") + description + ")";
  return text;
}

// In a child about to call plugin code: crashes end the child with their signal, whatever
// handlers the parent installed (sanitizers, libFuzzer), so the parent can name the signal.
void default_crash_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) {
    std::signal(sig, SIG_DFL);
    sigaddset(&set, sig);
  }
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

// ---- values in the storage format -----------------------------------------------------------

std::size_t item_size(Format f) {
  switch (f) {
    case Format::f64: return 8;
    case Format::f32: return 4;
    case Format::f16:
    case Format::bf16: return 2;
  }
  return 8;
}

void encode_values(const double* values, std::size_t count, Format f, unsigned char* out) {
  const std::size_t size = item_size(f);
  for (std::size_t i = 0; i < count; ++i) {
    if (f == Format::f64) {
      std::memcpy(out + i * size, &values[i], 8);
    } else if (f == Format::f32) {
      const float x = static_cast<float>(values[i]);  // exact: the value is an f32 value
      std::memcpy(out + i * size, &x, 4);
    } else {
      const auto bits = static_cast<std::uint16_t>(encode(values[i], f));
      std::memcpy(out + i * size, &bits, 2);
    }
  }
}

void decode_values(const unsigned char* in, std::size_t count, Format f, std::span<double> out) {
  const std::size_t size = item_size(f);
  for (std::size_t i = 0; i < count; ++i) {
    if (f == Format::f64) {
      std::memcpy(&out[i], in + i * size, 8);
    } else if (f == Format::f32) {
      float x;
      std::memcpy(&x, in + i * size, 4);
      out[i] = static_cast<double>(x);
    } else {
      std::uint16_t bits;
      std::memcpy(&bits, in + i * size, 2);
      out[i] = decode(bits, f);
    }
  }
}

// ---- calling into a plugin ------------------------------------------------------------------

// The memory a call writes: [status][guard][buffer][guard]. Shared with the child in
// fork_per_call mode, so that the parent sees the buffer and the status the child wrote.
struct CallStatus {
  volatile int finished;
  volatile int rc;
};

class CallRegion {
 public:
  CallRegion(std::size_t buffer_bytes, bool shared) : buffer_bytes_(buffer_bytes) {
    size_ = kGuardBytes + kGuardBytes + buffer_bytes + kGuardBytes;  // the first block holds the status
    if (shared) {
      void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw BackendFailure(std::string("cannot map shared memory for a plugin call: ") + std::strerror(errno));
      base_ = static_cast<unsigned char*>(p);
      mapped_ = true;
    } else {
      owned_.assign(size_, 0);
      base_ = owned_.data();
    }
    std::memset(base_, 0, kGuardBytes);
    std::memset(base_ + kGuardBytes, kGuardByte, kGuardBytes);
    std::memset(buffer() + buffer_bytes_, kGuardByte, kGuardBytes);
  }
  ~CallRegion() {
    if (mapped_) munmap(base_, size_);
  }
  CallRegion(const CallRegion&) = delete;
  CallRegion& operator=(const CallRegion&) = delete;

  CallStatus* status() { return reinterpret_cast<CallStatus*>(base_); }
  unsigned char* buffer() { return base_ + 2 * kGuardBytes; }
  // "" when both guards are intact, else where the plugin wrote out of bounds.
  std::string guard_damage() const {
    const unsigned char* before = base_ + kGuardBytes;
    const unsigned char* after = base_ + 2 * kGuardBytes + buffer_bytes_;
    const bool front = std::any_of(before, before + kGuardBytes, [](unsigned char c) { return c != kGuardByte; });
    const bool back = std::any_of(after, after + kGuardBytes, [](unsigned char c) { return c != kGuardByte; });
    if (front && back) return "wrote outside its result buffer (before its start and past its end)";
    if (front) return "wrote before the start of its result buffer";
    if (back) return "wrote past the end of its result buffer";
    return "";
  }

 private:
  std::size_t buffer_bytes_, size_ = 0;
  unsigned char* base_ = nullptr;
  bool mapped_ = false;
  std::vector<unsigned char> owned_;
};

// Runs `call(buffer)` (the plugin's accumulate function on a problem whose result buffer is
// `buffer`) with `initial` copied into the buffer first; returns the buffer's bytes after.
// Every way the call can fail becomes a BackendFailure naming the backend and the function.
template <class Call>
std::vector<unsigned char> call_plugin(const std::string& what, const PluginOptions& options,
                                       const std::vector<unsigned char>& initial, Call call) {
  const bool fork_call = options.isolation == PluginIsolation::fork_per_call;
  CallRegion region(initial.size(), fork_call);
  std::memcpy(region.buffer(), initial.data(), initial.size());
  CallStatus* status = region.status();
  if (!fork_call) {
    status->rc = call(region.buffer());
    status->finished = 1;
  } else {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0)
      throw BackendFailure(what + ": cannot create a pipe: " + std::strerror(errno));
    std::fflush(nullptr);  // no buffered output duplicated into the child
    const pid_t pid = fork();
    if (pid < 0) {
      close(pipe_fds[0]);
      close(pipe_fds[1]);
      throw BackendFailure(what + ": cannot fork: " + std::strerror(errno));
    }
    if (pid == 0) {
      close(pipe_fds[0]);
      default_crash_signals();
      const int rc = call(region.buffer());
      status->rc = rc;
      status->finished = 1;
      _exit(0);
    }
    close(pipe_fds[1]);
    // The pipe's write end closes when the child ends, however it ends.
    pollfd pfd{pipe_fds[0], POLLIN, 0};
    const double ms = std::min(options.timeout_seconds * 1000.0, 2.0e9);
    int ready;
    do ready = poll(&pfd, 1, static_cast<int>(ms));
    while (ready < 0 && errno == EINTR);
    close(pipe_fds[0]);
    if (ready == 0) kill(pid, SIGKILL);
    int wstatus = 0;
    pid_t waited;
    do waited = waitpid(pid, &wstatus, 0);
    while (waited < 0 && errno == EINTR);
    if (ready == 0) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", options.timeout_seconds);
      throw BackendFailure(what + " timed out after " + seconds + " s (killed; ACCUCHECK_PLUGIN_TIMEOUT sets the limit)");
    }
    if (waited == pid && WIFSIGNALED(wstatus))
      throw BackendFailure(what + " crashed with " + signal_text(WTERMSIG(wstatus)));
    if (!status->finished) {
      if (waited == pid && WIFEXITED(wstatus))
        throw BackendFailure(what + " exited the process (status " + std::to_string(WEXITSTATUS(wstatus)) +
                             ") instead of returning");
      throw BackendFailure(what + " did not return");
    }
  }
  if (status->rc != 0) throw BackendFailure(what + " returned " + std::to_string(status->rc) + " (an error)");
  if (auto damage = region.guard_damage(); !damage.empty()) throw BackendFailure(what + " " + damage);
  return std::vector<unsigned char>(region.buffer(), region.buffer() + initial.size());
}

// An enum field as the integer the plugin stored (it may be outside the enum's values, which
// C++ must not load as the enum type).
template <class Enum>
long long raw_enum(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums of plugin.h are int-sized");
  int raw;
  std::memcpy(&raw, &field, sizeof raw);
  return raw;
}

Determinism to_determinism(long long d) {
  switch (d) {
    case ACCUCHECK_DETERMINISTIC: return Determinism::bitwise_deterministic;
    case ACCUCHECK_ORDER_INDEPENDENT: return Determinism::order_independent;
    default: return Determinism::run_to_run_nondeterministic;
  }
}

Backend make_backend(const accucheck_backend& b, BoundExpr bound, const std::string& origin, const PluginOptions& options) {
  Backend backend;
  backend.name = b.name;
  backend.device = Device::cpu;
  backend.storage = static_cast<Format>(raw_enum(b.storage));
  backend.accumulation = static_cast<Format>(raw_enum(b.accumulation));
  backend.bound = std::move(bound);
  backend.determinism = to_determinism(raw_enum(b.determinism));
  backend.origin = origin;
  backend.summary = "plugin backend from " + std::filesystem::path(origin).filename().string();
  const std::string name = backend.name;
  const Format storage = backend.storage;
  if (auto* fn = b.accumulate_dense) {
    backend.run_dense = [fn, name, storage, options](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
      if (w.format != storage)
        throw BackendFailure(name + " stores " + std::string(accucheck::name(storage)) + ", the workload is " +
                             std::string(accucheck::name(w.format)));
      const std::size_t size = item_size(storage);
      std::vector<unsigned char> addends(w.addends.size() * size), initial(w.elements * size);
      encode_values(w.addends.data(), w.addends.size(), storage, addends.data());
      encode_values(w.initial.data(), w.elements, storage, initial.data());
      const auto out = call_plugin(name + ": accumulate_dense", options, initial, [&](unsigned char* buffer) {
        accucheck_dense_problem problem{w.elements, w.steps, addends.data(), buffer};
        return fn(&problem);
      });
      decode_values(out.data(), w.elements, storage, result);
    };
  }
  if (auto* fn = b.accumulate_sparse) {
    backend.run_sparse = [fn, name, storage, options](const SparseWorkload& w, std::span<double> result, const RunOptions&) {
      if (w.format != storage)
        throw BackendFailure(name + " stores " + std::string(accucheck::name(storage)) + ", the workload is " +
                             std::string(accucheck::name(w.format)));
      const std::size_t size = item_size(storage);
      std::vector<unsigned char> values(w.values.size() * size), initial(w.rows * w.dim * size);
      encode_values(w.values.data(), w.values.size(), storage, values.data());
      encode_values(w.initial.data(), w.rows * w.dim, storage, initial.data());
      const std::vector<size_t> offsets(w.step_offsets.begin(), w.step_offsets.end());
      const auto out = call_plugin(name + ": accumulate_sparse", options, initial, [&](unsigned char* table) {
        accucheck_sparse_problem problem{w.rows, w.dim, w.steps, offsets.data(), w.row_index.data(), values.data(), table};
        return fn(&problem);
      });
      decode_values(out.data(), w.rows * w.dim, storage, result);
    };
  }
  return backend;
}

std::string format_range_error(const char* field, long long value) {
  return std::string(field) + " is " + std::to_string(value) + ", not a format (0 f64, 1 f32, 2 f16, 3 bf16)";
}

// Reads a C string the plugin handed over, at most `limit` characters; nullopt if longer.
std::optional<std::string> bounded_string(const char* s, std::size_t limit) {
  const std::size_t length = strnlen(s, limit + 1);
  if (length > limit) return std::nullopt;
  return std::string(s, length);
}

// Checks every backend the plugin returned; returns them ready to register.
std::vector<Backend> validate(const std::string& path, const std::string& origin, const accucheck_backend* list,
                              std::size_t count, const Registry& registry, const PluginOptions& options) {
  std::vector<Backend> backends;
  std::set<std::string> names;
  for (std::size_t i = 0; i < count; ++i) {
    const accucheck_backend& b = list[i];
    std::string label = path + ": backend #" + std::to_string(i);
    if (!b.name) throw PluginError(label + ": name is NULL");
    const auto name = bounded_string(b.name, kMaxNameLength);
    if (!name) throw PluginError(label + ": name is longer than " + std::to_string(kMaxNameLength) + " characters");
    if (!valid_backend_name(*name))
      throw PluginError(label + ": name '" + *name + "' is invalid (letters, digits, '_', '-', '.' only, not empty)");
    label = path + ": backend '" + *name + "'";
    if (!names.insert(*name).second) throw PluginError(label + ": name is used by two backends of this plugin");
    if (const Backend* other = registry.find(*name))
      throw PluginError(label + ": name is already registered" +
                        (other->origin == "builtin" ? " (a built-in backend)" : " (by plugin " + other->origin + ")"));
    const long long storage = raw_enum(b.storage), accumulation = raw_enum(b.accumulation),
                    determinism = raw_enum(b.determinism);
    if (storage < 0 || storage > 3) throw PluginError(label + ": " + format_range_error("storage", storage));
    if (accumulation < 0 || accumulation > 3) throw PluginError(label + ": " + format_range_error("accumulation", accumulation));
    if (determinism < 0 || determinism > 2)
      throw PluginError(label + ": determinism is " + std::to_string(determinism) +
                        ", not a class (0 deterministic, 1 order-independent, 2 nondeterministic)");
    if (!b.stated_bound) throw PluginError(label + ": stated_bound is NULL");
    const auto bound_text = bounded_string(b.stated_bound, kMaxBoundLength);
    if (!bound_text) throw PluginError(label + ": stated_bound is longer than " + std::to_string(kMaxBoundLength) + " characters");
    std::string error;
    auto bound = parse_bound(*bound_text, &error);
    if (!bound) throw PluginError(label + ": stated_bound '" + *bound_text + "' is not a bound expression: " + error);
    if (!b.accumulate_dense && !b.accumulate_sparse)
      throw PluginError(label + ": accumulate_dense and accumulate_sparse are both NULL (it runs no workload)");
    backends.push_back(make_backend(b, std::move(*bound), origin, options));
  }
  return backends;
}

// Loads the library and asks for its backends in a child process first, so that a plugin
// that crashes while loading is reported instead of taking the caller down.
void probe_in_child(const std::string& path, const std::string& absolute) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return;  // cannot probe: load directly
  if (pid == 0) {
    default_crash_signals();
    void* handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) _exit(0);  // the parent reports dlopen's message
    auto fn = reinterpret_cast<BackendsFunction>(dlsym(handle, "accucheck_plugin_backends"));
    if (!fn) _exit(0);
    size_t count = 0;
    const accucheck_backend* list = fn(ACCUCHECK_PLUGIN_ABI, &count);
    volatile std::size_t touched = 0;
    if (list && count <= kMaxBackendsPerPlugin)
      for (std::size_t i = 0; i < count; ++i) {  // read every field the parent will read
        if (list[i].name) touched = touched + strnlen(list[i].name, kMaxNameLength + 1);
        if (list[i].stated_bound) touched = touched + strnlen(list[i].stated_bound, kMaxBoundLength + 1);
      }
    _exit(0);
  }
  int wstatus = 0;
  pid_t waited;
  do waited = waitpid(pid, &wstatus, 0);
  while (waited < 0 && errno == EINTR);
  if (waited == pid && WIFSIGNALED(wstatus))
    throw PluginError(path + ": crashed with " + signal_text(WTERMSIG(wstatus)) +
                      " while loading (in its constructors or in accucheck_plugin_backends)");
  if (waited == pid && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0)
    throw PluginError(path + ": exited the process (status " + std::to_string(WEXITSTATUS(wstatus)) + ") while loading");
}

double parse_timeout(const char* text) {
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (!*text || *end || !(seconds > 0) || seconds > 86400)
    throw PluginError(std::string("ACCUCHECK_PLUGIN_TIMEOUT: '") + text + "' is not a number of seconds in (0, 86400]");
  return seconds;
}

}  // namespace

PluginOptions plugin_options_from_environment() {
  PluginOptions options;
  if (const char* isolation = std::getenv("ACCUCHECK_PLUGIN_ISOLATION"); isolation && *isolation) {
    const std::string value = isolation;
    if (value == "fork") options.isolation = PluginIsolation::fork_per_call;
    else if (value == "none") options.isolation = PluginIsolation::in_process;
    else throw PluginError("ACCUCHECK_PLUGIN_ISOLATION: '" + value + "' is neither 'fork' nor 'none'");
  }
  if (const char* timeout = std::getenv("ACCUCHECK_PLUGIN_TIMEOUT"); timeout && *timeout)
    options.timeout_seconds = parse_timeout(timeout);
  return options;
}

std::vector<std::string> load_plugin(const std::string& path, Registry& registry) {
  return load_plugin(path, plugin_options_from_environment(), registry);
}

std::vector<std::string> load_plugin(const std::string& path, const PluginOptions& options, Registry& registry) {
  namespace fs = std::filesystem;
  if (path.empty()) throw PluginError("plugin path is empty");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw PluginError(path + ": no such file");
  if (fs::is_directory(st)) throw PluginError(path + ": is a directory, not a shared library");
  const std::string absolute = fs::absolute(path, ec).lexically_normal().string();

  std::lock_guard lock(loader_mutex());
  // Loaded before into this registry: its backends are there, with this origin.
  for (const auto& b : registry.all())
    if (b.origin == absolute) return {};

  if (options.isolation == PluginIsolation::fork_per_call) probe_in_child(path, absolute);
  dlerror();
  void* handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw PluginError(path + ": cannot load: " + (why ? why : "dlopen failed"));
  }
  auto fn = reinterpret_cast<BackendsFunction>(dlsym(handle, "accucheck_plugin_backends"));
  if (!fn) {
    dlclose(handle);
    throw PluginError(path + ": does not export accucheck_plugin_backends (the one symbol of accucheck/plugin.h)");
  }
  size_t count = 0;
  const accucheck_backend* list = fn(ACCUCHECK_PLUGIN_ABI, &count);
  std::vector<Backend> backends;
  try {
    if (!list)
      throw PluginError(path + ": accucheck_plugin_backends returned NULL for ABI version " +
                        std::to_string(ACCUCHECK_PLUGIN_ABI) + ": the plugin does not support this ABI");
    if (count == 0) throw PluginError(path + ": accucheck_plugin_backends returned no backends (count 0)");
    if (count > kMaxBackendsPerPlugin)
      throw PluginError(path + ": accucheck_plugin_backends returned count " + std::to_string(count) + " (at most " +
                        std::to_string(kMaxBackendsPerPlugin) + ")");
    backends = validate(path, absolute, list, count, registry, options);
  } catch (...) {
    dlclose(handle);
    throw;
  }
  // Never dlclose from here on: the registered backends hold the plugin's function pointers.
  std::vector<std::string> names;
  for (auto& b : backends) {
    names.push_back(b.name);
    try {
      registry.add(std::move(b));
    } catch (const std::exception& e) {
      throw PluginError(path + ": " + e.what());
    }
  }
  if (std::find(loaded_list().begin(), loaded_list().end(), absolute) == loaded_list().end())
    loaded_list().push_back(absolute);
  return names;
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

}  // namespace accucheck
