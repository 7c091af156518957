#include "scenarios.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <stdexcept>
#include <tuple>

#include "io/json.h"
#include "io/npy.h"

namespace accucheck::scenarios {

// The scenario files.
ScenarioResult mxnet_16686_cpu();
ScenarioResult mxnet_16686_embedding();
ScenarioResult mxnet_17995();
ScenarioResult mxnet_17703();
ScenarioResult bf16_stagnation();
ScenarioResult bf16_long_accumulation();
ScenarioResult fp8_gemm_accumulation();
ScenarioResult fsdp_bf16_reduce();

const std::vector<Scenario>& all() {
  static const std::vector<Scenario> scenarios = {
      {"mxnet-16686-cpu", "grad_req 'add' (GEMM beta=1) vs manual accumulation on the reporter's saved parameters",
       mxnet_16686_cpu},
      {"mxnet-16686-embedding", "embedding gradient: sorted 'add' order vs manual order, 16 and 32 accumulation steps",
       mxnet_16686_embedding},
      {"mxnet-17995", "ElemwiseSum of 2..8 inputs under kAddTo: the fixed kernel vs MXNet 1.6's double counting",
       mxnet_17995},
      {"mxnet-17703", "fp16 embedding backward: 100000 indices into 8 rows, fp16 vs fp32 accumulation", mxnet_17703},
      {"bf16-stagnation", "a bf16 buffer stops absorbing +1 at 256 (f16 at 2048)", bf16_stagnation},
      {"bf16-long-accumulation", "bf16 gradient accumulation over 10^4 .. 10^6 steps vs Kahan, SR and f32",
       bf16_long_accumulation},
      {"fp8-gemm-accumulation", "FP8 GEMM at K = 4096: 14-bit tensor-core accumulation vs promotion to FP32 every N_C",
       fp8_gemm_accumulation},
      {"fsdp-bf16-reduce", "bf16 gradients all-reduced over 8 .. 384 ranks: bf16 vs fp32 accumulation, ring vs tree",
       fsdp_bf16_reduce},
  };
  return scenarios;
}

const Scenario* find(std::string_view name) {
  for (const auto& s : all())
    if (s.name == name) return &s;
  return nullptr;
}

std::string formatted(const char* format, ...) {
  va_list args, copy;
  va_start(args, format);
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string text(length > 0 ? static_cast<std::size_t>(length) : 0, '\0');
  if (length > 0) std::vsnprintf(text.data(), text.size() + 1, format, args);
  va_end(args);
  return text;
}

ScenarioResult run(const Scenario& s) {
  const auto start = std::chrono::steady_clock::now();
  ScenarioResult r = s.run();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::size_t PathResult::count(Verdict v) const {
  return static_cast<std::size_t>(std::count_if(outcome.elements.begin(), outcome.elements.end(),
                                                [v](const ElementVerdict& e) { return e.verdict == v; }));
}

const PathResult& ScenarioResult::path(std::string_view p, std::string_view tensor) const {
  for (const auto& x : paths)
    if (x.path == p && x.tensor == tensor) return x;
  throw std::out_of_range(name + ": no path '" + std::string(p) + "' for tensor '" + std::string(tensor) + "'");
}

const Divergence& ScenarioResult::divergence(std::string_view tensor, std::string_view a, std::string_view b) const {
  for (const auto& d : divergences)
    if (d.tensor == tensor && d.a == a && d.b == b) return d;
  throw std::out_of_range(name + ": no divergence " + std::string(a) + " vs " + std::string(b) + " for " +
                          std::string(tensor));
}

double ScenarioResult::figure(std::string_view n) const {
  for (const auto& f : figures)
    if (f.name == n) return f.value;
  throw std::out_of_range(name + ": no figure '" + std::string(n) + "'");
}

const Backend& registered(std::string_view name) {
  const Backend* b = Registry::global().find(name);
  if (!b) throw std::runtime_error("backend " + std::string(name) + " is not registered in this build");
  return *b;
}

namespace {

// Worst verdict first, then the largest error/bound among non-vacuous bounds, then the
// largest error.
std::size_t pick_shown(const BackendOutcome& o) {
  std::size_t best = 0;
  auto key = [&](std::size_t j) {
    const ElementVerdict& e = o.elements[j];
    const bool rated = std::isfinite(e.ratio) && std::isfinite(e.bound) && !e.vacuous;
    return std::make_tuple(severity(e.verdict), rated ? e.ratio : -1.0, std::isfinite(e.error) ? e.error : 0.0);
  };
  for (std::size_t j = 1; j < o.elements.size(); ++j)
    if (key(j) > key(best)) best = j;
  return best;
}

}  // namespace

PathResult run_path(std::string path, std::string tensor, const Backend& backend, const Workload& w,
                    const std::vector<ExactSum>& exact, std::vector<std::size_t> shape, const RunOptions& options) {
  PathResult r;
  r.path = std::move(path);
  r.tensor = std::move(tensor);
  r.backend = backend.name;
  r.bound = backend.bound_text();
  r.format = backend.storage;
  r.shape = std::move(shape);
  r.values.assign(element_count(w), 0.0);
  backend.run(w, r.values, options);
  r.outcome = run_and_judge(backend, w, exact, options);
  if (!r.outcome.failure.empty()) throw std::runtime_error(backend.name + " failed: " + r.outcome.failure);
  r.shown = pick_shown(r.outcome);
  return r;
}

void error_figures(ScenarioResult& r, const PathResult& p) {
  double largest_error = 0, largest_sum = 0;
  std::vector<double> relative;
  for (const ElementVerdict& e : p.outcome.elements) {
    largest_error = std::max(largest_error, e.error);
    largest_sum = std::max(largest_sum, std::fabs(e.exact));
    if (e.exact != 0) relative.push_back(e.error / std::fabs(e.exact));
  }
  std::sort(relative.begin(), relative.end());
  const std::string prefix = p.tensor + "." + p.path + ".";
  r.figures.push_back({prefix + "normwise_error", largest_sum > 0 ? largest_error / largest_sum : 0.0,
                       "max |computed - S| / max |S| over the outputs"});
  r.figures.push_back(
      {prefix + "max_relative_error", relative.empty() ? 0.0 : relative.back(), "max |computed - S| / |S|"});
  r.figures.push_back({prefix + "median_relative_error", relative.empty() ? 0.0 : relative[relative.size() / 2],
                       "median |computed - S| / |S|"});
  r.figures.push_back(
      {prefix + "max_bound_ratio", p.outcome.max_ratio, "max error / bound where the bound is defined"});
}

double Normal::operator()() {
  constexpr std::uint64_t kSteps = std::uint64_t{1} << 30;
  const double u1 = (static_cast<double>(stream_.draw(kSteps)) + 0.5) / static_cast<double>(kSteps);  // (0, 1)
  const double u2 = static_cast<double>(stream_.draw(kSteps)) / static_cast<double>(kSteps);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

Divergence diverge(const PathResult& a, const PathResult& b) {
  if (a.values.size() != b.values.size()) throw std::logic_error("diverge: tensors of different sizes");
  Divergence d;
  d.tensor = a.tensor;
  d.a = a.path;
  d.b = b.path;
  d.elements = a.values.size();
  const bool f32 = a.format == Format::f32 && b.format == Format::f32;
  for (std::size_t j = 0; j < a.values.size(); ++j) {
    const double x = a.values[j], y = b.values[j];
    if (!(x == y) && !(std::isnan(x) && std::isnan(y))) ++d.differing;
    if ((x == 0) != (y == 0)) ++(x == 0 ? d.only_a_zero : d.only_b_zero);
    const double absolute = std::fabs(y - x);
    if (std::isfinite(absolute)) d.max_absolute = std::max(d.max_absolute, absolute);
    if (x != 0 && std::isfinite(x) && std::isfinite(y)) {
      // As numpy evaluates np.abs(b - a) / np.abs(a) on float32 tensors: in float.
      const double relative = f32 ? static_cast<double>(std::fabs(static_cast<float>(y) - static_cast<float>(x)) /
                                                        std::fabs(static_cast<float>(x)))
                                  : absolute / std::fabs(x);
      d.max_relative = std::max(d.max_relative, relative);
    }
  }
  return d;
}

// ---------------------------------------------------------------------------------------------
// Output

namespace {

std::string number(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.12g", x);
  return buffer;
}

std::string verdict_counts(const PathResult& p) {
  std::string text;
  for (Verdict v : {Verdict::ok, Verdict::bound_vacuous, Verdict::precondition_not_met, Verdict::bound_exceeded,
                    Verdict::not_correctly_rounded, Verdict::overflow, Verdict::special_value_mismatch,
                    Verdict::not_representable, Verdict::nondeterministic, Verdict::backend_failed}) {
    const std::size_t n = p.count(v);
    if (n) text += (text.empty() ? "" : ", ") + std::string(name(v)) + " " + std::to_string(n);
  }
  return text;
}

void append_row(std::string& out, const std::vector<std::string>& cells, const std::vector<std::size_t>& widths) {
  for (std::size_t k = 0; k < cells.size(); ++k) {
    out += cells[k];
    if (k + 1 < cells.size())
      out += std::string(widths[k] > cells[k].size() ? widths[k] - cells[k].size() + 2 : 2, ' ');
  }
  out += "\n";
}

std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& r : rows)
    for (std::size_t k = 0; k < r.size(); ++k) {
      if (widths.size() <= k) widths.push_back(0);
      widths[k] = std::max(widths[k], r[k].size());
    }
  std::string out;
  for (const auto& r : rows) append_row(out, r, widths);
  return out;
}

}  // namespace

std::string to_text(const ScenarioResult& r) {
  std::string out = "scenario " + r.name + ": " + r.title + "\n";
  for (const auto& p : r.provenance) out += "  " + p + "\n";
  out += "\n";
  std::vector<std::vector<std::string>> rows = {{"path", "tensor", "backend", "bound", "verdicts", "shown", "exact",
                                                 "computed", "error", "bound value", "error/bound", "kappa"}};
  for (const auto& p : r.paths) {
    const ElementVerdict& e = p.shown_element();
    rows.push_back({p.path, p.tensor, p.backend, p.bound, verdict_counts(p), npy_index_text(p.shape, p.shown),
                    number(e.exact), number(e.computed), number(e.error), number(e.bound), number(e.ratio),
                    number(e.kappa)});
  }
  out += table(rows);
  if (!r.divergences.empty()) {
    out += "\n";
    std::vector<std::vector<std::string>> d_rows = {
        {"divergence", "tensor", "max |b-a|/|a|", "max |b-a|", "elements differing", "only a is 0", "only b is 0"}};
    for (const auto& d : r.divergences)
      d_rows.push_back({d.a + " vs " + d.b, d.tensor, number(100 * d.max_relative) + " %", number(d.max_absolute),
                        std::to_string(d.differing) + " of " + std::to_string(d.elements),
                        std::to_string(d.only_a_zero), std::to_string(d.only_b_zero)});
    out += table(d_rows);
  }
  if (!r.figures.empty()) {
    out += "\n";
    std::vector<std::vector<std::string>> f_rows;
    for (const auto& f : r.figures) f_rows.push_back({"  " + f.name, number(f.value), f.note});
    out += "figures:\n" + table(f_rows);
  }
  char time[64];
  std::snprintf(time, sizeof time, "%.2f s", r.seconds);
  out += "\nwhat happened: " + r.story + "\n(" + time + ")\n";
  return out;
}

std::string to_json(const ScenarioResult& r) {
  JsonWriter j;
  j.begin_object();
  j.field("scenario", r.name).field("title", r.title).field("story", r.story).field("seconds", r.seconds);
  j.key("provenance").begin_array();
  for (const auto& p : r.provenance) j.value(p);
  j.end_array();
  j.key("paths").begin_array();
  for (const auto& p : r.paths) {
    j.begin_object();
    j.field("path", p.path).field("tensor", p.tensor).field("backend", p.backend).field("bound", p.bound);
    j.field("format", std::string(name(p.format)));
    j.key("shape").begin_array();
    for (std::size_t s : p.shape) j.value(static_cast<std::uint64_t>(s));
    j.end_array();
    j.field("worst", std::string(name(p.outcome.worst))).field("max_ratio", p.outcome.max_ratio);
    j.key("verdicts").begin_object();
    for (Verdict v : {Verdict::ok, Verdict::bound_vacuous, Verdict::precondition_not_met, Verdict::bound_exceeded,
                      Verdict::not_correctly_rounded, Verdict::overflow, Verdict::special_value_mismatch,
                      Verdict::not_representable, Verdict::nondeterministic, Verdict::backend_failed})
      if (p.count(v)) j.field(name(v), static_cast<std::uint64_t>(p.count(v)));
    j.end_object();
    const ElementVerdict& e = p.shown_element();
    j.key("shown").begin_object();
    j.field("element", static_cast<std::uint64_t>(p.shown)).field("index", npy_index_text(p.shape, p.shown));
    j.field("exact", e.exact).field("computed", e.computed).field("error", e.error).field("bound", e.bound);
    j.field("ratio", e.ratio).field("kappa", e.kappa).field("verdict", std::string(name(e.verdict)));
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.key("divergences").begin_array();
  for (const auto& d : r.divergences) {
    j.begin_object();
    j.field("tensor", d.tensor).field("a", d.a).field("b", d.b).field("max_relative", d.max_relative);
    j.field("max_absolute", d.max_absolute).field("elements", static_cast<std::uint64_t>(d.elements));
    j.field("differing", static_cast<std::uint64_t>(d.differing))
        .field("only_a_zero", static_cast<std::uint64_t>(d.only_a_zero));
    j.field("only_b_zero", static_cast<std::uint64_t>(d.only_b_zero));
    j.end_object();
  }
  j.end_array();
  j.key("figures").begin_array();
  for (const auto& f : r.figures)
    j.begin_object().field("name", f.name).field("value", f.value).field("note", f.note).end_object();
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

std::string file_stem(const PathResult& p) {
  std::string stem = p.path + "_" + p.tensor;
  for (char& c : stem)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) c = '_';
  return stem;
}

std::vector<std::string> dump(const ScenarioResult& r, const std::string& directory) {
  std::filesystem::create_directories(directory);
  std::vector<std::string> written;
  for (const auto& p : r.paths) {
    const std::string file = (std::filesystem::path(directory) / (file_stem(p) + ".npy")).string();
    write_npy(file, p.format, p.shape, p.values);
    written.push_back(file);
  }
  return written;
}

}  // namespace accucheck::scenarios
