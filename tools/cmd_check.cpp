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
#include "campaign.h"
#include "cli.h"

namespace accucheck::cli {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t parse_count(const std::string& text, const std::string& option) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(option + " needs a non-negative integer, got '" + text + "'");
  return std::stoull(text);
}

double parse_minutes(const std::string& text) {
  char* end = nullptr;
  const double minutes = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(minutes > 0) || minutes > 100000)
    throw UsageError("--minutes needs a positive number, got '" + text + "'");
  return minutes;
}

std::uint64_t mix(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  SeededChoiceStream s(seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL));
  return s.next();
}

}  // namespace

int check_command(Args& args) {
  CampaignOptions options;
  options.backend_globs = args.values("backend");
  const auto format_text = args.value("format");
  options.families = args.values("family");
  const auto minutes = args.value("minutes");
  const auto cases = args.value("cases");
  const auto seed = args.value("seed");
  options.findings_dir = args.value("findings").value_or("findings");
  const auto json_path = args.value("json");
  const auto junit_path = args.value("junit");
  if (auto v = args.value("max-steps")) options.limits.max_steps = std::max<std::uint64_t>(1, parse_count(*v, "--max-steps"));
  if (auto v = args.value("max-long-steps"))
    options.limits.max_long_steps = std::max<std::uint64_t>(1, parse_count(*v, "--max-long-steps"));
  if (auto v = args.value("max-elements"))
    options.limits.max_elements = std::max<std::uint64_t>(1, parse_count(*v, "--max-elements"));
  options.quiet = args.flag("quiet");
  if (!args.positionals().empty()) throw UsageError("check takes options only (see accucheck --help)");
  if (minutes && cases) throw UsageError("give --minutes or --cases, not both");

  if (format_text) {
    auto f = parse_format(*format_text);
    if (!f) throw UsageError("unknown format '" + *format_text + "' (f64, f32, f16, bf16)");
    options.format = *f;
  }
  for (const auto& family : options.families)
    if (!find_family(family)) {
      std::string known;
      for (const auto& f : families()) known += (known.empty() ? "" : ", ") + std::string(f.name);
      throw UsageError("unknown family '" + family + "' (" + known + ")");
    }
  options.seed = seed ? parse_count(*seed, "--seed") : std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32);
  if (cases) options.cases = parse_count(*cases, "--cases");
  else options.seconds = 60.0 * (minutes ? parse_minutes(*minutes) : 1.0);

  Campaign campaign(options);
  campaign.run();
  campaign.print_table(stdout);
  if (json_path) write_file_atomically(*json_path, campaign.json());
  if (junit_path) write_file_atomically(*junit_path, campaign.junit());
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
      stats_.push_back(BackendStats{&b});
      for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::product, WorkloadKind::sparse}) {
        const bool family_allows = family_list_.empty() || std::any_of(family_list_.begin(), family_list_.end(),
                                                                       [&](const Family* f) { return f->kind == kind; });
        if (b.supports(kind) && family_allows) streams_.insert({b.storage, kind});
      }
    }
  if (stats_.empty()) throw UsageError("no selected backend has storage format " + std::string(name(*options_.format)));
  if (streams_.empty()) throw UsageError("no selected backend runs the workload kinds of the selected families");
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

void Campaign::record_finding(BackendStats& stats, const Workload& w, Verdict verdict, const std::string& detail,
                              std::uint64_t case_seed, bool shrink) {
  auto& written = stats.findings_by_class[verdict];
  if (written >= options_.findings_per_class) return;
  ++written;
  const Backend& backend = *stats.backend;
  Workload minimal = w;
  if (shrink) {
    minimal = shrink_workload(w, [&](const Workload& candidate) {
      const auto outcome = run_and_judge(backend, candidate);
      return outcome.worst == verdict;
    });
  }
  CaseFile c;
  c.workload = minimal;
  c.backend = backend.name;
  c.bound = backend.bound_text();
  c.verdict = std::string(name(verdict));
  c.seed = case_seed;
  c.found_by = "accucheck check --seed " + std::to_string(options_.seed);
  c.note = detail;
  std::filesystem::create_directories(options_.findings_dir);
  char file[64];
  std::snprintf(file, sizeof file, "_%016llx.json", static_cast<unsigned long long>(case_seed));
  const std::string path = (std::filesystem::path(options_.findings_dir) /
                            (backend.name + "_" + std::string(name(verdict)) + file)).string();
  write_file_atomically(path, case_to_json(c));
  stats.findings.push_back(path);
  std::fprintf(stderr, "%sFINDING %s: %s\n%s  minimized to %s\n  replay: accucheck replay %s\n",
               progress_line_open_ ? "\n" : "", backend.name.c_str(), std::string(name(verdict)).c_str(), detail.c_str(),
               describe_shape(minimal).c_str(), path.c_str());
  progress_line_open_ = false;
}

void Campaign::run_case(Format f, WorkloadKind kind, std::uint64_t case_number) {
  const std::uint64_t case_seed =
      mix(options_.seed, 1 + static_cast<std::uint64_t>(f) + 4 * static_cast<std::uint64_t>(kind), case_number);
  SeededChoiceStream stream(case_seed);
  const Family* family = pick_family(stream, kind);
  const Workload w = generate(stream, f, options_.limits, kind, family);
  const auto exact = exact_sums(w);
  const std::string full_family = family_of(w);
  const std::string family_name = full_family.substr(0, full_family.find('/'));
  const std::size_t terms = max_terms(w);
  for (auto& stats : stats_) {
    const Backend& backend = *stats.backend;
    if (backend.storage != f || !backend.supports(kind)) continue;
    const auto outcome = run_and_judge(backend, w, exact);
    ++stats.cases;
    for (const auto& e : exact) stats.addends += e.count;
    stats.max_ratio = std::max(stats.max_ratio, outcome.max_ratio);
    stats.max_ulps = std::max(stats.max_ulps, outcome.max_abs_ulps);
    for (const auto& v : outcome.elements) {
      ++stats.verdicts[v.verdict];
      Sample sample{family_name, terms, v.error, v.bound, v.ratio, v.kappa, v.verdict};
      stats.add_sample(sample, stream);
    }
    if (outcome.violated()) {
      ++stats.violations[outcome.worst];
      record_finding(stats, w, outcome.worst, describe_violation(backend, w, outcome), case_seed, true);
    }
    // Determinism on a sample of cases (it re-runs the backend several times).
    if (backend.determinism != Determinism::run_to_run_nondeterministic && case_number % 8 == 0) {
      ++stats.determinism_checks;
      SeededChoiceStream order(case_seed ^ 0x5bd1e995);
      const std::string mismatch = check_determinism(backend, w, order);
      if (!mismatch.empty()) {
        ++stats.violations[Verdict::nondeterministic];
        record_finding(stats, w, Verdict::nondeterministic,
                       "backend " + backend.name + " (" + std::string(name(backend.determinism)) + "): " + mismatch + "\n",
                       case_seed, false);
      }
    }
  }
}

void Campaign::run() {
  const auto start = Clock::now();
  const bool tty = isatty(fileno(stderr)) && !options_.quiet;
  auto last_report = start;
  if (!options_.quiet)
    std::fprintf(stderr, "accucheck check: %zu backends, %zu format x workload streams, seed %llu, %s\n", stats_.size(), streams_.size(),
                 static_cast<unsigned long long>(options_.seed),
                 options_.cases ? (std::to_string(*options_.cases) + " cases per stream").c_str()
                                : (std::to_string(options_.seconds) + " s").c_str());
  for (std::uint64_t case_number = 0;; ++case_number) {
    if (options_.cases && case_number >= *options_.cases) break;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (!options_.cases && elapsed >= options_.seconds) break;
    for (const auto& [f, kind] : streams_) run_case(f, kind, case_number);
    cases_run_ = case_number + 1;
    const auto now = Clock::now();
    const double since = std::chrono::duration<double>(now - last_report).count();
    if (!options_.quiet && (tty ? since >= 0.2 : since >= 5.0)) {
      last_report = now;
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
  }
  elapsed_seconds_ = std::chrono::duration<double>(Clock::now() - start).count();
  if (progress_line_open_) std::fprintf(stderr, "\n");
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
  std::fprintf(out, "\n%-24s %-6s %-30s %8s  %-28s %13s %9s  %s\n", "backend", "format", "stated bound", "cases",
               "violations", "max err/bound", "max ulps", "determinism");
  for (const auto& s : stats_) {
    const Backend& b = *s.backend;
    std::string determinism;
    if (b.determinism == Determinism::run_to_run_nondeterministic) determinism = "not promised";
    else determinism = "checked " + std::to_string(s.determinism_checks) + "x";
    std::fprintf(out, "%-24s %-6s %-30s %8llu  %-28s %13.4g %9lld  %s\n", b.name.c_str(), std::string(name(b.storage)).c_str(),
                 b.bound_text().c_str(), static_cast<unsigned long long>(s.cases), s.violation_text().c_str(), s.max_ratio,
                 static_cast<long long>(s.max_ulps), determinism.c_str());
  }
  std::fprintf(out, "\n%zu backends, %llu cases per format x workload stream, %.1f s, seed %llu: %s\n", stats_.size(),
               static_cast<unsigned long long>(cases_run_), elapsed_seconds_,
               static_cast<unsigned long long>(options_.seed),
               violations() ? (std::to_string(violations()) + " violations (findings in " + options_.findings_dir + "/)").c_str()
                            : "no violations");
}

std::string Campaign::json() const {
  JsonWriter w;
  w.begin_object()
      .field("tool", "accucheck check")
      .field("seed", options_.seed)
      .field("cases_per_stream", cases_run_)
      .field("seconds", elapsed_seconds_)
      .field("violations", static_cast<std::uint64_t>(violations()));
  w.key("backends").begin_array();
  for (const auto& s : stats_) {
    const Backend& b = *s.backend;
    w.begin_object()
        .field("name", b.name)
        .field("device", name(b.device))
        .field("storage", name(b.storage))
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
    w.key("samples").begin_array();
    for (const auto& sample : s.samples) {
      w.begin_object()
          .field("family", sample.family)
          .field("n", static_cast<std::uint64_t>(sample.n))
          .field("error", sample.error)
          .field("bound", sample.bound)
          .field("ratio", sample.ratio)
          .field("kappa", sample.kappa)
          .field("verdict", name(sample.verdict))
          .end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array().end_object();
  return w.str() + "\n";
}

std::string Campaign::junit() const {
  // One testcase per backend x format (each backend has one storage format).
  std::string body;
  std::size_t failures = 0;
  for (const auto& s : stats_) {
    const Backend& b = *s.backend;
    body += "    <testcase classname=\"accucheck." + std::string(name(b.storage)) + "\" name=\"" + json_escape(b.name) +
            "\" time=\"0\">\n";
    if (!s.violations.empty()) {
      ++failures;
      std::string findings;
      for (const auto& f : s.findings) findings += "accucheck replay " + f + "\n";
      body += "      <failure message=\"" + s.violation_text() + " (stated bound " + b.bound_text() + ")\">" + findings +
              "</failure>\n";
    }
    body += "    </testcase>\n";
  }
  char head[256];
  std::snprintf(head, sizeof head,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"accucheck check\" "
                "tests=\"%zu\" failures=\"%zu\" time=\"%.1f\">\n",
                stats_.size(), failures, elapsed_seconds_);
  return head + body + "  </testsuite>\n</testsuites>\n";
}

}  // namespace accucheck::cli
