#include "plugins/plugin_worker.h"

#include "plugins/guest_process.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "accucheck/plugin.h"
#include "numerics/fp_environment.h"

namespace accucheck {

// ---- the campaign's deadline (plugin_loader.h) -----------------------------------------------

namespace {
std::atomic<std::int64_t> g_deadline_ns{0};  // steady_clock nanoseconds; 0: no deadline
}

PluginCallDeadline::PluginCallDeadline(std::chrono::steady_clock::time_point deadline)
    : previous_ns_(g_deadline_ns.exchange(std::max<std::int64_t>(1, deadline.time_since_epoch().count()))) {}
PluginCallDeadline::~PluginCallDeadline() { g_deadline_ns.store(previous_ns_); }

std::optional<std::chrono::steady_clock::time_point> plugin_call_deadline() {
  const std::int64_t ns = g_deadline_ns.load();
  if (ns == 0) return std::nullopt;
  return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(ns));
}

namespace plugin_worker {
namespace {

using guest::address_space_bytes;
using guest::Capture;
using guest::limit_address_space;
using guest::output_suffix;
using guest::receive_all;
using guest::seconds_text;
using guest::send_all;
using guest::unlimit_address_space;

using Clock = std::chrono::steady_clock;
using BackendsFunction = const accucheck_backend* (*)(int, size_t*);
using DenseFunction = int (*)(const accucheck_dense_problem*);
using SparseFunction = int (*)(const accucheck_sparse_problem*);
using ProductFunction = int (*)(const accucheck_product_problem*);

constexpr std::size_t kAlign = 64;
constexpr std::size_t kGuardBytes = 64;
constexpr unsigned char kGuardByte = 0xA5;
constexpr std::size_t kMaxReply = 16u << 20;  // a description of 4096 backends is far below this

std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// ---- the plugins, as the parent knows them ---------------------------------------------------

struct Library {  // what dlopen and accucheck_plugin_backends gave, where the code runs
  void* handle = nullptr;
  // The floating-point environment its loading left (a -ffast-math library's constructor switches
  // on flush-to-zero for every process that loads it): a worker runs its calls in it, as its
  // users' processes do.
  FpEnvironment environment = default_fp_environment();
  const unsigned char* list = nullptr;  // `count` entries of `entry_size` bytes
  std::size_t count = 0, entry_size = 0;
};

// accucheck_backend as ABI version 1 declared it: the fields before ABI 2's. A version 1
// plugin's array has entries of this size.
struct BackendAbi1 {
  const char* name;
  accucheck_format storage;
  accucheck_format accumulation;
  const char* stated_bound;
  accucheck_determinism determinism;
  int (*accumulate_dense)(const accucheck_dense_problem*);
  int (*accumulate_sparse)(const accucheck_sparse_problem*);
};
static_assert(offsetof(BackendAbi1, accumulate_sparse) == offsetof(accucheck_backend, accumulate_sparse) &&
                  sizeof(BackendAbi1) <= offsetof(accucheck_backend, layouts),
              "ABI 2 only appends to accucheck_backend");

// The size of an entry of a plugin's array at ABI version `abi`: version 1's struct; versions 2
// and 3's end before ABI 4's accumulate_product (3 adds no field).
std::size_t entry_size(int abi) {
  if (abi == 1) return sizeof(BackendAbi1);
  if (abi < 4) return offsetof(accucheck_backend, accumulate_product);
  return sizeof(accucheck_backend);
}

// Entry i of the plugin's array, the later ABIs' fields zero for an older plugin. Copied, so that
// nothing past a version 1 entry is read.
accucheck_backend entry(const Library& library, std::size_t i) {
  accucheck_backend b{};
  std::memcpy(static_cast<void*>(&b), library.list + i * library.entry_size, library.entry_size);
  return b;
}

struct Record {
  std::string display_path, absolute_path;
  PluginIsolation isolation = PluginIsolation::worker;
  bool kept = false, discarded = false;
  std::size_t backend_count = 0;  // what it described: a new worker must find the same
  Library in_process;             // PluginIsolation::in_process only
};

std::mutex& module_mutex() {
  static std::mutex m;
  return m;
}

std::vector<Record>& records() {
  static std::vector<Record> list;
  return list;
}

// In a worker: the libraries it opened, by PluginId.
std::vector<Library>& worker_libraries() {
  static std::vector<Library> list;
  return list;
}

// ---- messages between the parent and a worker ------------------------------------------------

enum class Op : std::uint32_t { load, call };

struct Request {
  std::uint64_t sequence = 0;
  Op op = Op::call;
  std::uint32_t sparse = 0;
  std::uint64_t plugin = 0, backend = 0;
  std::uint64_t elements = 0, steps = 0, rows = 0, dim = 0;
  std::uint64_t total = 0, buffer_offset = 0, buffer_bytes = 0, inputs_offset = 0, index_offset = 0, values_offset = 0;
  std::int64_t addend_step_stride = 0, addend_element_stride = 0, buffer_stride = 0, table_row_stride = 0,
               value_pair_stride = 0;
  std::uint32_t input_format = 0;  // accucheck_format of the addends or pair values (ABI 3); A's (ABI 4)
  std::uint32_t product = 0;       // ABI 4: C += sum of A_t B_t
  std::uint32_t b_input_format = 0;
  std::uint64_t cols = 0, batch = 0, b_offset = 0;
  std::uint64_t payload_bytes = 0;  // load: the path follows
};

enum class Status : std::uint32_t { ok, fp_changed, failed };

struct Response {
  std::uint64_t sequence = 0;  // 0: the worker's "ready" after start
  std::int32_t rc = 0;
  Status status = Status::ok;
  std::uint64_t payload_bytes = 0;
};

bool send_message(int fd, const Response& header, const std::string& payload) {
  Response r = header;
  r.payload_bytes = payload.size();
  return send_all(fd, &r, sizeof r) && (payload.empty() || send_all(fd, payload.data(), payload.size()));
}

// A description as bytes (the worker writes, the parent reads, both this file's code).
class Writer {
 public:
  void u32(std::uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void text(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_ += s;
  }
  void optional_text(const std::optional<std::string>& s) {
    u32(s ? 1 : 0);
    if (s) text(*s);
  }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  std::uint32_t u32() {
    std::uint32_t v = 0;
    if (at_ + sizeof v > in_.size()) throw PluginError("malformed description from the plugin worker");
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string text() {
    const std::size_t n = u32();
    if (at_ + n > in_.size()) throw PluginError("malformed description from the plugin worker");
    std::string s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  std::optional<std::string> optional_text() {
    if (u32() == 0) return std::nullopt;
    return text();
  }

 private:
  const std::string& in_;
  std::size_t at_ = 0;
};

std::string serialize(const PluginDescription& d) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(d.status));
  w.u32(static_cast<std::uint32_t>(d.abi));
  w.text(d.detail);
  w.text(d.fp_change);
  w.u32(static_cast<std::uint32_t>(d.backends.size()));
  for (const auto& b : d.backends) {
    w.optional_text(b.name);
    w.u32(b.name_too_long);
    w.optional_text(b.bound);
    w.u32(b.bound_too_long);
    w.u32(static_cast<std::uint32_t>(b.storage));
    w.u32(static_cast<std::uint32_t>(b.accumulation));
    w.u32(static_cast<std::uint32_t>(b.determinism));
    w.u32(b.dense);
    w.u32(b.sparse);
    w.u32(b.product);
    w.u32(b.layouts);
  }
  return w.bytes();
}

PluginDescription deserialize(const std::string& bytes) {
  Reader r(bytes);
  PluginDescription d;
  d.status = static_cast<PluginDescription::Status>(r.u32());
  d.abi = static_cast<int>(r.u32());
  d.detail = r.text();
  d.fp_change = r.text();
  const std::size_t count = r.u32();
  if (count > kMaxBackendsPerPlugin) throw PluginError("malformed description from the plugin worker");
  for (std::size_t i = 0; i < count; ++i) {
    BackendDescription b;
    b.name = r.optional_text();
    b.name_too_long = r.u32() != 0;
    b.bound = r.optional_text();
    b.bound_too_long = r.u32() != 0;
    b.storage = static_cast<std::int32_t>(r.u32());
    b.accumulation = static_cast<std::int32_t>(r.u32());
    b.determinism = static_cast<std::int32_t>(r.u32());
    b.dense = r.u32() != 0;
    b.sparse = r.u32() != 0;
    b.product = r.u32() != 0;
    b.layouts = r.u32();
    d.backends.push_back(std::move(b));
  }
  return d;
}

// ---- where plugin code runs: loading and calling ---------------------------------------------

// An enum field as the integer the plugin stored (it may be outside the enum's values, which
// C++ must not load as the enum type).
template <class Enum>
std::int32_t raw_enum(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(std::int32_t), "C enums of plugin.h are int-sized");
  std::int32_t raw;
  std::memcpy(&raw, &field, sizeof raw);
  return raw;
}

// Reads a C string the plugin handed over, at most `limit` characters.
void bounded_string(const char* s, std::size_t limit, std::optional<std::string>& out, bool& too_long) {
  if (!s) return;
  const std::size_t length = strnlen(s, limit + 1);
  too_long = length > limit;
  out = std::string(s, std::min(length, limit));
}

// dlopen and accucheck_plugin_backends, with the floating-point environment compared and
// restored around both (constructors run inside dlopen), in the process the code runs in.
PluginDescription open_library(const std::string& absolute, Library& library) {
  PluginDescription d;
  const FpEnvironmentGuard environment;
  dlerror();
  library.handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library.handle) {
    const char* why = dlerror();
    d.status = PluginDescription::Status::cannot_load;
    d.detail = why ? why : "dlopen failed";
  } else if (auto fn = reinterpret_cast<BackendsFunction>(dlsym(library.handle, "accucheck_plugin_backends")); !fn) {
    d.status = PluginDescription::Status::missing_symbol;
  } else {
    // The newest version first; a plugin returns NULL for a version it does not support.
    size_t count = 0;
    const void* list = nullptr;
    for (int abi = ACCUCHECK_PLUGIN_ABI; abi >= 1 && !list; --abi) {
      count = 0;
      list = fn(abi, &count);
      if (list) {
        d.abi = abi;
        library.entry_size = entry_size(abi);
      }
    }
    library.list = static_cast<const unsigned char*>(list);
    library.count = count;
    d.detail = std::to_string(count);
    if (!library.list)
      d.status = PluginDescription::Status::abi_refused;
    else if (count == 0)
      d.status = PluginDescription::Status::no_backends;
    else if (count > kMaxBackendsPerPlugin)
      d.status = PluginDescription::Status::too_many;
    else
      for (std::size_t i = 0; i < count; ++i) {
        const accucheck_backend b = entry(library, i);
        BackendDescription out;
        bounded_string(b.name, kMaxNameLength, out.name, out.name_too_long);
        bounded_string(b.stated_bound, kMaxBoundLength, out.bound, out.bound_too_long);
        out.storage = raw_enum(b.storage);
        out.accumulation = raw_enum(b.accumulation);
        out.determinism = raw_enum(b.determinism);
        out.dense = b.accumulate_dense != nullptr;
        out.sparse = b.accumulate_sparse != nullptr;
        out.product = b.accumulate_product != nullptr;
        out.layouts = b.layouts;
        d.backends.push_back(std::move(out));
      }
  }
  library.environment = current_fp_environment();
  d.fp_change = environment.check_and_restore();
  return d;
}

int execute(const Library& library, std::size_t index, const Request& r, unsigned char* base) {
  if (!library.list || index >= library.count) return -1;
  const accucheck_backend b = entry(library, index);
  if (r.product) {
    if (!b.accumulate_product) return -1;
    const accucheck_product_problem problem{r.rows,
                                            r.cols,
                                            r.batch,
                                            r.steps,
                                            base + r.inputs_offset,
                                            base + r.b_offset,
                                            base + r.buffer_offset,
                                            static_cast<accucheck_format>(r.input_format),
                                            static_cast<accucheck_format>(r.b_input_format)};
    return reinterpret_cast<ProductFunction>(b.accumulate_product)(&problem);
  }
  if (!r.sparse) {
    if (!b.accumulate_dense) return -1;
    const accucheck_dense_problem problem{r.elements,
                                          r.steps,
                                          base + r.inputs_offset,
                                          base + r.buffer_offset,
                                          static_cast<ptrdiff_t>(r.addend_step_stride),
                                          static_cast<ptrdiff_t>(r.addend_element_stride),
                                          static_cast<ptrdiff_t>(r.buffer_stride),
                                          static_cast<accucheck_format>(r.input_format)};
    return reinterpret_cast<DenseFunction>(b.accumulate_dense)(&problem);
  }
  if (!b.accumulate_sparse) return -1;
  const accucheck_sparse_problem problem{r.rows,
                                         r.dim,
                                         r.steps,
                                         reinterpret_cast<const size_t*>(base + r.inputs_offset),
                                         reinterpret_cast<const std::uint32_t*>(base + r.index_offset),
                                         base + r.values_offset,
                                         base + r.buffer_offset,
                                         static_cast<ptrdiff_t>(r.table_row_stride),
                                         static_cast<ptrdiff_t>(r.value_pair_stride),
                                         static_cast<accucheck_format>(r.input_format)};
  return reinterpret_cast<SparseFunction>(b.accumulate_sparse)(&problem);
}

Request request_for(const CallLayout& l) {
  Request r;
  r.op = Op::call;
  r.sparse = l.sparse;
  r.elements = l.elements;
  r.steps = l.steps;
  r.rows = l.rows;
  r.dim = l.dim;
  r.total = l.total;
  r.buffer_offset = l.buffer_offset;
  r.buffer_bytes = l.buffer_bytes;
  r.inputs_offset = l.inputs_offset;
  r.index_offset = l.index_offset;
  r.values_offset = l.values_offset;
  r.addend_step_stride = l.addend_step_stride;
  r.addend_element_stride = l.addend_element_stride;
  r.buffer_stride = l.buffer_stride;
  r.table_row_stride = l.table_row_stride;
  r.value_pair_stride = l.value_pair_stride;
  r.input_format = static_cast<std::uint32_t>(l.input_format);
  r.product = l.product;
  r.b_input_format = static_cast<std::uint32_t>(l.b_input_format);
  r.cols = l.cols;
  r.batch = l.batch;
  r.b_offset = l.b_offset;
  return r;
}

// ---- the worker process ----------------------------------------------------------------------

// The plugin worker: a forked guest process that loads every kept plugin of worker isolation and
// answers "ready", then serves one request at a time until the parent closes the socket.
class Worker {
 public:
  using End = guest::GuestProcess::End;

  bool running() const { return process_.running(); }

  // Throws BackendFailure starting with `what` when it cannot start or load the plugins.
  void start(const PluginOptions& options, const std::string& what) {
    const std::uint64_t limit = options.memory_limit_bytes;
    process_.launch(what, "plugin worker", limit, [this, limit](int socket, int memfd) {
      guest::prepare_forked_guest(process_.crash_note());
      serve(socket, memfd, limit);
    });
    Response ready;
    std::string reply;
    guest::Capture capture;
    const End end = exchange(nullptr, "", options.timeout_seconds, false, ready, reply, capture);
    if (end == End::answered && ready.sequence == 0 && ready.status == Status::ok) return;
    std::string why;
    if (end == End::answered)
      why = reply;
    else if (end == End::died)
      why = death_text();
    else
      why = "did not finish loading the plugins within " + guest::seconds_text(options.timeout_seconds) + " s";
    stop(true);
    throw BackendFailure(what + ": a new plugin worker could not load the plugins: " + why +
                         guest::output_suffix(capture.summary()));
  }

  void stop(bool kill_it) { process_.stop(kill_it); }
  guest::GuestProcess& process() { return process_; }
  unsigned char* region(std::size_t total, const std::string& what) { return process_.region(total, what); }
  std::string death_text(const std::string& after_exit = "", FailureKind* kind = nullptr) {
    return process_.death_text(after_exit, kind);
  }

  // Sends `r` (when given) and waits for the answer, reading the worker's output meanwhile,
  // until `timeout_seconds` pass or, when `deadline_applies`, the campaign's deadline.
  End exchange(Request* r, const std::string& payload, double timeout_seconds, bool deadline_applies,
               Response& response, std::string& reply, guest::Capture& capture) {
    std::string request;
    if (r) {
      r->sequence = ++sequence_;
      r->payload_bytes = payload.size();
      request.assign(reinterpret_cast<const char*>(r), sizeof *r);
      request += payload;
    }
    return process_.exchange(
        request, timeout_seconds, deadline_applies,
        [&](int socket) {
          return guest::receive_all(socket, &response, sizeof response) && response.payload_bytes <= kMaxReply &&
                 (reply.resize(response.payload_bytes), guest::receive_all(socket, reply.data(), reply.size())) &&
                 (!r || response.sequence == r->sequence);
        },
        capture);
  }

 private:
  // In the worker: loads the kept plugins, then one request at a time until the parent closes
  // the socket. Never returns.
  [[noreturn]] static void serve(int socket, int memfd, std::uint64_t limit) {
    setvbuf(stdout, nullptr, _IOLBF, 0);  // lines of stdout and stderr stay in the order written
    set_fp_environment(default_fp_environment());
    auto& libraries = worker_libraries();
    libraries.assign(records().size(), Library{});
    for (std::size_t id = 0; id < records().size(); ++id) {
      const Record& record = records()[id];
      if (!record.kept || record.isolation == PluginIsolation::in_process) continue;
      if (limit) limit_address_space(address_space_bytes() + limit);
      const PluginDescription d = open_library(record.absolute_path, libraries[id]);
      std::fflush(nullptr);
      if (d.status != PluginDescription::Status::ok || d.backends.size() != record.backend_count) {
        send_message(socket, Response{0, 1, Status::failed, 0},
                     record.display_path + " no longer loads as it did (" + std::to_string(d.backends.size()) +
                         " backends, status " + std::to_string(static_cast<int>(d.status)) + ")");
        _exit(0);
      }
    }
    if (!send_message(socket, Response{0, 0, Status::ok, 0}, "")) _exit(0);

    unsigned char* base = nullptr;
    std::size_t mapped = 0;
    for (;;) {
      Request r;
      if (!receive_all(socket, &r, sizeof r)) _exit(0);
      std::string payload(r.payload_bytes, '\0');
      if (r.payload_bytes > kMaxReply || !receive_all(socket, payload.data(), payload.size())) _exit(0);
      if (r.op == Op::load) {
        if (r.plugin >= libraries.size()) libraries.resize(r.plugin + 1);
        if (limit) limit_address_space(address_space_bytes() + limit);
        const PluginDescription d = open_library(payload, libraries[r.plugin]);  // the payload: the library's path
        std::fflush(nullptr);
        if (!send_message(socket, Response{r.sequence, 0, Status::ok, 0}, serialize(d))) _exit(0);
        continue;
      }
      if (r.total > mapped) {
        if (base) munmap(base, mapped);
        unlimit_address_space();
        void* p = mmap(nullptr, r.total, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
        if (p == MAP_FAILED) _exit(3);
        base = static_cast<unsigned char*>(p);
        mapped = r.total;
      }
      if (limit) limit_address_space(address_space_bytes() + limit);
      const bool known = r.plugin < libraries.size();
      // The environment the plugin's own loading left (its users' processes have it too).
      const FpEnvironment environment = known ? libraries[r.plugin].environment : default_fp_environment();
      set_fp_environment(environment);
      const int rc = known ? execute(libraries[r.plugin], r.backend, r, base) : -1;
      std::fflush(nullptr);
      const FpEnvironment after = current_fp_environment();
      std::string change;
      if (!(after == environment)) change = describe_fp_change(environment, after);
      set_fp_environment(default_fp_environment());
      if (!send_message(socket, Response{r.sequence, rc, change.empty() ? Status::ok : Status::fp_changed, 0}, change))
        _exit(0);
    }
  }

  guest::GuestProcess process_;
  std::uint64_t sequence_ = 0;
};

Worker& worker() {
  static Worker w;
  return w;
}

void ensure_worker(const PluginOptions& options, const std::string& what) {
  if (!worker().running()) worker().start(options, what);
}

}  // namespace

void set_guards(const CallLayout& l, unsigned char* base) {
  std::memset(base + l.buffer_offset - kGuardBytes, kGuardByte, kGuardBytes);
  std::memset(base + l.buffer_offset + l.buffer_bytes, kGuardByte, kGuardBytes);
}

// "" when both guards are intact, else where the plugin wrote out of bounds.
std::string guard_damage(const CallLayout& l, const unsigned char* base) {
  const unsigned char* before = base + l.buffer_offset - kGuardBytes;
  const unsigned char* after = base + l.buffer_offset + l.buffer_bytes;
  const bool front = std::any_of(before, before + kGuardBytes, [](unsigned char c) { return c != kGuardByte; });
  const bool back = std::any_of(after, after + kGuardBytes, [](unsigned char c) { return c != kGuardByte; });
  if (front && back) return "wrote outside its result buffer (before its start and past its end)";
  if (front) return "wrote before the start of its result buffer";
  if (back) return "wrote past the end of its result buffer";
  return "";
}

CallLayout dense_layout(std::size_t elements, std::size_t steps, Format storage, Format input,
                        const DenseStrides& strides) {
  CallLayout l;
  l.input_format = input;
  l.elements = elements;
  l.steps = steps;
  l.addend_step_stride = static_cast<std::int64_t>(strides.step);
  l.addend_element_stride = static_cast<std::int64_t>(strides.element);
  l.buffer_stride = static_cast<std::int64_t>(strides.buffer);
  l.buffer_offset = 2 * kAlign;
  l.buffer_bytes = strides.buffer_span * storage_size(storage);
  l.inputs_offset = aligned(l.buffer_offset + l.buffer_bytes + kGuardBytes);
  l.total = aligned(l.inputs_offset + strides.addend_span * storage_size(input)) + kAlign;
  return l;
}

CallLayout sparse_layout(std::size_t rows, std::size_t dim, std::size_t steps, std::size_t pairs, Format storage,
                         Format input, const SparseStrides& strides) {
  CallLayout l{.sparse = true,
               .steps = steps,
               .rows = rows,
               .dim = dim,
               .pairs = pairs,
               .table_row_stride = static_cast<std::int64_t>(strides.table_row),
               .value_pair_stride = static_cast<std::int64_t>(strides.value_pair),
               .input_format = input};
  l.buffer_offset = 2 * kAlign;
  l.buffer_bytes = strides.table_span * storage_size(storage);
  l.inputs_offset = aligned(l.buffer_offset + l.buffer_bytes + kGuardBytes);
  l.index_offset = aligned(l.inputs_offset + (steps + 1) * sizeof(size_t));
  l.values_offset = aligned(l.index_offset + pairs * sizeof(std::uint32_t));
  l.total = aligned(l.values_offset + strides.values_span * storage_size(input)) + kAlign;
  return l;
}

CallLayout product_layout(std::size_t rows, std::size_t cols, std::size_t batch, std::size_t steps, Format storage,
                          Format a_input, Format b_input) {
  CallLayout l{.product = true,
               .elements = rows * cols,
               .steps = steps,
               .rows = rows,
               .cols = cols,
               .batch = batch,
               .input_format = a_input,
               .b_input_format = b_input};
  l.buffer_offset = 2 * kAlign;
  l.buffer_bytes = rows * cols * storage_size(storage);
  l.inputs_offset = aligned(l.buffer_offset + l.buffer_bytes + kGuardBytes);
  l.b_offset = aligned(l.inputs_offset + steps * rows * batch * storage_size(a_input));
  l.total = aligned(l.b_offset + steps * batch * cols * storage_size(b_input)) + kAlign;
  return l;
}

std::pair<PluginId, PluginDescription> open_plugin(const std::string& display_path, const std::string& absolute_path,
                                                   const PluginOptions& options) {
  std::lock_guard lock(module_mutex());
  const PluginId id = records().size();
  records().push_back(Record{display_path, absolute_path, options.isolation, false, false, 0, {}});
  Record& record = records().back();
  if (options.isolation == PluginIsolation::in_process) {
    PluginDescription d = open_library(absolute_path, record.in_process);
    record.backend_count = d.backends.size();
    return {id, std::move(d)};
  }
  const std::string what = display_path;
  try {
    ensure_worker(options, what);
  } catch (const BackendFailure& e) {
    throw PluginError(e.what());
  }
  Request r;
  r.op = Op::load;
  r.plugin = id;
  Response response;
  std::string reply;
  Capture capture;
  Worker& w = worker();
  const std::string& payload = absolute_path;
  const auto end = w.exchange(&r, payload, options.timeout_seconds, false, response, reply, capture);
  const std::string output = output_suffix(capture.summary());
  if (end == Worker::End::died)
    throw PluginError(display_path + ": " + w.death_text() +
                      " while loading (in its constructors or in accucheck_plugin_backends)" + output);
  if (end != Worker::End::answered) {
    w.stop(true);
    throw PluginError(display_path + ": did not finish loading within " + seconds_text(options.timeout_seconds) +
                      " s (killed; ACCUCHECK_PLUGIN_TIMEOUT sets the limit)" + output);
  }
  PluginDescription d = deserialize(reply);
  d.output = capture.summary();
  record.backend_count = d.backends.size();
  if (options.isolation == PluginIsolation::fork_per_call) w.stop(false);  // every call gets a fresh one
  return {id, std::move(d)};
}

void keep_plugin(PluginId id) {
  std::lock_guard lock(module_mutex());
  records().at(id).kept = true;
}

void discard_plugin(PluginId id) {
  std::lock_guard lock(module_mutex());
  Record& record = records().at(id);
  record.discarded = true;
  if (record.isolation == PluginIsolation::in_process) {
    if (record.in_process.handle) dlclose(record.in_process.handle);
    record.in_process = {};
  } else {
    worker().stop(true);  // the next worker loads only the kept plugins
  }
}

CallResult call_plugin(PluginId id, std::size_t index, const std::string& what, const PluginOptions& options,
                       const CallLayout& layout, const std::function<void(unsigned char* base)>& fill) {
  std::lock_guard lock(module_mutex());
  if (const auto deadline = plugin_call_deadline(); deadline && Clock::now() >= *deadline)
    throw PluginDeadlineReached{what, 0};
  const auto started = Clock::now();
  const Record& record = records().at(id);
  CallResult result;
  result.buffer.resize(layout.buffer_bytes);
  const Request request = request_for(layout);
  if (record.isolation == PluginIsolation::in_process) {
    std::vector<unsigned char> local(layout.total);
    unsigned char* base = local.data();
    fill(base);
    set_guards(layout, base);
    const int rc = execute(record.in_process, index, request, base);
    if (rc != 0) throw BackendFailure(what + " returned " + std::to_string(rc) + " (an error)");
    if (auto damage = guard_damage(layout, base); !damage.empty())
      throw BackendFailure(what + " " + damage, FailureKind::overrun);
    std::memcpy(result.buffer.data(), base + layout.buffer_offset, result.buffer.size());
    return result;
  }
  Worker& w = worker();
  const guest::StopAtEndOfCall<Worker> one_per_call{w, options.isolation == PluginIsolation::fork_per_call};
  ensure_worker(options, what);
  unsigned char* base = w.region(layout.total, what);
  fill(base);
  set_guards(layout, base);
  Request r = request;
  r.plugin = id;
  r.backend = index;
  Response response;
  std::string reply;
  Capture capture;
  const auto end = w.exchange(&r, "", options.timeout_seconds, true, response, reply, capture);
  result.output = capture.summary();
  const std::string output = output_suffix(result.output);
  if (end != Worker::End::answered) w.process().fail_call(end, what, options.timeout_seconds, started, output);
  if (auto damage = guard_damage(layout, base); !damage.empty()) {
    w.stop(true);  // its memory may be damaged too: the next call starts a fresh worker
    throw BackendFailure(what + " " + damage + output, FailureKind::overrun);
  }
  if (response.status == Status::fp_changed)
    throw BackendFailure(what + " changed the floating-point environment and left it changed: " + reply +
                             " (the worker restored it)" + output,
                         FailureKind::fp_environment);
  if (response.rc != 0)
    throw BackendFailure(what + " returned " + std::to_string(response.rc) + " (an error)" + output);
  std::memcpy(result.buffer.data(), base + layout.buffer_offset, result.buffer.size());
  return result;
}

}  // namespace plugin_worker
}  // namespace accucheck
