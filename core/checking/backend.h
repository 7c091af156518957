// The backend interface and the registry.
//
// A backend is one accumulator implementation: name, device, storage and accumulation format,
// stated bound, determinism class, and the function that runs a workload. Every built-in backend,
// CPU or CUDA, registers itself from its own file with one line, the one macro below, given a
// Backend or a std::vector<Backend> (one per format: impls/common/per_element.h; GPU backends, which
// exist only where a device is: impls/cuda/device.h on_gpu):
//
//   ACCUCHECK_REGISTER_BACKEND(dense_backend("naive_f32", Format::f32, Format::f32,
//       "recursive(f32)", Determinism::bitwise_deterministic, "acc += g, in order", &run));
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "checking/bound.h"
#include "checking/property.h"
#include "checking/workload.h"

namespace accucheck {

enum class Device : std::uint8_t { cpu, cuda };
std::string_view name(Device d);

enum class Determinism : std::uint8_t {
  bitwise_deterministic,        // same bits every run, any thread count
  order_independent,            // same bits under any permutation or split of the addends
  run_to_run_nondeterministic,  // only the bound is promised
};
std::string_view name(Determinism d);

// Knobs a run may turn; backends ignore what does not apply to them.
struct RunOptions {
  unsigned threads = 0;          // 0: the backend's default
  std::uint64_t order_seed = 0;  // chooses the order of atomic / completion-order updates in models
};

// How a backend failed instead of returning a result.
enum class FailureKind : std::uint8_t {
  error,           // it reported an error (a plugin's non-zero return, an exception)
  crash,           // it died of a signal (plugin worker)
  exit,            // it ended its process (plugin worker)
  timeout,         // it ran past its time-out (plugin worker)
  overrun,         // it wrote outside its result buffer
  fp_environment,  // it left the floating-point environment changed
};
std::string_view name(FailureKind k);

// A backend reports a failure it detects itself (a plugin returning an error) by throwing this;
// any other exception a backend throws is a FailureKind::error.
struct BackendFailure : std::runtime_error {
  explicit BackendFailure(const std::string& what, FailureKind failure_kind = FailureKind::error)
      : std::runtime_error(what), kind(failure_kind) {}
  FailureKind kind;
};

// A property a backend's registration says its computation does not promise although its bound's
// kind and determinism class would, and why (properties.h property_exclusion reads it).
struct PropertyExemption {
  Property property;
  std::string reason;
};

// Runs a dense workload: `result` has workload.elements slots and receives values of the
// backend's storage format.
using DenseRun = std::function<void(const DenseWorkload&, std::span<double> result, const RunOptions&)>;
// Runs a product workload: `result` has rows*cols slots (row-major).
using ProductRun = std::function<void(const ProductWorkload&, std::span<double> result, const RunOptions&)>;
// Runs a sparse workload: `result` has rows*dim slots (the whole table).
using SparseRun = std::function<void(const SparseWorkload&, std::span<double> result, const RunOptions&)>;

struct Backend {
  std::string name;
  Device device = Device::cpu;
  Format storage = Format::f32;
  Format accumulation = Format::f32;
  BoundExpr bound;
  Determinism determinism = Determinism::bitwise_deterministic;
  std::string summary;             // one line: what it does
  std::string origin = "builtin";  // "builtin", or the plugin file it came from
  std::vector<PropertyExemption> exemptions;
  // It reads its inputs at the places a workload's layout gives (workload.h): plugins that set
  // ACCUCHECK_ACCEPTS_STRIDES. Every other backend is given contiguous memory.
  bool accepts_strides = false;
  // It models hardware that multiplies FP8 values only (an FP8 tensor-core GEMM): it runs the
  // product workloads whose input_format is E4M3 or E5M2, no others.
  bool fp8_inputs_only = false;
  // It models hardware that truncates its product inputs to fewer bits (TF32): a subnormal input
  // loses an absolute amount no bound kind states, so it runs the product workloads whose A and
  // B hold no nonzero subnormal of the workload's format.
  bool normal_inputs_only = false;
  DenseRun run_dense;  // each backend runs at least one workload kind
  ProductRun run_product;
  SparseRun run_sparse;
  // What its latest run wrote to stdout/stderr, escaped for one line ("" if nothing): plugin
  // backends, whose output the worker captures (plugin_loader.h). Unset for built-ins.
  std::function<std::string()> captured_output;

  std::string bound_text() const { return to_string(bound); }
  bool supports(WorkloadKind kind) const;
  // This workload: its kind, and FP8 (or normal) inputs where the backend takes only those. Every engine
  // asks this before running a workload; the backend is not judged on one it does not run.
  bool runs(const Workload& w) const;
  // Why it does not run w ("" if it does), for messages.
  std::string why_not(const Workload& w) const;
  // Runs any workload kind it supports (throws BackendFailure for a kind it does not).
  void run(const Workload& w, std::span<double> result, const RunOptions& options) const;
};

// Builds a dense backend; the bound text must parse (a bad registration aborts at start-up
// with the message, since it is a programming error in the backend's file).
Backend dense_backend(std::string name, Format storage, Format accumulation, std::string_view bound,
                      Determinism determinism, std::string summary, DenseRun run);
Backend product_backend(std::string name, Format storage, Format accumulation, std::string_view bound,
                        Determinism determinism, std::string summary, ProductRun run);
Backend sparse_backend(std::string name, Format storage, Format accumulation, std::string_view bound,
                       Determinism determinism, std::string summary, SparseRun run);

// The backend with an exemption added: `ACCUCHECK_REGISTER_BACKEND(exempt_from(dense_backend(...),
// Property::scaling, "why"))`.
Backend exempt_from(Backend backend, Property property, std::string reason);

class Registry {
 public:
  static Registry& global();
  // Adds a backend in name order; throws std::invalid_argument on a duplicate or malformed name.
  void add(Backend backend);
  // Every backend, sorted by name (byte order).
  const std::vector<Backend>& all() const { return backends_; }
  const Backend* find(std::string_view name) const;
  // Backends whose name matches a shell glob (fnmatch), in name order.
  std::vector<const Backend*> match(std::string_view glob) const;

 private:
  std::vector<Backend> backends_;
};

// What a backend's origin is, for tables and reports: "built-in", "python" (a Python file's
// backend, or one defined where no file names it: origin "python"), "recorded" (results that
// accucheck.torch.watch or accucheck.check_accumulation judged in a program: origin
// "accucheck.<tool>", no backend to load) or "plugin".
std::string_view origin_kind(std::string_view origin);

// The command-line options that load a backend of this origin again, with a leading space: ""
// for a built-in, a recorded result and a Python backend defined where no file names it,
// " --python FILE.py" for a Python file's, " --plugin LIB.so" for a plugin's.
std::string origin_option(std::string_view origin);

// The options after `accucheck replay CASE` that judge as the run that wrote it did: the
// origin's, and --bound 'EXPR' when `bound` is not what the registered backend of that name
// states (characterize's campaign judges copies stating the derived bounds).
std::string replay_options(std::string_view name, std::string_view origin, std::string_view bound);

// 1 to 128 letters, digits, '_', '-', '.', not starting with '.' or '-' (built-in and plugin names).
bool valid_backend_name(std::string_view name);

// Adds backends to Registry::global() at start-up; a bad registration (a duplicate or malformed
// name) aborts with the message, since it is a programming error in the backend's file.
struct Registration {
  explicit Registration(Backend backend);
  explicit Registration(std::vector<Backend> backends);
};

#define ACCUCHECK_CONCAT_INNER(a, b) a##b
#define ACCUCHECK_CONCAT(a, b) ACCUCHECK_CONCAT_INNER(a, b)
#define ACCUCHECK_REGISTER_BACKEND(...) \
  static const ::accucheck::Registration ACCUCHECK_CONCAT(accucheck_registration_, __COUNTER__) { __VA_ARGS__ }

}  // namespace accucheck
