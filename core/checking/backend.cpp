#include "checking/backend.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "numerics/enum_names.h"
#include "numerics/fp_environment.h"

namespace accucheck {

namespace {

constexpr std::pair<Property, std::string_view> property_spellings[] = {
    {Property::stated_bound, "stated_bound"}, {Property::correctly_rounded, "correctly_rounded"},
    {Property::determinism, "determinism"},   {Property::special_values, "special_values"},
    {Property::scaling, "scaling"},           {Property::negation, "negation"}};
constexpr EnumNames<Property, std::size(all_properties)> property_names(property_spellings);

constexpr std::pair<Determinism, std::string_view> determinism_spellings[] = {
    {Determinism::bitwise_deterministic, "bitwise-deterministic"},
    {Determinism::order_independent, "order-independent"},
    {Determinism::run_to_run_nondeterministic, "run-to-run-nondeterministic"}};
constexpr EnumNames<Determinism, 3> determinism_names(determinism_spellings);

}  // namespace

std::string_view name(Property p) { return property_names.name(p); }

std::optional<Property> parse_property(std::string_view text) { return property_names.parse(text); }

std::string_view name(Device d) { return d == Device::cpu ? "cpu" : "cuda"; }

std::string_view name(Determinism d) { return determinism_names.name(d); }

namespace {

Backend backend_with_bound(std::string name, Format storage, Format accumulation, std::string_view bound,
                           Determinism determinism, std::string summary) {
  std::string error;
  auto parsed = parse_bound(bound, &error);
  if (!parsed) {
    std::fprintf(stderr, "accucheck: backend %s: %s\n", name.c_str(), error.c_str());
    std::abort();
  }
  Backend b;
  b.name = std::move(name);
  b.storage = storage;
  b.accumulation = accumulation;
  b.bound = std::move(*parsed);
  b.determinism = determinism;
  b.summary = std::move(summary);
  return b;
}

}  // namespace

Backend dense_backend(std::string name, Format storage, Format accumulation, std::string_view bound,
                      Determinism determinism, std::string summary, DenseRun run) {
  Backend b = backend_with_bound(std::move(name), storage, accumulation, bound, determinism, std::move(summary));
  b.run_dense = std::move(run);
  return b;
}

Backend product_backend(std::string name, Format storage, Format accumulation, std::string_view bound,
                        Determinism determinism, std::string summary, ProductRun run) {
  Backend b = backend_with_bound(std::move(name), storage, accumulation, bound, determinism, std::move(summary));
  b.run_product = std::move(run);
  return b;
}

Backend sparse_backend(std::string name, Format storage, Format accumulation, std::string_view bound,
                       Determinism determinism, std::string summary, SparseRun run) {
  Backend b = backend_with_bound(std::move(name), storage, accumulation, bound, determinism, std::move(summary));
  b.run_sparse = std::move(run);
  return b;
}

bool Backend::supports(WorkloadKind kind) const {
  switch (kind) {
    case WorkloadKind::dense: return static_cast<bool>(run_dense);
    case WorkloadKind::product: return static_cast<bool>(run_product);
    case WorkloadKind::sparse: return static_cast<bool>(run_sparse);
  }
  return false;
}

// Asked for every backend on every case (the campaign's loop): no message built here.
bool Backend::runs(const Workload& w) const {
  if (!supports(kind_of(w))) return false;
  if (!fp8_inputs_only && !normal_inputs_only) return true;
  const auto* p = std::get_if<ProductWorkload>(&w);
  if (fp8_inputs_only && !(p && p->input_format)) return false;
  return !(normal_inputs_only && p && has_subnormal_input(*p));
}

std::string Backend::why_not(const Workload& w) const {
  if (runs(w)) return "";
  if (!supports(kind_of(w))) return name + " does not run " + std::string(accucheck::name(kind_of(w))) + " workloads";
  const auto* p = std::get_if<ProductWorkload>(&w);
  if (fp8_inputs_only && !(p && p->input_format))
    return name + " takes FP8 inputs only (a product workload with input_format e4m3 or e5m2)";
  return name +
         " takes normal inputs only (no nonzero subnormal in A or B: its truncation of them loses what no bound "
         "states)";
}

void Backend::run(const Workload& w, std::span<double> result, const RunOptions& options) const {
  if (!runs(w)) throw BackendFailure(why_not(w));
  // A backend that leaves the floating-point environment changed (fesetround, FTZ/DAZ) would
  // change every later result and the oracle's own parsing: restored here, and its failure.
  const FpEnvironmentGuard environment;
  try {
    if (auto* d = std::get_if<DenseWorkload>(&w))
      run_dense(*d, result, options);
    else if (auto* p = std::get_if<ProductWorkload>(&w))
      run_product(*p, result, options);
    else
      run_sparse(std::get<SparseWorkload>(w), result, options);
  } catch (...) {
    environment.check_and_restore();
    throw;
  }
  if (const std::string change = environment.check_and_restore(); !change.empty())
    throw BackendFailure(
        name + " changed the floating-point environment and left it changed: " + change + " (accucheck restored it)",
        FailureKind::fp_environment);
}

std::string_view name(FailureKind k) {
  switch (k) {
    case FailureKind::error: return "error";
    case FailureKind::crash: return "crash";
    case FailureKind::exit: return "exit";
    case FailureKind::timeout: return "timeout";
    case FailureKind::overrun: return "overrun";
    case FailureKind::fp_environment: return "fp-environment";
  }
  return "?";
}

Backend exempt_from(Backend backend, Property property, std::string reason) {
  backend.exemptions.push_back({property, std::move(reason)});
  return backend;
}

std::string_view origin_kind(std::string_view origin) {
  if (origin.empty() || origin == "builtin") return "built-in";
  if (origin == "python" || origin.ends_with(".py")) return "python";
  if (origin.starts_with("accucheck.")) return "recorded";  // accucheck.torch.watch, accucheck.check_accumulation
  return "plugin";
}

std::string origin_option(std::string_view origin) {
  // "python": no file to load; "recorded": no backend to load (its case files replay on every backend)
  if (origin_kind(origin) == "built-in" || origin_kind(origin) == "recorded" || origin == "python") return "";
  return std::string(origin_kind(origin) == "python" ? " --python " : " --plugin ") + std::string(origin);
}

std::string replay_options(std::string_view name, std::string_view origin, std::string_view bound) {
  std::string options = origin_option(origin);
  const Backend* registered = Registry::global().find(name);
  if (registered && registered->bound_text() != bound) options += " --bound '" + std::string(bound) + "'";
  return options;
}

bool valid_backend_name(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  // Names become file names (findings/<backend>_<verdict>_<id>.json) and command-line words:
  // no hidden file, no "." or "..", nothing that reads as an option.
  if (name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

Registry& Registry::global() {
  static Registry registry;
  return registry;
}

void Registry::add(Backend backend) {
  if (!valid_backend_name(backend.name))
    throw std::invalid_argument("backend name '" + backend.name +
                                "' must be letters, digits, '_', '-', '.', not starting with '.' or '-'");
  if (find(backend.name)) throw std::invalid_argument("duplicate backend name '" + backend.name + "'");
  // Kept sorted by name: tables, listings and the campaign's streams then do not depend on the
  // order in which object files happen to register (moving a file cannot reorder a table).
  const auto at = std::lower_bound(backends_.begin(), backends_.end(), backend.name,
                                   [](const Backend& b, const std::string& name) { return b.name < name; });
  backends_.insert(at, std::move(backend));
}

const Backend* Registry::find(std::string_view name) const {
  for (const auto& b : backends_)
    if (b.name == name) return &b;
  return nullptr;
}

std::vector<const Backend*> Registry::match(std::string_view glob) const {
  const std::string pattern(glob);
  std::vector<const Backend*> matched;
  for (const auto& b : backends_)
    if (fnmatch(pattern.c_str(), b.name.c_str(), 0) == 0) matched.push_back(&b);
  return matched;
}

Registration::Registration(Backend backend) {
  std::vector<Backend> one;
  one.push_back(std::move(backend));
  Registration{std::move(one)};
}

Registration::Registration(std::vector<Backend> backends) {
  try {
    for (Backend& backend : backends) Registry::global().add(std::move(backend));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accucheck: %s\n", e.what());
    std::abort();
  }
}

}  // namespace accucheck
