// accucheck check: a campaign of generated adversarial workloads against the selected backends.
//
// Every case is generated from (seed, format, case number), run on every selected backend of
// that storage format and judged element by element; determinism is re-checked on a sample.
// A violation is shrunk and written at once (atomically) as a case file under --findings, so
// a campaign killed at any moment keeps what it found.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "accucheck/case_file.h"
#include "accucheck/check.h"
#include "accucheck/families.h"
#include "accucheck/json.h"
#include "accucheck/properties.h"
#include "accucheck/plugin_loader.h"
#include "campaign.h"
#include "cli.h"

namespace accucheck::cli {
namespace {

using Clock = std::chrono::steady_clock;

double parse_minutes(const std::string& text) {
  char* end = nullptr;
  const double minutes = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(minutes > 0) || minutes > 100000)
    throw UsageError("--minutes needs a number of minutes above 0 and at most 100000 (about 69 days), got '" + text + "'");
  return minutes;
}

// A family name that generate() knows ("unknown family 'nope' (mixed_magnitudes, ...)").
void check_family(const std::string& family) {
  if (find_family(family)) return;
  std::string known;
  for (const auto& f : families()) known += (known.empty() ? "" : ", ") + std::string(f.name);
  throw UsageError("unknown family '" + family + "' (" + known + ")");
}

// The largest dense case the limits allow, D x (T + 1) values, must fit in a case file, so that
// every finding can be written; checked here, before anything is allocated.
void check_case_size(const GenerationLimits& l) {
  const std::uint64_t steps = std::max(l.max_steps, l.max_long_steps);
  if (steps < kMaxCaseValues && l.max_elements <= kMaxCaseValues / (steps + 1)) return;
  const char* steps_option = l.max_steps >= l.max_long_steps ? "--max-steps " : "--max-long-steps ";
  throw UsageError("--max-elements " + std::to_string(l.max_elements) + " x (" + steps_option + std::to_string(steps) +
                   " + 1) values per case exceed the " + kMaxCaseValuesText + " values a case may hold");
}

std::uint64_t mix(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  SeededChoiceStream s(seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL));
  return s.next();
}

}  // namespace

int check_command(CommandLine& cl) {
  CampaignOptions options;
  std::optional<double> minutes;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> plugins;
  std::optional<std::string> json_path, junit_path, html_path;
  cl.repeatable("--backend", options.backend_globs, "GLOB", "run the backends whose names match (default: every backend)");
  cl.format("--format", options.format, "only the backends that store this format (f64, f32, f16, bf16)");
  cl.repeatable_option("--family", "NAME", "only these generator families (default: all)", [&](const std::string& family) {
    check_family(family);
    options.families.push_back(family);
  });
  CLI::Option* minutes_option = cl.option("--minutes", "M", "run for M minutes, plugin time included (default 1)",
                                          [&](const std::string& text) { minutes = parse_minutes(text); });
  cl.exclusive(minutes_option, cl.count("--cases", options.cases, "N", "run N cases per format x workload stream instead", 1));
  cl.count("--seed", seed, "S", "the seed, 0 to 2^64-1 (default: a random one, printed)");
  cl.plugins(plugins);
  cl.output_directory("--findings", options.findings_dir, "write the minimized findings here (default findings)");
  cl.output_file("--json", json_path, "write the results as JSON");
  cl.output_file("--junit", junit_path, "write JUnit XML: one testcase per backend x format");
  cl.output_file("--html", html_path, "write the HTML report");
  cl.count("--max-steps", options.limits.max_steps, "N", "at most N steps per case", 1);
  cl.count("--max-long-steps", options.limits.max_long_steps, "N", "at most N steps per long-chain case", 1);
  cl.count("--max-elements", options.limits.max_elements, "N", "at most N elements per case", 1);
  cl.flag("--quiet", options.quiet, "no progress line");
  if (!cl.parse()) return kExitOk;
  check_case_size(options.limits);
  load_plugins(plugins);
  options.seed = seed ? *seed : std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32);
  if (!options.cases) options.seconds = 60.0 * minutes.value_or(1.0);

  options.found_by = "accucheck check --seed " + std::to_string(options.seed);
  for (const auto& plugin : loaded_plugins()) options.found_by += " --plugin " + plugin;

  Campaign campaign(options);
  campaign.run();
  campaign.print_table(stdout);
  write_campaign_outputs(campaign, json_path, junit_path, html_path);
  return campaign.violations() ? kExitViolation : kExitOk;
}

// ---------------------------------------------------------------------------------------------

Campaign::Campaign(CampaignOptions options) : options_(std::move(options)) {
  const Registry& registry = Registry::global();
  std::set<std::string> chosen;
  if (options_.backend_globs.empty()) options_.backend_globs.push_back("*");
  for (const auto& glob : options_.backend_globs) {
    const auto matched = registry.match(glob);
    if (matched.empty()) throw UsageError("--backend '" + glob + "' matches no backend (see accucheck list)");
    for (const Backend* b : matched) chosen.insert(b->name);
  }
  for (const auto& f : options_.families) family_list_.push_back(find_family(f));
  for (const auto& b : registry.all())
    if (chosen.count(b.name) && (!options_.format || b.storage == *options_.format)) {
      stats_.emplace_back();
      stats_.back().backend = &b;
      for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::product, WorkloadKind::sparse}) {
        const bool family_allows = family_list_.empty() || std::any_of(family_list_.begin(), family_list_.end(),
                                                                       [&](const Family* f) { return f->kind == kind; });
        if (b.supports(kind) && family_allows) streams_.insert({b.storage, kind});
      }
    }
  if (stats_.empty()) throw UsageError("no selected backend has storage format " + std::string(name(*options_.format)));
  if (options_.generate && streams_.empty())
    throw UsageError("no selected backend runs the workload kinds of the selected families");
  if (options_.found_by.empty()) options_.found_by = "accucheck check --seed " + std::to_string(options_.seed);
}

void Campaign::retain(const std::function<bool(const Backend&)>& keep) {
  std::erase_if(stats_, [&](const BackendStats& s) { return !keep(*s.backend); });
}

void Campaign::end_progress_line() {
  if (progress_line_open_) std::fprintf(stderr, "\n");
  progress_line_open_ = false;
}

std::size_t Campaign::violations() const {
  std::size_t total = 0;
  for (const auto& s : stats_)
    for (const auto& [verdict, count] : s.violations) total += count;
  return total;
}

const Family* Campaign::pick_family(ChoiceStream& s, WorkloadKind kind) const {
  std::vector<const Family*> of_kind;
  for (const Family* f : family_list_)
    if (f->kind == kind) of_kind.push_back(f);
  if (of_kind.empty()) return nullptr;  // generate() draws among the kind's adversarial families
  return of_kind[s.pick(of_kind.size())];
}

namespace {

// Element e of a workload alone (the same terms in the same order), to start shrinking from
// the element that failed instead of searching for it.
Workload one_element(const Workload& w, std::size_t e) {
  if (auto* d = std::get_if<DenseWorkload>(&w)) {
    DenseWorkload one;
    one.format = d->format;
    one.family = d->family;
    one.elements = 1;
    one.steps = d->steps;
    one.initial = {d->initial[e]};
    one.addends.resize(d->steps);
    for (std::size_t t = 0; t < d->steps; ++t) one.addends[t] = d->addend(t, e);
    return one;
  }
  if (auto* s = std::get_if<SparseWorkload>(&w)) {
    const std::size_t r = e / s->dim, c = e % s->dim;
    SparseWorkload one;
    one.format = s->format;
    one.family = s->family;
    one.rows = one.dim = 1;
    one.steps = s->steps;
    one.initial = {s->initial[e]};
    one.step_offsets.assign(1, 0);
    for (std::size_t t = 0; t < s->steps; ++t) {
      for (std::size_t q = s->step_offsets[t]; q < s->step_offsets[t + 1]; ++q)
        if (s->row_index[q] == r) {
          one.row_index.push_back(0);
          one.values.push_back(s->values[q * s->dim + c]);
        }
      one.step_offsets.push_back(one.row_index.size());
    }
    return one;
  }
  return w;  // product workloads: shrink_workload searches the element itself
}

bool timed_out(const BackendOutcome& outcome) { return outcome.failure.find(" timed out after ") != std::string::npos; }

}  // namespace

void Campaign::record_finding(BackendStats& stats, const Workload& w, const BackendOutcome& outcome, Verdict verdict,
                              const std::string& detail, std::uint64_t case_id, bool has_seed,
                              const std::function<bool(const Workload&)>& still_fails) {
  auto& written = stats.findings_by_class[verdict];
  if (written >= options_.findings_per_class) return;
  ++written;
  const Backend& backend = *stats.backend;
  Workload minimal = w;
  // A backend that hangs is not re-run hundreds of times to shrink its case. When the time
  // budget ends while shrinking, the smallest case found so far is written.
  const auto fails_within_budget = [&](const Workload& candidate) {
    try {
      return still_fails(candidate);
    } catch (const PluginDeadlineReached&) {
      return false;
    }
  };
  if (still_fails && !timed_out(outcome)) {
    if (element_count(w) > 1 && outcome.failure.empty() && !std::holds_alternative<ProductWorkload>(w)) {
      Workload one = one_element(w, outcome.worst_element);
      if (fails_within_budget(one)) minimal = std::move(one);
    }
    minimal = shrink_workload(minimal, fails_within_budget);
  }
  CaseFile c;
  c.workload = minimal;
  c.backend = backend.name;
  c.bound = backend.bound_text();
  c.verdict = std::string(name(verdict));
  if (has_seed) c.seed = case_id;
  c.found_by = options_.found_by;
  c.note = detail;
  std::filesystem::create_directories(options_.findings_dir);
  char file[64];
  std::snprintf(file, sizeof file, "_%016llx.json", static_cast<unsigned long long>(case_id));
  const std::string path = (std::filesystem::path(options_.findings_dir) /
                            (backend.name + "_" + std::string(name(verdict)) + file)).string();
  write_file_atomically(path, case_to_json(c));
  stats.findings.push_back(path);
  end_progress_line();
  std::fprintf(stderr, "FINDING %s: %s\n%s  minimized to %s\n  replay: accucheck replay %s%s\n", backend.name.c_str(),
               std::string(name(verdict)).c_str(), detail.c_str(), describe_shape(minimal).c_str(), path.c_str(),
               backend.origin == "builtin" ? "" : (" --plugin " + backend.origin).c_str());
}

void Campaign::run_case(Format f, WorkloadKind kind, std::uint64_t case_number) {
  const std::uint64_t case_seed =
      mix(options_.seed, 1 + static_cast<std::uint64_t>(f) + 4 * static_cast<std::uint64_t>(kind), case_number);
  SeededChoiceStream stream(case_seed);
  const Family* family = pick_family(stream, kind);
  const Workload w = generate(stream, f, options_.limits, kind, family);
  const std::string full_family = family_of(w);
  evaluate(w, full_family.substr(0, full_family.find('/')), case_seed, true, case_number % 8 == 0, stream);
}

std::size_t Campaign::evaluate(const Workload& w, const std::string& family, std::uint64_t case_id, bool has_seed,
                               bool check_determinism_now, ChoiceStream& sampling) {
  const Format f = format_of(w);
  const WorkloadKind kind = kind_of(w);
  std::vector<ExactSum> exact;
  const std::size_t terms = max_terms(w);
  std::size_t ran = 0;
  for (auto& stats : stats_) {
    const Backend& backend = *stats.backend;
    if (backend.storage != f || !backend.supports(kind)) continue;
    if (budget_spent()) break;
    if (exact.empty()) exact = exact_sums(w);  // once per workload, shared by the backends
    ++ran;
    const auto outcome = run_and_judge(backend, w, exact);
    ++stats.cases;
    for (const auto& e : exact) stats.addends += e.count;
    stats.max_ratio = std::max(stats.max_ratio, outcome.max_ratio);
    stats.max_ulps = std::max(stats.max_ulps, outcome.max_abs_ulps);
    if (!outcome.failure.empty()) {
      ++stats.verdicts[Verdict::backend_failed];
      if (stats.failures.size() < 5) stats.failures.push_back(outcome.failure);
    }
    for (std::size_t j = 0; j < outcome.elements.size(); ++j) {
      const ElementVerdict& v = outcome.elements[j];
      ++stats.verdicts[v.verdict];
      Sample sample{family, terms, v.error, v.bound, v.ratio, v.kappa, v.exact, nearest_double(exact[j].abs_sum), v.verdict};
      stats.add_sample(sample, sampling);
    }
    if (outcome.violated()) {
      ++stats.violations[outcome.worst];
      const Verdict worst = outcome.worst;
      std::string detail = describe_violation(backend, w, outcome);
      if (backend.captured_output)  // before shrinking re-runs it
        if (const std::string output = backend.captured_output(); !output.empty())
          detail += "  the backend wrote to its output: " + output + "\n";
      record_finding(stats, w, outcome, worst, detail, case_id, has_seed,
                     [&](const Workload& candidate) { return run_and_judge(backend, candidate).worst == worst; });
    }
    // Determinism and the metamorphic properties (scaling by 2^k, negation) on a sample of
    // cases: they re-run the backend several times. The same definitions as the property suite.
    if (check_determinism_now && outcome.failure.empty()) {
      if (property_applies(Property::determinism, backend)) ++stats.determinism_checks;
      for (Property p : {Property::determinism, Property::scaling, Property::negation}) {
        if (!property_applies(p, backend)) continue;
        const auto failure = check_property(p, backend, w, exact);
        if (!failure) continue;
        ++stats.violations[failure->verdict];
        record_finding(stats, w, outcome, failure->verdict, failure->detail, case_id, has_seed,
                       [&backend, p](const Workload& candidate) {
                         return check_property(p, backend, candidate).has_value();
                       });
      }
    }
    report_progress();
  }
  return ran;
}

bool Campaign::budget_spent() const { return deadline_ && Clock::now() >= *deadline_; }

void Campaign::report_progress() {
  if (options_.quiet || !options_.generate) return;
  const bool tty = isatty(fileno(stderr));
  const auto now = Clock::now();
  if (std::chrono::duration<double>(now - last_report_).count() < (tty ? 0.2 : 5.0)) return;
  last_report_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double fraction = options_.cases ? double(cases_run_) / double(*options_.cases) : elapsed / options_.seconds;
  const int width = 30, filled = static_cast<int>(std::min(1.0, fraction) * width);
  if (tty) {
    std::fprintf(stderr, "\r[%s%s] %5.1f s  %llu cases/stream  %zu violations ", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), elapsed, static_cast<unsigned long long>(cases_run_),
                 violations());
    progress_line_open_ = true;
  } else {
    std::fprintf(stderr, "accucheck check: %.0f s, %llu cases per stream, %zu violations\n", elapsed,
                 static_cast<unsigned long long>(cases_run_), violations());
  }
}

static std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

void Campaign::run() {
  start_ = last_report_ = Clock::now();
  if (!options_.quiet)
    std::fprintf(stderr, "accucheck check: %zu backends, %zu format x workload streams, seed %llu, %s\n", stats_.size(), streams_.size(),
                 static_cast<unsigned long long>(options_.seed),
                 options_.cases ? (std::to_string(*options_.cases) + " cases per stream").c_str() : seconds_text(options_.seconds).c_str());
  std::optional<PluginCallDeadline> plugin_deadline;
  if (!options_.cases) {
    deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.seconds));
    plugin_deadline.emplace(*deadline_);
  }
  try {
    for (std::uint64_t case_number = 0;; ++case_number) {
      if (options_.cases && case_number >= *options_.cases) break;
      if (budget_spent()) break;
      for (const auto& [f, kind] : streams_) run_case(f, kind, case_number);
      cases_run_ = case_number + 1;
      report_progress();
    }
  } catch (const PluginDeadlineReached& cut) {
    // The budget ended inside a plugin call: that call's case is not judged (every finding
    // before it is written).
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", cut.running_seconds);
    budget_note_ = "the time budget ended during a call of " + cut.call + " (running for " + seconds +
                   " s, under its time-out): that case was not judged";
  }
  elapsed_seconds_ = std::chrono::duration<double>(Clock::now() - start_).count();
  if (progress_line_open_) std::fprintf(stderr, "\n");
  progress_line_open_ = false;
}

void BackendStats::add_sample(const Sample& s, ChoiceStream& stream) {
  // Reservoir sampling keeps a uniform sample of bounded size for reports.
  ++samples_seen;
  if (samples.size() < kMaxSamples) samples.push_back(s);
  else if (auto k = stream.draw(samples_seen - 1); k < kMaxSamples) samples[k] = s;
}

std::string BackendStats::violation_text() const {
  std::string text;
  for (const auto& [verdict, count] : violations)
    text += (text.empty() ? "" : ", ") + std::string(name(verdict)) + " " + std::to_string(count);
  return text.empty() ? "0" : text;
}

void Campaign::print_table(std::FILE* out) const {
  BackendColumns width;
  for (const auto& s : stats_) width.fit(*s.backend);
  std::fprintf(out, "\n%-*s %-6s %-*s %8s  %-28s %13s %10s  %s\n", width.name, "backend", "format", width.bound, "stated bound",
               "cases", "violations", "max err/bound", "max ulps", "determinism");
  for (const auto& s : stats_) {
    const Backend& b = *s.backend;
    std::string determinism;
    if (b.determinism == Determinism::run_to_run_nondeterministic) determinism = "not promised";
    else determinism = "checked " + std::to_string(s.determinism_checks) + "x";
    if (b.origin != "builtin") determinism += "  [plugin " + std::filesystem::path(b.origin).filename().string() + "]";
    std::fprintf(out, "%-*s %-6s %-*s %8llu  %-28s %13.4g %10s  %s\n", width.name, b.name.c_str(),
                 std::string(name(b.storage)).c_str(), width.bound, b.bound_text().c_str(),
                 static_cast<unsigned long long>(s.cases), s.violation_text().c_str(), s.max_ratio, ulps_text(s.max_ulps).c_str(),
                 determinism.c_str());
  }
  for (const auto& s : stats_)
    for (const auto& f : s.failures) std::fprintf(out, "backend failed: %s\n", f.c_str());
  for (const auto& warning : plugin_warnings()) std::fprintf(out, "note: %s\n", warning.c_str());
  if (!budget_note_.empty()) std::fprintf(out, "note: %s\n", budget_note_.c_str());
  const std::string verdict =
      violations() ? std::to_string(violations()) + " violations (findings in " + options_.findings_dir + "/)" : "no violations";
  if (options_.generate)
    std::fprintf(out, "\n%zu backends, %llu cases per format x workload stream, %.1f s, seed %llu: %s\n", stats_.size(),
                 static_cast<unsigned long long>(cases_run_), elapsed_seconds_, static_cast<unsigned long long>(options_.seed),
                 verdict.c_str());
  else
    std::fprintf(out, "\n%zu backends, %llu cases, %.1f s: %s\n", stats_.size(), static_cast<unsigned long long>(cases_run_),
                 elapsed_seconds_, verdict.c_str());
}

std::string Campaign::json() const {
  JsonWriter w;
  w.begin_object()
      .field("tool", options_.tool)
      .field("format_version", 1)
      .field("seed", options_.seed)
      .field("cases_per_stream", cases_run_)
      .field("seconds", elapsed_seconds_)
      .field("violations", static_cast<std::uint64_t>(violations()));
  w.key("notes").begin_array();  // plugin warnings (e.g. one changed the FP environment), the budget's end
  for (const auto& warning : plugin_warnings()) w.value(warning);
  if (!budget_note_.empty()) w.value(budget_note_);
  w.end_array();
  w.key("backends").begin_array();
  for (const auto& s : stats_) {
    const Backend& b = *s.backend;
    w.begin_object()
        .field("name", b.name)
        .field("device", name(b.device))
        .field("storage", name(b.storage))
        .field("precision", traits(b.storage).precision)
        .field("accumulation", name(b.accumulation))
        .field("bound", b.bound_text())
        .field("determinism", name(b.determinism))
        .field("origin", b.origin)
        .field("cases", s.cases)
        .field("addends", s.addends)
        .field("max_ratio", s.max_ratio)
        .field("max_ulps", static_cast<std::int64_t>(s.max_ulps))
        .field("determinism_checks", s.determinism_checks);
    w.key("verdicts").begin_object();
    for (const auto& [verdict, count] : s.verdicts) w.field(name(verdict), count);
    w.end_object();
    w.key("violations").begin_object();
    for (const auto& [verdict, count] : s.violations) w.field(name(verdict), count);
    w.end_object();
    w.key("findings").begin_array();
    for (const auto& f : s.findings) w.value(f);
    w.end_array();
    w.key("failures").begin_array();
    for (const auto& f : s.failures) w.value(f);
    w.end_array();
    w.key("samples").begin_array();
    for (const auto& sample : s.samples) {
      w.begin_object()
          .field("family", sample.family)
          .field("n", static_cast<std::uint64_t>(sample.n))
          .field("error", sample.error)
          .field("bound", sample.bound)
          .field("ratio", sample.ratio)
          .field("kappa", sample.kappa)
          .field("exact", sample.exact)
          .field("abs_sum", sample.abs_sum)
          .field("verdict", name(sample.verdict))
          .end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array().end_object();
  return w.str() + "\n";
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') break;
        out += c;
    }
  }
  return out;
}

std::string Campaign::junit() const {
  // One testcase per backend x format (each backend has one storage format).
  std::string body;
  std::size_t failures = 0;
  for (const auto& s : stats_) {
    const Backend& b = *s.backend;
    body += "    <testcase classname=\"accucheck." + std::string(name(b.storage)) + "\" name=\"" + xml_escape(b.name) +
            "\" time=\"0\">\n";
    if (!s.violations.empty()) {
      ++failures;
      std::string text;
      for (const auto& f : s.findings)
        text += "accucheck replay " + f + (b.origin == "builtin" ? "" : " --plugin " + b.origin) + "\n";
      for (const auto& f : s.failures) text += "backend failed: " + f + "\n";
      body += "      <failure message=\"" + xml_escape(s.violation_text() + " (stated bound " + b.bound_text() + ")") +
              "\">" + xml_escape(text) + "</failure>\n";
    }
    body += "    </testcase>\n";
  }
  char head[256];
  std::snprintf(head, sizeof head,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"%s\" "
                "tests=\"%zu\" failures=\"%zu\" time=\"%.1f\">\n",
                xml_escape(options_.tool).c_str(), stats_.size(), failures, elapsed_seconds_);
  return head + body + "  </testsuite>\n</testsuites>\n";
}

}  // namespace accucheck::cli
