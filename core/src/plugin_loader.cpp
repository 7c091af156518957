#include "accucheck/plugin_loader.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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
//
// Every call is described by a Request and a region of memory laid out as
//   [header][guard][result buffer][guard][inputs: addends, or step offsets, row indices, values]
// with each part 64-byte aligned. In process, the region is a local allocation. Isolated, it is
// a memfd shared with a worker process: the parent encodes the workload into it, sends the
// Request over a socket, and the worker calls the plugin on the region and answers with the
// return code. The worker is forked once and reused (one fork per call in fork_per_call
// mode); when it dies, hangs or overruns, the call fails and the next call forks a new one.

constexpr std::size_t kAlign = 64;

std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

struct Request {
  std::uint64_t sequence = 0;
  std::uint64_t total = 0;      // bytes of the region
  std::uintptr_t function = 0;  // the plugin's accumulate function (the worker is a fork: same addresses)
  std::uint32_t kind = 0;       // 0 dense, 1 sparse
  std::uint64_t elements = 0, steps = 0, rows = 0, dim = 0;
  std::uint64_t buffer_offset = 0, buffer_bytes = 0, inputs_offset = 0, index_offset = 0, values_offset = 0;
};

struct Response {
  std::uint64_t sequence = 0;
  std::int32_t rc = 0;
};

// Offsets of a dense call: `inputs` holds the addends.
Request dense_request(std::size_t buffer_bytes, std::size_t addends_bytes) {
  Request r;
  r.kind = 0;
  r.buffer_offset = 2 * kAlign;
  r.buffer_bytes = buffer_bytes;
  r.inputs_offset = aligned(r.buffer_offset + buffer_bytes + kGuardBytes);
  r.total = aligned(r.inputs_offset + addends_bytes) + kAlign;
  return r;
}

// Offsets of a sparse call: step offsets, row indices, values.
Request sparse_request(std::size_t buffer_bytes, std::size_t offsets_bytes, std::size_t index_bytes, std::size_t values_bytes) {
  Request r;
  r.kind = 1;
  r.buffer_offset = 2 * kAlign;
  r.buffer_bytes = buffer_bytes;
  r.inputs_offset = aligned(r.buffer_offset + buffer_bytes + kGuardBytes);
  r.index_offset = aligned(r.inputs_offset + offsets_bytes);
  r.values_offset = aligned(r.index_offset + index_bytes);
  r.total = aligned(r.values_offset + values_bytes) + kAlign;
  return r;
}

using DenseFunction = int (*)(const accucheck_dense_problem*);
using SparseFunction = int (*)(const accucheck_sparse_problem*);

// Calls the plugin on a filled region (in the worker, or in process).
int execute(const Request& r, unsigned char* base) {
  if (r.kind == 0) {
    const accucheck_dense_problem problem{r.elements, r.steps, base + r.inputs_offset, base + r.buffer_offset};
    return reinterpret_cast<DenseFunction>(r.function)(&problem);
  }
  const accucheck_sparse_problem problem{r.rows,
                                         r.dim,
                                         r.steps,
                                         reinterpret_cast<const size_t*>(base + r.inputs_offset),
                                         reinterpret_cast<const std::uint32_t*>(base + r.index_offset),
                                         base + r.values_offset,
                                         base + r.buffer_offset};
  return reinterpret_cast<SparseFunction>(r.function)(&problem);
}

void set_guards(const Request& r, unsigned char* base) {
  std::memset(base + r.buffer_offset - kGuardBytes, kGuardByte, kGuardBytes);
  std::memset(base + r.buffer_offset + r.buffer_bytes, kGuardByte, kGuardBytes);
}

// "" when both guards are intact, else where the plugin wrote out of bounds.
std::string guard_damage(const Request& r, const unsigned char* base) {
  const unsigned char* before = base + r.buffer_offset - kGuardBytes;
  const unsigned char* after = base + r.buffer_offset + r.buffer_bytes;
  const bool front = std::any_of(before, before + kGuardBytes, [](unsigned char c) { return c != kGuardByte; });
  const bool back = std::any_of(after, after + kGuardBytes, [](unsigned char c) { return c != kGuardByte; });
  if (front && back) return "wrote outside its result buffer (before its start and past its end)";
  if (front) return "wrote before the start of its result buffer";
  if (back) return "wrote past the end of its result buffer";
  return "";
}

bool send_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

// Reads exactly n bytes; false on end of file or error.
bool receive_all(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t k = recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

std::atomic<std::uint64_t> g_plugin_generation{0};  // plugins loaded so far: a worker forked before a load lacks it

// The worker process and the memory it shares with the parent.
class Worker {
 public:
  ~Worker() { stop(true); }

  // Maps at least `total` bytes of the shared region (forking the worker first when there is
  // none, or when plugins were loaded after it was forked) and returns its base.
  unsigned char* region(std::size_t total) {
    if (pid_ > 0 && generation_ != g_plugin_generation.load()) stop(false);
    if (pid_ <= 0) start();
    if (total > mapped_) {
      const std::size_t size = std::max(total, 2 * mapped_);
      if (ftruncate(memfd_, static_cast<off_t>(size)) != 0) throw BackendFailure(std::string("cannot grow the shared region: ") + std::strerror(errno));
      if (base_) munmap(base_, mapped_);
      void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_, 0);
      if (p == MAP_FAILED) {
        base_ = nullptr;
        mapped_ = 0;
        throw BackendFailure(std::string("cannot map the shared region: ") + std::strerror(errno));
      }
      base_ = static_cast<unsigned char*>(p);
      mapped_ = size;
    }
    return base_;
  }

  // Runs the request on the region filled by the caller; returns the plugin's return code or
  // throws BackendFailure for a worker that crashed, exited or did not answer in time.
  int call(Request r, const std::string& what, const PluginOptions& options) {
    r.sequence = ++sequence_;
    if (!send_all(socket_, &r, sizeof r)) return died(what);
    pollfd pfd{socket_, POLLIN, 0};
    const double ms = std::min(options.timeout_seconds * 1000.0, 2.0e9);
    int ready;
    do ready = poll(&pfd, 1, static_cast<int>(ms));
    while (ready < 0 && errno == EINTR);
    if (ready == 0) {
      stop(true);
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", options.timeout_seconds);
      throw BackendFailure(what + " timed out after " + seconds + " s (killed; ACCUCHECK_PLUGIN_TIMEOUT sets the limit)");
    }
    Response response;
    if (!receive_all(socket_, &response, sizeof response) || response.sequence != r.sequence) return died(what);
    return response.rc;
  }

  void stop(bool kill_it) {
    if (base_) munmap(base_, mapped_);
    base_ = nullptr;
    mapped_ = 0;
    if (memfd_ >= 0) close(memfd_);
    memfd_ = -1;
    if (socket_ >= 0) close(socket_);  // the worker reads end of file and exits
    socket_ = -1;
    if (pid_ > 0) {
      if (kill_it) kill(pid_, SIGKILL);
      int status;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    pid_ = -1;
  }

 private:
  void start() {
    memfd_ = memfd_create("accucheck-plugin-call", MFD_CLOEXEC);
    if (memfd_ < 0) throw BackendFailure(std::string("cannot create the shared region: ") + std::strerror(errno));
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      const int saved = errno;
      stop(false);
      throw BackendFailure(std::string("cannot create a socket pair: ") + std::strerror(saved));
    }
    generation_ = g_plugin_generation.load();
    std::fflush(nullptr);  // no buffered output duplicated into the worker
    const pid_t pid = fork();
    if (pid < 0) {
      const int saved = errno;
      close(fds[0]);
      close(fds[1]);
      stop(false);
      throw BackendFailure(std::string("cannot fork a plugin worker: ") + std::strerror(saved));
    }
    if (pid == 0) {
      close(fds[0]);
      serve(fds[1], memfd_);
    }
    close(fds[1]);
    socket_ = fds[0];
    pid_ = pid;
  }

  // The worker: one request at a time until the parent closes the socket. Never returns.
  [[noreturn]] static void serve(int socket, int memfd) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
    default_crash_signals();
    unsigned char* base = nullptr;
    std::size_t mapped = 0;
    for (;;) {
      Request r;
      if (!receive_all(socket, &r, sizeof r)) _exit(0);
      if (r.total > mapped) {
        if (base) munmap(base, mapped);
        void* p = mmap(nullptr, r.total, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
        if (p == MAP_FAILED) _exit(3);
        base = static_cast<unsigned char*>(p);
        mapped = r.total;
      }
      Response response{r.sequence, execute(r, base)};
      if (!send_all(socket, &response, sizeof response)) _exit(0);
    }
  }

  // The worker is gone: why.
  [[noreturn]] int died(const std::string& what) {
    int status = 0;
    pid_t waited;
    do waited = waitpid(pid_, &status, 0);
    while (waited < 0 && errno == EINTR);
    pid_ = -1;
    stop(false);
    if (waited > 0 && WIFSIGNALED(status)) throw BackendFailure(what + " crashed with " + signal_text(WTERMSIG(status)));
    if (waited > 0 && WIFEXITED(status))
      throw BackendFailure(what + " exited the process (status " + std::to_string(WEXITSTATUS(status)) + ") instead of returning");
    throw BackendFailure(what + " did not return (the plugin worker is gone)");
  }

  pid_t pid_ = -1;
  int socket_ = -1, memfd_ = -1;
  unsigned char* base_ = nullptr;
  std::size_t mapped_ = 0;
  std::uint64_t sequence_ = 0, generation_ = 0;
};

std::mutex& worker_mutex() {
  static std::mutex m;
  return m;
}

Worker& worker() {
  static Worker w;
  return w;
}

// Runs one plugin call: `fill` writes the initial buffer and the inputs into the region at the
// request's offsets; returns the result buffer's bytes. Every way the call can fail is a
// BackendFailure naming the backend and the function.
template <class Fill>
std::vector<unsigned char> call_plugin(const std::string& what, const PluginOptions& options, Request request, Fill fill) {
  std::vector<unsigned char> out(request.buffer_bytes);
  if (options.isolation == PluginIsolation::in_process) {
    std::vector<unsigned char> local(request.total);
    unsigned char* base = local.data();
    fill(base);
    set_guards(request, base);
    const int rc = execute(request, base);
    if (rc != 0) throw BackendFailure(what + " returned " + std::to_string(rc) + " (an error)");
    if (auto damage = guard_damage(request, base); !damage.empty()) throw BackendFailure(what + " " + damage);
    std::memcpy(out.data(), base + request.buffer_offset, out.size());
    return out;
  }
  std::lock_guard lock(worker_mutex());
  Worker& w = worker();
  struct OnePerCall {  // fork_per_call: the worker ends after this call, whatever happens
    Worker& w;
    bool active;
    ~OnePerCall() {
      if (active) w.stop(false);
    }
  } one_per_call{w, options.isolation == PluginIsolation::fork_per_call};
  unsigned char* base = w.region(request.total);
  fill(base);
  set_guards(request, base);
  const int rc = w.call(request, what, options);
  if (auto damage = guard_damage(request, base); !damage.empty()) {
    w.stop(true);  // its memory may be damaged too: the next call starts a fresh worker
    throw BackendFailure(what + " " + damage);
  }
  if (rc != 0) throw BackendFailure(what + " returned " + std::to_string(rc) + " (an error)");
  std::memcpy(out.data(), base + request.buffer_offset, out.size());
  return out;
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
      Request r = dense_request(w.elements * size, w.addends.size() * size);
      r.function = reinterpret_cast<std::uintptr_t>(fn);
      r.elements = w.elements;
      r.steps = w.steps;
      const auto out = call_plugin(name + ": accumulate_dense", options, r, [&](unsigned char* base) {
        encode_values(w.initial.data(), w.elements, storage, base + r.buffer_offset);
        encode_values(w.addends.data(), w.addends.size(), storage, base + r.inputs_offset);
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
      Request r = sparse_request(w.rows * w.dim * size, w.step_offsets.size() * sizeof(size_t),
                                 w.row_index.size() * sizeof(std::uint32_t), w.values.size() * size);
      r.function = reinterpret_cast<std::uintptr_t>(fn);
      r.rows = w.rows;
      r.dim = w.dim;
      r.steps = w.steps;
      const auto out = call_plugin(name + ": accumulate_sparse", options, r, [&](unsigned char* base) {
        encode_values(w.initial.data(), w.rows * w.dim, storage, base + r.buffer_offset);
        for (std::size_t t = 0; t < w.step_offsets.size(); ++t) {
          const size_t offset = w.step_offsets[t];
          std::memcpy(base + r.inputs_offset + t * sizeof(size_t), &offset, sizeof offset);
        }
        if (!w.row_index.empty())
          std::memcpy(base + r.index_offset, w.row_index.data(), w.row_index.size() * sizeof(std::uint32_t));
        encode_values(w.values.data(), w.values.size(), storage, base + r.values_offset);
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
    if (value == "worker") options.isolation = PluginIsolation::worker;
    else if (value == "fork") options.isolation = PluginIsolation::fork_per_call;
    else if (value == "none") options.isolation = PluginIsolation::in_process;
    else throw PluginError("ACCUCHECK_PLUGIN_ISOLATION: '" + value + "' is not worker, fork or none");
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

  if (options.isolation != PluginIsolation::in_process) probe_in_child(path, absolute);
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
  ++g_plugin_generation;  // a worker forked before this load does not have the library
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
