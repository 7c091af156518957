#include "plugins/python_worker.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "io/json.h"
#include "io/json_parse.h"
#include "plugins/guest_process.h"

namespace accucheck::python_worker {
namespace {

using guest::Capture;
using guest::GuestProcess;
using plugin_worker::CallLayout;
using plugin_worker::CallResult;

constexpr std::uint32_t kMaxMessage = 16u << 20;
constexpr int kSocketFd = 3, kMemfd = 4;  // where the worker finds them (its argv says so too)

// Imports the package `accucheck` from `package` (argv[1], the folder holding it) as the one the
// file's `import accucheck` gets, without putting that folder on sys.path, and runs its worker; an
// interpreter too old or without what the package needs (numpy) says so in one line on stderr and
// exits 1.
constexpr const char* kBootstrap =
    "import os, sys\n"
    "if sys.version_info < (3, 9):\n"
    "    sys.exit('accucheck: the Python worker needs Python >= 3.9; %s is %s' % (sys.executable, "
    "sys.version.split()[0]))\n"
    "os.environ['ACCUCHECK_IN_LOADER'] = '1'  # the package validates through the CLI; check() refused\n"
    "try:\n"
    "    import importlib.util\n"
    "    where = os.path.join(sys.argv[1], 'accucheck')\n"
    "    spec = importlib.util.spec_from_file_location('accucheck', os.path.join(where, '__init__.py'),\n"
    "                                                  submodule_search_locations=[where])\n"
    "    package = importlib.util.module_from_spec(spec)\n"
    "    sys.modules['accucheck'] = package\n"
    "    spec.loader.exec_module(package)\n"
    "    from accucheck._worker import main\n"
    "except ImportError as e:\n"
    "    sys.exit('accucheck: the Python worker cannot start in %s (Python %s): %s' % (sys.executable, "
    "sys.version.split()[0], e))\n"
    "sys.exit(main(sys.argv[2:]))\n";

struct File {
  std::string display, path;
  std::unique_ptr<GuestProcess> process = std::make_unique<GuestProcess>();
  std::uint64_t sequence = 0;
};

// The files loaded, by FileId, and the lock that guards them.
struct LoadedFiles {
  std::mutex lock;
  std::vector<File> list;
};
LoadedFiles& loaded() {
  static LoadedFiles files;
  return files;
}

// One message: a 4-byte little-endian length, then JSON.
std::string frame(const std::string& json) {
  const auto n = static_cast<std::uint32_t>(json.size());
  const unsigned char length[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                                   static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
  return std::string(reinterpret_cast<const char*>(length), 4) + json;
}

bool receive_message(int socket, JsonValue& message) {
  unsigned char length[4];
  if (!guest::receive_all(socket, length, 4)) return false;
  const std::uint32_t n =
      length[0] | (length[1] << 8) | (length[2] << 16) | (static_cast<std::uint32_t>(length[3]) << 24);
  if (n > kMaxMessage) return false;
  std::string body(n, '\0');
  if (!guest::receive_all(socket, body.data(), n)) return false;
  auto parsed = parse_json(body);
  if (!parsed.ok() || parsed.value.type != JsonValue::Type::object) return false;
  message = std::move(parsed.value);
  return true;
}

std::string text_of(const JsonValue& message, std::string_view key) {
  const JsonValue* v = message.find(key);
  return v && v->type == JsonValue::Type::string ? v->text : "";
}

bool flag_of(const JsonValue& message, std::string_view key) {
  const JsonValue* v = message.find(key);
  return v && v->type == JsonValue::Type::boolean && v->boolean;
}

// In the forked child: the socket and the memfd at 3 and 4, then the interpreter. Never returns.
[[noreturn]] void exec_worker(int socket, int memfd, const std::string& python, const std::string& package,
                              std::uint64_t memory_limit, const std::string& file) {
  // Out of the way of 3 and 4 first, whatever numbers they have now.
  const int high_socket = fcntl(socket, F_DUPFD, 10), high_memfd = fcntl(memfd, F_DUPFD, 10);
  dup2(high_socket, kSocketFd);  // dup2 clears close-on-exec: the interpreter inherits both
  dup2(high_memfd, kMemfd);
  close(high_socket);
  close(high_memfd);
  const std::string protocol = std::to_string(kProtocol), socket_fd = std::to_string(kSocketFd),
                    memfd_fd = std::to_string(kMemfd), limit = std::to_string(memory_limit);
  const char* argv[] = {
      python.c_str(),   "-c",          kBootstrap,   package.c_str(), protocol.c_str(), socket_fd.c_str(),
      memfd_fd.c_str(), limit.c_str(), file.c_str(), nullptr};
  execvp(python.c_str(), const_cast<char* const*>(argv));
  std::fprintf(stderr, "accucheck: cannot run the Python interpreter '%s': %s (ACCUCHECK_PYTHON names it)\n",
               python.c_str(), std::strerror(errno));
  std::fflush(stderr);
  _exit(127);
}

// Starts `file`'s worker and reads its hello. Throws PluginError naming the file.
FileDescription start(File& file, const PluginOptions& options) {
  const std::string python = interpreter(), package = package_directory();
  const std::string where = file.display + ": the Python worker (" + python + ")";
  try {
    file.process->launch(file.display, "Python worker", options.memory_limit_bytes, [&](int socket, int memfd) {
      exec_worker(socket, memfd, python, package, options.memory_limit_bytes, file.path);
    });
  } catch (const BackendFailure& e) {
    throw PluginError(e.what());
  }
  JsonValue hello;
  Capture capture;
  const auto end = file.process->exchange(
      "", options.timeout_seconds, false, [&](int socket) { return receive_message(socket, hello); }, capture);
  const std::string output = guest::output_suffix(capture.summary());
  if (end == GuestProcess::End::died) {
    const std::string death = file.process->death_text();
    // The interpreter could not start the worker (not found, too old, no numpy): its one line says why.
    if (capture.head.rfind("accucheck: ", 0) == 0)
      throw PluginError(file.display + ": " + capture.head.substr(11, capture.head.find('\n') - 11));
    throw PluginError(where + " " + death + " while loading the file" + output);
  }
  if (end != GuestProcess::End::answered) {
    file.process->stop(true);
    throw PluginError(where + " did not finish loading the file within " +
                      guest::seconds_text(options.timeout_seconds) +
                      " s (killed; ACCUCHECK_PLUGIN_TIMEOUT sets the limit)" + output);
  }
  const JsonValue* protocol = hello.find("protocol");
  if (!protocol || protocol->text != std::to_string(kProtocol)) {
    file.process->stop(true);
    throw PluginError(where + " speaks worker protocol " + (protocol ? protocol->text : "?") + ", not " +
                      std::to_string(kProtocol) + " (ACCUCHECK_PYTHON_PACKAGE names another accucheck's package?)");
  }
  FileDescription d;
  d.python = text_of(hello, "python");
  d.executable = text_of(hello, "executable");
  d.libraries = text_of(hello, "libraries");
  if (d.libraries.empty()) {  // a package of the same protocol from before "libraries" (ACCUCHECK_PYTHON_PACKAGE)
    const std::string numpy = text_of(hello, "numpy");
    d.libraries = numpy.empty() ? "no numpy" : "numpy " + numpy;
  }
  d.output = capture.summary();
  if (const std::string error = text_of(hello, "error"); !error.empty()) {
    file.process->stop(true);
    throw PluginError(file.display + ": " + error + " (Python " + d.python + ", " + d.executable + ")" + output);
  }
  d.fp_change = text_of(hello, "fp_change");
  if (const JsonValue* list = hello.find("backends"); list && list->type == JsonValue::Type::array)
    for (const JsonValue& b : list->items)
      d.backends.push_back({text_of(b, "name"), text_of(b, "storage"), text_of(b, "accumulation"), text_of(b, "bound"),
                            text_of(b, "determinism"), text_of(b, "kind"), flag_of(b, "fp8_inputs")});
  return d;
}

std::string request_json(std::uint64_t sequence, std::size_t index, const CallLayout& l) {
  JsonWriter w;
  w.begin_object()
      .field("op", "call")
      .field("seq", sequence)
      .field("backend", static_cast<std::uint64_t>(index))
      .field("kind", l.product  ? "product"
                     : l.sparse ? "sparse"
                                : "dense")
      .field("size", l.total)
      .field("buffer_offset", l.buffer_offset)
      .field("inputs_offset", l.inputs_offset)
      .field("index_offset", l.index_offset)
      .field("values_offset", l.values_offset)
      .field("b_offset", l.b_offset)
      .field("elements", l.elements)
      .field("steps", l.steps)
      .field("rows", l.rows)
      .field("dim", l.dim)
      .field("pairs", l.pairs)
      .field("cols", l.cols)
      .field("batch", l.batch)
      .field("input_format", name(l.input_format))
      .field("b_input_format", name(l.b_input_format))
      .end_object();
  return w.str();
}

}  // namespace

std::string interpreter() {
  const char* python = std::getenv("ACCUCHECK_PYTHON");
  return python && *python ? python : "python3";
}

std::string package_directory() {
  const char* package = std::getenv("ACCUCHECK_PYTHON_PACKAGE");
  if (package && *package) return package;
#ifdef ACCUCHECK_PYTHON_PACKAGE_DIR
  return ACCUCHECK_PYTHON_PACKAGE_DIR;
#else
  return "";
#endif
}

std::pair<FileId, FileDescription> open_file(const std::string& display, const std::string& file,
                                             const PluginOptions& options) {
  std::lock_guard lock(loaded().lock);
  const FileId id = loaded().list.size();
  loaded().list.push_back(File{display, file});
  FileDescription d = start(loaded().list.back(), options);
  return {id, std::move(d)};
}

CallResult call_backend(FileId id, std::size_t index, const std::string& what, const PluginOptions& options,
                        const CallLayout& layout, const std::function<void(unsigned char* base)>& fill) {
  std::lock_guard lock(loaded().lock);
  using Clock = std::chrono::steady_clock;
  if (const auto deadline = plugin_call_deadline(); deadline && Clock::now() >= *deadline)
    throw PluginDeadlineReached{what, 0};
  const auto started = Clock::now();
  File& file = loaded().list.at(id);
  GuestProcess& process = *file.process;
  const guest::StopAtEndOfCall<GuestProcess> one_per_call{process, options.isolation == PluginIsolation::fork_per_call};
  if (!process.running()) {
    try {
      start(file, options);  // the file again, in a new worker (the last one crashed, hung or was stopped)
    } catch (const PluginError& e) {
      throw BackendFailure(what + ": a new Python worker could not load the file: " + e.what());
    }
  }
  unsigned char* base = process.region(layout.total, what);
  fill(base);
  plugin_worker::set_guards(layout, base);
  JsonValue answer;
  Capture capture;
  const std::uint64_t sequence = ++file.sequence;
  const auto end = process.exchange(
      frame(request_json(sequence, index, layout)), options.timeout_seconds, true,
      [&](int socket) { return receive_message(socket, answer); }, capture);
  CallResult result;
  result.output = capture.summary();
  const std::string output = guest::output_suffix(result.output);
  if (end != GuestProcess::End::answered) process.fail_call(end, what, options.timeout_seconds, started, output);
  const JsonValue* seq = answer.find("seq");
  if (!seq || seq->text != std::to_string(sequence)) {
    process.stop(true);
    throw BackendFailure(what + ": the Python worker answered another call (protocol error)" + output);
  }
  if (auto damage = plugin_worker::guard_damage(layout, base); !damage.empty()) {
    process.stop(true);
    throw BackendFailure(what + " " + damage + output, FailureKind::overrun);
  }
  if (const std::string change = text_of(answer, "fp_change"); !change.empty()) {
    process.stop(true);  // the next call loads the file again, in the environment its loading leaves
    throw BackendFailure(what + " changed the floating-point environment and left it changed: " + change +
                             " (the worker was restarted)" + output,
                         FailureKind::fp_environment);
  }
  if (const std::string failure = text_of(answer, "failure"); !failure.empty()) throw BackendFailure(failure + output);
  if (!flag_of(answer, "ok")) {
    process.stop(true);
    throw BackendFailure(what + ": the Python worker's answer says neither ok nor failure (protocol error)" + output);
  }
  result.buffer.assign(base + layout.buffer_offset, base + layout.buffer_offset + layout.buffer_bytes);
  return result;
}

}  // namespace accucheck::python_worker
