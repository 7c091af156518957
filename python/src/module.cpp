// accucheck._accucheck: the extension behind the Python package (python/accucheck). It uses core
// and the registry only: Python backends (accucheck._backends) are registered as backends whose
// run calls back into Python, and check/replay/exact/generate are core's campaign engine, case
// files, exact oracle and families. The package's __init__.py wraps these in result objects.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <csignal>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/bound.h"
#include "checking/choice.h"
#include "checking/families.h"
#include "checking/judge.h"
#include "engine/campaign.h"
#include "io/case_file.h"
#include "io/json.h"
#include "io/results.h"
#include "numerics/exact.h"
#include "numerics/format.h"
#include "plugins/plugin_loader.h"

namespace nb = nanobind;
using namespace accucheck;

namespace {

// fp8_too: the OCP fp8 formats e4m3 and e5m2 as well (only exact takes them).
Format format_from(const std::string& text, bool fp8_too = false) {
  const auto f = fp8_too ? parse_any_format(text) : parse_format(text);
  if (!f)
    throw nb::value_error(
        ("'" + text + "' is not a format (f64, f32, f16, bf16" + (fp8_too ? ", e4m3, e5m2)" : ")")).c_str());
  return *f;
}

// Values of a format as the raw bytes of its storage (format.h's store_value), and back.
std::string storage_bytes(const std::vector<double>& values, Format f) {
  const std::size_t size = storage_size(f);
  std::string out(values.size() * size, '\0');
  for (std::size_t i = 0; i < values.size(); ++i)
    store_value(values[i], f, reinterpret_cast<unsigned char*>(&out[i * size]));
  return out;
}

void decode_storage(const nb::bytes& bytes, Format f, std::span<double> result) {
  const std::size_t size = storage_size(f);
  if (bytes.size() != result.size() * size)
    throw BackendFailure("the Python adapter returned a result of the wrong size");
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.c_str());
  for (std::size_t i = 0; i < result.size(); ++i) result[i] = load_value(data + i * size, f);
}

// An attribute of accucheck._backends (the module is imported once and kept for the life of
// the process, so that no reference is dropped after the interpreter has finalized).
nb::object adapter(const char* name) {
  static PyObject* module = nullptr;
  if (!module) module = nb::module_::import_("accucheck._backends").release().ptr();
  return nb::handle(module).attr(name);
}

// A Python exception during a backend call: that backend's failure. BackendFailure carries the
// adapter's own text (what the backend raised, returned or how long it ran).
[[noreturn]] void backend_failed(nb::python_error& e) {
  if (e.matches(PyExc_KeyboardInterrupt)) {
    // The user's Ctrl-C is nobody's failure: it ends the process as it ends the CLI (what the
    // campaign found is already written, each finding atomically).
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
  std::string text = nb::str(e.value()).c_str();
  if (!e.matches(adapter("BackendFailure")))
    text = std::string(nb::str(e.type().attr("__name__")).c_str()) + ": " + text;
  throw BackendFailure(text);
}

// An adapter argument as Python sees it: raw bytes for a string, the number itself otherwise
// (made with the GIL held).
nb::bytes python_argument(const std::string& s) { return nb::bytes(s.data(), s.size()); }
template <class T>
const T& python_argument(const T& value) {
  return value;
}

// Calls an adapter function of accucheck._backends with the GIL held (the campaign runs
// without it) and decodes the bytes it returns into `result`; a Python exception is the
// backend's failure.
template <class... Args>
void call_adapter(const char* function, Format f, std::span<double> result, const Args&... args) {
  nb::gil_scoped_acquire gil;
  try {
    decode_storage(nb::cast<nb::bytes>(adapter(function)(python_argument(args)...)), f, result);
  } catch (nb::python_error& e) {
    backend_failed(e);
  }
}

// The Python backends registered so far: name -> index in accucheck._backends' table.
std::map<std::string, int>& python_backends() {
  static std::map<std::string, int> registered;
  return registered;
}

// A new Python backend's bound parses and its name is no built-in's or plugin's (a Python backend
// of the same name is the same backend defined again: the package compares the rest). Else ValueError.
void validate_python_backend(const std::string& name, const std::string& bound, const std::string& origin) {
  if (const Backend* existing = Registry::global().find(name); existing && !python_backends().contains(name))
    throw nb::value_error(
        ("backend '" + name + "' is already registered" +
         (existing->origin == "builtin" ? " (a built-in backend)" : " (by plugin " + existing->origin + ")"))
            .c_str());
  std::string error;
  if (!parse_bound(bound, &error))
    throw nb::value_error(("backend '" + name + "'" + (origin.empty() ? "" : " (" + origin + ")") + ": bound '" +
                           bound + "' is not a bound expression: " + error)
                              .c_str());
}

void register_python_backend(const std::string& name, const std::string& storage, const std::string& accumulation,
                             const std::string& bound, const std::string& determinism, const std::string& kind,
                             int index, const std::string& origin, const std::string& summary) {
  validate_python_backend(name, bound, origin);
  if (const auto known = python_backends().find(name); known != python_backends().end()) {
    if (known->second == index) return;  // registered by an earlier check
    throw nb::value_error(("backend '" + name + "' is already registered (another Python function)").c_str());
  }
  const Format s = format_from(storage), a = format_from(accumulation);
  const Determinism d = determinism == "deterministic"       ? Determinism::bitwise_deterministic
                        : determinism == "order_independent" ? Determinism::order_independent
                                                             : Determinism::run_to_run_nondeterministic;
  Backend b;
  if (kind == "sparse") {
    b = sparse_backend(
        name, s, a, bound, d, summary, [index](const SparseWorkload& w, std::span<double> result, const RunOptions&) {
          const std::vector<std::uint64_t> offsets(w.step_offsets.begin(), w.step_offsets.end());
          const std::string offset_bytes(reinterpret_cast<const char*>(offsets.data()), offsets.size() * 8);
          const std::string row_bytes(reinterpret_cast<const char*>(w.row_index.data()), w.row_index.size() * 4);
          call_adapter("_call_sparse", w.format, result, index, w.rows, w.dim, w.steps, offset_bytes, row_bytes,
                       storage_bytes(w.values, w.format), storage_bytes(w.initial, w.format));
        });
  } else if (kind == "product") {
    b = product_backend(
        name, s, a, bound, d, summary, [index](const ProductWorkload& w, std::span<double> result, const RunOptions&) {
          // A and B as values of the storage format (FP8 inputs are values of every storage format).
          call_adapter("_call_product", w.format, result, index, w.rows, w.cols, w.batch, w.steps,
                       storage_bytes(w.a, w.format), storage_bytes(w.b, w.format), storage_bytes(w.initial, w.format));
        });
  } else {
    b = dense_backend(name, s, a, bound, d, summary,
                      [index](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
                        call_adapter("_call_dense", w.format, result, index, w.steps, w.elements,
                                     storage_bytes(w.addends, w.format), storage_bytes(w.initial, w.format));
                      });
  }
  b.origin = origin.empty() ? "python" : origin;
  Registry::global().add(std::move(b));
  python_backends().emplace(name, index);
}

// A campaign over the selected backends; returns (results JSON, verdict table, violations).
std::tuple<std::string, std::string, std::size_t> run_check(
    const std::vector<std::string>& globs, const std::optional<std::string>& format,
    const std::vector<std::string>& families, std::optional<std::uint64_t> cases, double seconds, std::uint64_t seed,
    const std::string& findings_dir, bool maximize, bool fail_fast, bool quiet, std::size_t max_steps,
    std::size_t max_elements, std::size_t max_long_steps) {
  CampaignOptions options;
  options.backend_globs = globs;
  if (format) options.format = format_from(*format);
  for (const auto& f : families)
    if (!find_family(f)) throw nb::value_error(("family '" + f + "' does not exist (accucheck.families())").c_str());
  options.families = families;
  options.cases = cases;
  options.seconds = seconds;
  options.seed = seed;
  options.findings_dir = findings_dir;
  options.maximize = maximize;
  options.stop_at_first_violation = fail_fast;
  options.quiet = quiet;
  if (max_steps) options.limits.max_steps = max_steps;
  if (max_elements) options.limits.max_elements = max_elements;
  if (max_long_steps) options.limits.max_long_steps = max_long_steps;
  options.tool = "accucheck.check (Python)";
  options.found_by = "accucheck check --seed " + std::to_string(seed);
  // The options that load the selected backends again (every backend when no glob is given).
  std::vector<std::string> origins;
  auto add_origin = [&origins](const Backend& b) {
    if (std::find(origins.begin(), origins.end(), b.origin) == origins.end()) origins.push_back(b.origin);
  };
  if (globs.empty())
    for (const auto& b : Registry::global().all()) add_origin(b);
  for (const auto& glob : globs)
    for (const Backend* b : Registry::global().match(glob)) add_origin(*b);
  for (const auto& o : origins) options.found_by += origin_option(o);
  try {
    Campaign campaign(options);
    {
      nb::gil_scoped_release released;  // other Python threads run meanwhile; Python backends take the GIL per call
      campaign.run();
    }
    const CampaignResults results = campaign.results();
    return {results_to_json(results), campaign_table(results, findings_dir, true), campaign.violations()};
  } catch (const CampaignError& e) {
    throw nb::value_error(e.what());
  }
}

nb::dict summary_dict(const Backend& b, const OutcomeSummary& s) {
  nb::dict d;
  d["backend"] = b.name;
  d["verdict"] = std::string(name(s.outcome.worst));
  d["violated"] = s.outcome.violated();
  d["worst_element"] = s.outcome.worst_element;
  d["max_ratio"] = s.outcome.max_ratio;
  d["max_ulps"] = s.outcome.max_abs_ulps;
  d["failure"] = s.outcome.failure;
  nb::dict counts;
  for (std::size_t v = 0; v < kVerdictCount; ++v)
    if (s.counts[v]) counts[std::string(name(static_cast<Verdict>(v))).c_str()] = s.counts[v];
  d["counts"] = counts;
  nb::list elements;
  for (const auto& e : s.most_severe) {
    nb::dict x;
    x["element"] = e.index;
    x["verdict"] = std::string(name(e.verdict.verdict));
    x["exact"] = e.verdict.exact;
    x["computed"] = e.verdict.computed;
    x["correctly_rounded"] = e.verdict.correctly_rounded;
    x["error"] = e.verdict.error;
    x["bound"] = e.verdict.bound;
    x["ratio"] = e.verdict.ratio;
    x["ulps"] = e.verdict.ulps;
    elements.append(x);
  }
  d["elements"] = elements;
  return d;
}

// Re-runs a case file on its backend (or the backends the globs select, of the case's format).
nb::list replay(const std::string& path, const std::vector<std::string>& globs) {
  CaseFile c;
  try {
    c = read_case_file(path);
  } catch (const CaseError& e) {
    throw nb::value_error(e.what());
  }
  const Format f = format_of(c.workload);
  std::vector<const Backend*> chosen;
  if (!globs.empty()) {
    for (const auto& g : globs)
      for (const Backend* b : Registry::global().match(g))
        if (b->storage == f && std::find(chosen.begin(), chosen.end(), b) == chosen.end()) chosen.push_back(b);
    if (chosen.empty())
      throw nb::value_error(("no backend of the case's format " + std::string(name(f)) + " matches").c_str());
  } else if (!c.backend.empty()) {
    const Backend* b = Registry::global().find(c.backend);
    if (!b)
      throw nb::value_error(("the case names backend '" + c.backend +
                             "', which is not registered (import the file that "
                             "registers it)")
                                .c_str());
    chosen.push_back(b);
  } else {
    for (const auto& b : Registry::global().all())
      if (b.storage == f) chosen.push_back(&b);
  }
  nb::list out;
  for (const Backend* b : chosen) {
    OutcomeSummary summary;
    {
      nb::gil_scoped_release released;
      summary = run_and_summarize(*b, c.workload, 20);
    }
    out.append(summary_dict(*b, summary));
  }
  return out;
}

nb::dict exact(const std::vector<double>& values, const std::string& format) {
  const Format f = format_from(format, /*fp8_too=*/true);
  BoostExactAccumulator accumulator;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isnan(values[i]) && !representable(values[i], f))
      throw nb::value_error(("values[" + std::to_string(i) + "] is not a value of " + format).c_str());
    accumulator.add(values[i]);
  }
  const ExactSum& e = accumulator.result();
  nb::dict d;
  const bool finite = e.special == Special::none;
  d["format"] = format;
  d["count"] = e.count;
  d["special"] = std::string(name(e.special));
  d["sum"] = e.rounded(f);
  d["exact_hex"] = finite ? fixed_hex(e.sum) : std::string(name(e.special));
  d["exact_nearest_f64"] = finite ? nearest_double(e.sum) : e.rounded(f);
  d["abs_sum_hex"] = finite ? fixed_hex(e.abs_sum) : std::string();
  d["kappa"] = e.condition_number();
  return d;
}

nb::list family_list() {
  nb::list out;
  for (const auto& f : families())
    out.append(nb::make_tuple(std::string(f.name), std::string(name(f.kind)), std::string(f.summary), f.adversarial));
  return out;
}

// `count` workloads of one family (or the kind's adversarial mix) from a seed, as dicts of raw fields.
nb::list generate_workloads(const std::optional<std::string>& family_name, const std::string& format,
                            const std::string& kind_text, std::uint64_t seed, std::size_t count, std::size_t max_steps,
                            std::size_t max_elements) {
  const Format f = format_from(format);
  const Family* family = nullptr;
  WorkloadKind kind = kind_text == "sparse"    ? WorkloadKind::sparse
                      : kind_text == "product" ? WorkloadKind::product
                                               : WorkloadKind::dense;
  if (kind_text != "dense" && kind_text != "sparse" && kind_text != "product")
    throw nb::value_error(("kind '" + kind_text + "' is not dense, product or sparse").c_str());
  if (family_name) {
    family = find_family(*family_name);
    if (!family) throw nb::value_error(("family '" + *family_name + "' does not exist (accucheck.families())").c_str());
    kind = family->kind;
  }
  GenerationLimits limits;
  if (max_steps) limits.max_steps = max_steps;
  if (max_elements) limits.max_elements = max_elements;
  nb::list out;
  for (std::size_t i = 0; i < count; ++i) {
    SeededChoiceStream stream(seed + i);
    const Workload w = generate(stream, f, limits, kind, family);
    nb::dict d;
    d["format"] = format;
    d["case_json"] = case_to_json(
        CaseFile{w, "", "", "", "accucheck.generate --seed " + std::to_string(seed + i), "", seed + i, {}});
    if (const auto* dense = std::get_if<DenseWorkload>(&w)) {
      d["kind"] = "dense";
      d["family"] = dense->family;
      d["steps"] = dense->steps;
      d["elements"] = dense->elements;
      d["initial"] = dense->initial;
      d["addends"] = dense->addends;
      // The addends' FP8 format (the buffer, initial, stays in `format`), or None.
      if (dense->input_format)
        d["input_format"] = std::string(name(*dense->input_format));
      else
        d["input_format"] = nb::none();
    } else if (const auto* sparse = std::get_if<SparseWorkload>(&w)) {
      d["kind"] = "sparse";
      d["family"] = sparse->family;
      d["rows"] = sparse->rows;
      d["dim"] = sparse->dim;
      d["steps"] = sparse->steps;
      d["initial"] = sparse->initial;
      d["step_offsets"] = std::vector<std::size_t>(sparse->step_offsets);
      d["row_index"] = std::vector<std::uint32_t>(sparse->row_index);
      d["values"] = sparse->values;
      if (sparse->input_format)
        d["input_format"] = std::string(name(*sparse->input_format));
      else
        d["input_format"] = nb::none();
    } else {
      const auto& p = std::get<ProductWorkload>(w);
      d["kind"] = "product";
      d["family"] = p.family;
      d["rows"] = p.rows;
      d["cols"] = p.cols;
      d["batch"] = p.batch;
      d["steps"] = p.steps;
      d["initial"] = p.initial;
      d["a"] = p.a;
      d["b"] = p.b;
      // A's FP8 format (and B's unless b_input_format says), or None.
      if (p.input_format)
        d["input_format"] = std::string(name(*p.input_format));
      else
        d["input_format"] = nb::none();
      if (p.b_input_format)
        d["b_input_format"] = std::string(name(*p.b_input_format));
      else
        d["b_input_format"] = nb::none();
    }
    out.append(d);
  }
  return out;
}

nb::list backend_list() {
  nb::list out;
  for (const auto& b : Registry::global().all()) {
    nb::dict d;
    d["name"] = b.name;
    d["device"] = std::string(name(b.device));
    d["storage"] = std::string(name(b.storage));
    d["accumulation"] = std::string(name(b.accumulation));
    d["bound"] = b.bound_text();
    d["determinism"] = std::string(name(b.determinism));
    d["origin"] = b.origin;
    d["fp8_inputs_only"] = b.fp8_inputs_only;
    d["normal_inputs_only"] = b.normal_inputs_only;
    out.append(d);
  }
  return out;
}

// An accumulation recorded elsewhere (accucheck.torch.watch): per element, the initial buffer
// value, the terms added in order (step-major: steps x elements) and the value the accumulator
// produced, judged against `bound` as a backend's result is. Returns the worst element's verdict,
// max ratio and ulps, every element's verdict, and a case file of the worst element alone (no
// backend named in it: `accucheck replay` runs every backend of its format).
nb::dict judge_accumulation(const std::string& label, const std::string& format, const std::string& bound,
                            const std::vector<double>& initial, const std::vector<double>& addends,
                            const std::vector<double>& computed, bool with_elements) {
  const Format f = format_from(format);
  const std::size_t elements = computed.size();
  if (initial.size() != elements || (elements == 0 ? !addends.empty() : addends.size() % elements != 0))
    throw nb::value_error(
        "judge_accumulation: initial and computed need one value per element, addends a whole "
        "number of steps");
  std::string error;
  if (!parse_bound(bound, &error)) throw nb::value_error(("bound '" + bound + "': " + error).c_str());
  DenseWorkload w;
  w.format = f;
  w.elements = elements;
  w.steps = elements == 0 ? 0 : addends.size() / elements;
  w.initial = initial;
  w.addends = addends;
  w.family = "recorded";
  if (const std::string invalid = w.validate(); !invalid.empty()) throw nb::value_error(invalid.c_str());
  const Backend recorded =
      dense_backend(label, f, f, bound, Determinism::bitwise_deterministic, "an accumulation recorded in a program",
                    [computed](const DenseWorkload&, std::span<double> result, const RunOptions&) {
                      std::copy(computed.begin(), computed.end(), result.begin());
                    });
  BackendOutcome outcome, f32_outcome;
  std::vector<ExactSum> exact;
  // A 16-bit buffer: what fp32 accumulation would have given, the same terms summed in order in
  // f32 and rounded once to the format (the widened path), judged for its error alone.
  const bool sixteen_bit = f == Format::f16 || f == Format::bf16;
  {
    nb::gil_scoped_release released;
    exact = exact_sums(w);
    outcome = run_and_judge(recorded, w, exact);
    if (sixteen_bit) {
      std::vector<double> f32_sums(elements);
      for (std::size_t j = 0; j < elements; ++j) {
        float sum = static_cast<float>(w.initial[j]);
        for (std::size_t t = 0; t < w.steps; ++t) sum = sum + static_cast<float>(w.addend(t, j));
        f32_sums[j] = round_to_format(static_cast<double>(sum), f);
      }
      const Backend widened =
          dense_backend(label + " (f32 accumulation)", f, Format::f32, "widened(recursive(f32)," + format + ")",
                        Determinism::bitwise_deterministic, "the same terms accumulated in f32",
                        [f32_sums](const DenseWorkload&, std::span<double> result, const RunOptions&) {
                          std::copy(f32_sums.begin(), f32_sums.end(), result.begin());
                        });
      f32_outcome = run_and_judge(widened, w, exact);
    }
  }
  std::vector<std::size_t> worse_than_f32;  // elements whose error exceeds fp32 accumulation's
  for (std::size_t j = 0; sixteen_bit && j < elements; ++j)
    if (outcome.elements[j].error > f32_outcome.elements[j].error) worse_than_f32.push_back(j);
  // The elements as replay --json writes them: all of them when asked (the report's samples), the
  // worst one always.
  const auto element_json = [&](JsonWriter& out, std::size_t j) {
    write_element_json(
        out, JudgedElement{j, outcome.elements[j], exact[j].special == Special::none ? fixed_hex(exact[j].sum) : ""});
  };
  JsonWriter per_element, worst;
  per_element.begin_array();
  std::map<std::string, std::size_t> verdict_counts;  // elements per verdict
  double bits_lost = 0;                               // max log2(|error| / |S| / u): the HTML report's "bits lost"
  const double u = std::ldexp(1.0, unit_roundoff_exponent(f));
  for (std::size_t j = 0; j < outcome.elements.size(); ++j) {
    const ElementVerdict& v = outcome.elements[j];
    if (with_elements) element_json(per_element, j);
    ++verdict_counts[std::string(name(v.verdict))];
    if (v.error > 0 && std::isfinite(v.error / std::fabs(v.exact)))
      bits_lost = std::max(bits_lost, std::log2(v.error / std::fabs(v.exact) / u));
  }
  per_element.end_array();
  if (elements > 0) element_json(worst, outcome.worst_element);
  nb::dict d;
  d["verdict"] = std::string(name(outcome.worst));
  d["severity"] = severity(outcome.worst);  // judge.h's order of verdicts: which window is the worst
  d["violated"] = outcome.violated();
  d["worst_element"] = outcome.worst_element;
  d["max_ratio"] = outcome.max_ratio;
  d["max_ulps"] = outcome.max_abs_ulps;
  d["elements_json"] = per_element.str();  // "[]" unless with_elements
  d["worst_json"] = worst.str();           // "" when there are no elements
  d["verdict_counts"] = verdict_counts;
  d["worse_than_f32"] = worse_than_f32;
  d["bits_lost"] = bits_lost;
  std::vector<double> abs_sums;  // A per element, rounded to nearest (the report's scale)
  for (const ExactSum& e : exact) abs_sums.push_back(nearest_double(e.abs_sum));
  d["abs_sums"] = abs_sums;
  if (elements > 0) {
    const std::size_t j = outcome.worst_element;
    DenseWorkload one = w;
    one.elements = 1;
    one.initial = {w.initial[j]};
    one.addends.clear();
    for (std::size_t t = 0; t < w.steps; ++t) one.addends.push_back(w.addend(t, j));
    d["case_json"] =
        case_to_json(CaseFile{one,
                              "",
                              bound,
                              std::string(name(outcome.elements[j].verdict)),
                              "accucheck.torch.watch",
                              label + ": element " + std::to_string(j) + " of the watched sample, accumulated to " +
                                  hex_float(computed[j]) + " (no backend named: replay runs every one of its format)",
                              std::nullopt,
                              {}});
  }
  return d;
}

// A results file (io/results.h's schema) written by Python (accucheck.torch's Report): read by
// core's reader, which names a wrong field, and written back by core's writer, so that
// `accucheck report` reads it as it reads a campaign's.
std::string canonical_results_json(const std::string& text) {
  try {
    return results_to_json(results_from_json(text, "accucheck.torch results"));
  } catch (const ResultsError& e) {
    throw nb::value_error(e.what());
  }
}

}  // namespace

NB_MODULE(_accucheck, m) {
  m.doc() = "accucheck's core: the campaign engine, case files, exact oracle and families (see the accucheck package)";
  m.def("register_backend", &register_python_backend);
  m.def("validate_backend", &validate_python_backend);
  m.def("origin_option", [](const std::string& origin) { return origin_option(origin); });
  m.def("cli_binary", [] {  // the CLI built beside this extension ("" when it was not: pip install)
#ifdef ACCUCHECK_CLI_BINARY
    return std::string(ACCUCHECK_CLI_BINARY);
#else
    return std::string();
#endif
  });
  m.def("check", &run_check);
  m.def("replay", &replay);
  m.def("exact", &exact);
  m.def("judge_accumulation", &judge_accumulation);
  m.def("canonical_results_json", &canonical_results_json);
  m.def("families", &family_list);
  m.def("generate", &generate_workloads);
  m.def("backends", &backend_list);
  m.def("load_plugin", [](const std::string& path) {
    try {
      return load_plugin(path);
    } catch (const PluginError& e) {
      throw nb::value_error(e.what());
    }
  });
}
