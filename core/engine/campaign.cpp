// The campaign engine behind `accucheck check` and `accucheck trace` (campaign.h).
#include "engine/campaign.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "checking/climb.h"
#include "io/case_file.h"
#include "numerics/hash.h"
#include "plugins/plugin_loader.h"

namespace accucheck {
namespace {

using Clock = std::chrono::steady_clock;

// Set by request_campaign_stop (from a signal handler: lock-free, so async-signal-safe).
std::atomic<bool> stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// A case's seed from the campaign's seed, its stream and its number: the first word of a
// SplitMix64 stream seeded with their mix.
std::uint64_t mix(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return splitmix64(seed ^ (a * kSplitMix64Gamma) ^ (b * 0xc2b2ae3d27d4eb4fULL));
}

// Addends judged in a workload: the terms of its elements, each counted once.
std::uint64_t addends_of(const std::vector<ExactSum>& exact) {
  std::uint64_t addends = 0;
  for (const auto& e : exact) addends += e.count;
  return addends;
}

// What the results say of a backend before any case: its declaration.
BackendResults results_of(const Backend& b) {
  BackendResults r;
  r.name = b.name;
  r.device = std::string(name(b.device));
  r.storage = b.storage;
  r.accumulation = std::string(name(b.accumulation));
  r.bound = b.bound_text();
  r.determinism = std::string(name(b.determinism));
  r.origin = b.origin;
  return r;
}

}  // namespace

void request_campaign_stop() noexcept { stop_requested.store(true, std::memory_order_relaxed); }
bool campaign_stop_requested() noexcept { return stop_requested.load(std::memory_order_relaxed); }

Campaign::Campaign(CampaignOptions options) : options_(std::move(options)) {
  const Registry& registry = Registry::global();
  std::set<std::string> chosen;
  if (options_.backend_globs.empty()) options_.backend_globs.push_back("*");
  if (options_.backends.empty())
    for (const auto& glob : options_.backend_globs) {
      const auto matched = registry.match(glob);
      if (matched.empty()) throw CampaignError("--backend '" + glob + "' matches no backend (see accucheck list)");
      for (const Backend* b : matched) chosen.insert(b->name);
    }
  for (const auto& f : options_.families) family_list_.push_back(find_family(f));
  // options_ is not modified from here on: its backends keep their addresses.
  for (const auto& b : options_.backends.empty() ? registry.all() : options_.backends)
    if ((!options_.backends.empty() || chosen.count(b.name)) && (!options_.format || b.storage == *options_.format)) {
      stats_.emplace_back();
      stats_.back().backend = &b;
      stats_.back().results = results_of(b);
      for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::product, WorkloadKind::sparse}) {
        const bool family_allows =
            family_list_.empty() ||
            std::any_of(family_list_.begin(), family_list_.end(), [&](const Family* f) { return f->kind == kind; });
        if (b.supports(kind) && family_allows) streams_.insert({b.storage, kind});
      }
    }
  if (stats_.empty())
    throw CampaignError("no selected backend has storage format " + std::string(name(*options_.format)));
  if (options_.generate && streams_.empty())
    throw CampaignError("no selected backend runs the workload kinds of the selected families");
  if (options_.found_by.empty()) options_.found_by = "accucheck check --seed " + std::to_string(options_.seed);
  if (options_.shard_count == 0 || options_.shard_index >= options_.shard_count)
    throw CampaignError("shard " + std::to_string(options_.shard_index) + " of " +
                        std::to_string(options_.shard_count) + ": the index must be below the count");
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
  for (const auto& s : stats_) total += s.results.violation_count();
  return total;
}

const Family* Campaign::pick_family(ChoiceStream& s, WorkloadKind kind) const {
  std::vector<const Family*> of_kind;
  for (const Family* f : family_list_)
    if (f->kind == kind) of_kind.push_back(f);
  if (of_kind.empty()) return nullptr;  // generate() draws among the kind's adversarial families
  return of_kind[s.pick(of_kind.size())];
}

void Campaign::record_finding(BackendStats& stats, const Workload& w, const Finding& finding, std::uint64_t case_id,
                              bool has_seed) {
  auto& written = stats.findings_by_class[finding.verdict];
  if (written >= options_.findings_per_class) return;
  ++written;
  const Backend& backend = *stats.backend;
  const Workload minimal = minimize_finding(backend, w, finding);
  Provenance provenance{options_.found_by, has_seed ? std::optional<std::uint64_t>(case_id) : std::nullopt};
  const std::string path = write_finding(options_.findings_dir, backend, finding, minimal, provenance);
  stats.results.findings.push_back(path);
  stats.results.finding_origins.push_back({position_, finding.verdict});
  end_progress_line();
  std::fprintf(stderr, "FINDING %s: %s\n%s  minimized to %s\n  replay: accucheck replay %s%s\n", backend.name.c_str(),
               finding.label.c_str(), finding.detail.c_str(), describe_shape(minimal).c_str(), path.c_str(),
               replay_options(backend.name, backend.origin, backend.bound_text()).c_str());
}

void Campaign::run_case(Format f, WorkloadKind kind, std::uint64_t case_number, std::size_t stream_index) {
  position_ = case_number * streams_.size() + stream_index;
  const std::uint64_t case_seed =
      mix(options_.seed, 1 + static_cast<std::uint64_t>(f) + 4 * static_cast<std::uint64_t>(kind), case_number);
  SeededChoiceStream stream(case_seed);
  const Family* family = pick_family(stream, kind);
  const Workload w = generate(stream, f, options_.limits, kind, family);
  const std::string full_family = family_of(w);
  evaluate(w, full_family.substr(0, full_family.find('/')), case_seed, true, case_number % 8 == 0);
}

std::size_t Campaign::evaluate(const Workload& w, const std::string& family, std::uint64_t case_id, bool has_seed,
                               bool check_properties_now) {
  if (!options_.generate) position_ = evaluated_++;
  const Format f = format_of(w);
  std::vector<ExactSum> exact;
  std::uint64_t addends = 0;  // of the workload, counted once for every backend that runs it
  std::size_t ran = 0;
  // The properties beyond the stated bound re-run the backend several times: on a sample of
  // the cases (the caller's choice), with the definitions every engine shares (findings.h).
  FindingPolicy policy;
  policy.further_properties = check_properties_now;
  for (auto& stats : stats_) {
    const Backend& backend = *stats.backend;
    if (backend.storage != f || !backend.runs(w)) continue;
    if (budget_spent()) break;
    if (exact.empty()) {  // once per workload, shared by the backends
      exact = exact_sums(w);
      addends = addends_of(exact);
    }
    ++ran;
    const auto [ratio, element] = judge_on(stats, w, exact, addends, family, policy, case_id, has_seed);
    if (options_.maximize) consider_for_climb(stats, w, ratio, element);
    report_progress();
  }
  return ran;
}

std::pair<double, std::size_t> Campaign::judge_on(BackendStats& stats, const Workload& w,
                                                  const std::vector<ExactSum>& exact, std::uint64_t addends,
                                                  const std::string& family, const FindingPolicy& policy,
                                                  std::uint64_t case_id, bool has_seed) {
  const Backend& backend = *stats.backend;
  const Judgement judgement = find_violations(backend, w, exact, policy);
  const BackendOutcome& outcome = judgement.outcome;
  ++stats.results.cases;
  stats.results.addends += addends;
  stats.results.max_ratio = std::max(stats.results.max_ratio, outcome.max_ratio);
  stats.results.max_ulps = std::max(stats.results.max_ulps, outcome.max_abs_ulps);
  if (!outcome.failure.empty()) {
    ++stats.results.verdicts[Verdict::backend_failed];
    if (stats.results.failures.size() < kMaxFailureMessages) {
      stats.results.failures.push_back(outcome.failure);
      stats.results.failure_positions.push_back(position_);
    }
  }
  const std::size_t terms = max_terms(w);
  if (stats.last_position != position_) {
    stats.last_position = position_;
    stats.judged_at_position = 0;
  }
  const std::uint64_t repeat = stats.judged_at_position++;
  double worst = -1;
  std::size_t worst_element = 0;
  for (std::size_t j = 0; j < outcome.elements.size(); ++j) {
    const ElementVerdict& v = outcome.elements[j];
    ++stats.results.verdicts[v.verdict];
    ResultSample sample{family,    terms,
                        v.error,   v.bound,
                        v.ratio,   v.kappa,
                        v.exact,   nearest_double(exact[j].abs_sum),
                        v.verdict, sample_key(position_, j, repeat)};
    stats.add_sample(sample);
    if (std::isfinite(v.ratio) && v.ratio > worst) {
      worst = v.ratio;
      worst_element = j;
    }
  }
  if (policy.further_properties && outcome.failure.empty() && property_applies(Property::determinism, backend))
    ++stats.results.determinism_checks;
  for (const Finding& finding : judgement.findings) {
    ++stats.results.violations[finding.verdict];
    record_finding(stats, w, finding, case_id, has_seed);
  }
  if (options_.maximize) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    if (!stats.results.seconds_to_ratio_0_9 && stats.results.max_ratio >= 0.9)
      stats.results.seconds_to_ratio_0_9 = seconds;
    if (!stats.results.seconds_to_ratio_0_99 && stats.results.max_ratio >= 0.99)
      stats.results.seconds_to_ratio_0_99 = seconds;
  }
  return {worst, worst_element};
}

void Campaign::consider_for_climb(BackendStats& stats, const Workload& w, double ratio, std::size_t element) {
  if (!(ratio >= 0) || ratio < stats.worst_ratio) return;
  // One element where the workload has several: its terms, in its order, are the case.
  stats.worst = element_count(w) > 1 ? element_alone(w, element) : w;
  stats.worst_ratio = ratio;
  for (double threshold : {0.5, 0.9, 0.99, 1.0})
    if (stats.worst_ratio >= threshold && stats.worst_written_ratio < threshold) {
      write_worst_case(stats);
      break;
    }
}

void Campaign::write_worst_case(BackendStats& stats) {
  if (!stats.worst) return;
  CaseFile c;
  c.workload = *stats.worst;
  c.backend = stats.backend->name;
  c.bound = stats.backend->bound_text();
  c.found_by = options_.found_by + " --maximize";
  char note[160];
  std::snprintf(note, sizeof note, "the worst case --maximize found for %s: error/bound %.6g\n",
                stats.backend->name.c_str(), stats.worst_ratio);
  c.note = note;
  const std::string path = worst_case_path(*stats.backend);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  write_file_atomically(path, case_to_json(c));
  stats.results.worst_case = path;
  stats.worst_written_ratio = stats.worst_ratio;
}

std::string worst_case_file(const CampaignOptions& options, const std::string& backend) {
  std::string file = backend;
  if (options.shard_count > 1)
    file += ".shard-" + std::to_string(options.shard_index) + "-of-" + std::to_string(options.shard_count);
  return (std::filesystem::path(options.findings_dir) / "worst" / (file + ".json")).string();
}

std::string Campaign::worst_case_path(const Backend& backend) const { return worst_case_file(options_, backend.name); }

double Campaign::try_for_climb(BackendStats& stats, const Workload& candidate) {
  const auto exact = exact_sums(candidate);
  const FindingPolicy bound_only{.further_properties = false, .only = std::nullopt, .cross_check_oracle = false};
  const auto [ratio, element] = judge_on(stats, candidate, exact, addends_of(exact), "climb", bound_only, 0, false);
  consider_for_climb(stats, candidate, ratio, element);
  return ratio;
}

void Campaign::seed_climb() {
  const std::size_t max_terms = options_.limits.max_steps + 1;
  for (auto& stats : stats_) {
    std::vector<Workload> seeds = window_climb_seeds(stats.backend->bound, stats.backend->storage, max_terms);
    if (stats.backend->supports(WorkloadKind::dense))
      for (Workload& seed : climb_seeds(stats.backend->storage, max_terms)) seeds.push_back(std::move(seed));
    for (const Workload& seed : seeds) {
      if (budget_spent()) return;
      if (stats.backend->runs(seed)) try_for_climb(stats, seed);
    }
  }
}

void Campaign::climb(std::uint64_t case_number) {
  for (std::size_t b = 0; b < stats_.size(); ++b) {
    BackendStats& stats = stats_[b];
    if (!stats.worst) continue;
    SeededChoiceStream s(mix(options_.seed, 0xc11b + b, case_number));
    const std::size_t max_terms = options_.limits.max_steps + 1;
    for (std::size_t k = 0; k < options_.climb_steps_per_case && !budget_spent(); ++k)
      try_for_climb(stats, climb_mutation(*stats.worst, s, max_terms));
    // The challenger: a second climb, restarted from a fresh start now and then, so that a worst
    // case stuck at a local maximum is not the search's last word.
    if (!stats.backend->supports(WorkloadKind::dense)) continue;
    for (std::size_t k = 0; k < options_.climb_steps_per_case && !budget_spent(); ++k) {
      if (!stats.challenger || stats.challenger_mutations >= options_.climb_restart_after) {
        stats.challenger = climb_start(stats.backend->storage, s, max_terms);
        stats.challenger_ratio = try_for_climb(stats, *stats.challenger);
        stats.challenger_mutations = 0;
        continue;
      }
      Workload candidate = climb_mutation(*stats.challenger, s, max_terms);
      ++stats.challenger_mutations;
      const double ratio = try_for_climb(stats, candidate);
      if (ratio >= stats.challenger_ratio) {
        stats.challenger = std::move(candidate);
        stats.challenger_ratio = ratio;
      }
    }
  }
}

bool Campaign::budget_spent() const { return campaign_stop_requested() || (deadline_ && Clock::now() >= *deadline_); }

void Campaign::report_progress() {
  if (!options_.generate || (options_.quiet && !options_.on_progress)) return;
  const auto now = Clock::now();
  if (options_.on_progress && std::chrono::duration<double>(now - last_progress_call_).count() >= 1.0) {
    last_progress_call_ = now;
    options_.on_progress(cases_run_, violations());
  }
  if (options_.quiet) return;
  const bool tty = isatty(fileno(stderr));
  if (std::chrono::duration<double>(now - last_report_).count() < (tty ? 0.2 : 5.0)) return;
  last_report_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double fraction =
      options_.cases ? double(cases_run_) / double(cases_in_shard(options_)) : elapsed / options_.seconds;
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

namespace {
std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}
}  // namespace

std::string Campaign::start_line() const {
  return "accucheck check: " + std::to_string(stats_.size()) + " backends, " + std::to_string(streams_.size()) +
         " format x workload streams, seed " + std::to_string(options_.seed) + ", " +
         (options_.cases ? std::to_string(*options_.cases) + " cases per stream" : seconds_text(options_.seconds));
}

std::uint64_t cases_in_shard(const CampaignOptions& options) {
  if (!options.cases || *options.cases <= options.shard_index) return 1;
  return (*options.cases - options.shard_index + options.shard_count - 1) / options.shard_count;
}

void Campaign::run() {
  start_ = last_report_ = Clock::now();
  if (!options_.quiet) std::fprintf(stderr, "%s\n", start_line().c_str());
  std::optional<PluginCallDeadline> plugin_deadline;
  if (!options_.cases) {
    deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.seconds));
    plugin_deadline.emplace(*deadline_);
  }
  try {
    for (std::uint64_t case_number = options_.shard_index;; case_number += options_.shard_count) {
      if (options_.cases && case_number >= *options_.cases) break;
      if (budget_spent()) break;
      if (case_number == options_.shard_index && options_.maximize) seed_climb();
      std::size_t stream_index = 0;
      for (const auto& [f, kind] : streams_) run_case(f, kind, case_number, stream_index++);
      if (options_.maximize) climb(case_number);
      ++cases_run_;
      report_progress();
      if (options_.stop_at_first_violation && violations()) {
        budget_note_ = "stopped at the first violation (--fail-fast)";
        break;
      }
    }
  } catch (const PluginDeadlineReached& cut) {
    // The budget ended inside a plugin call: that call's case is not judged (every finding
    // before it is written).
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", cut.running_seconds);
    budget_note_ = "the time budget ended during a call of " + cut.call + " (running for " + seconds +
                   " s, under its time-out): that case was not judged";
  }
  if (campaign_stop_requested() && budget_note_.empty()) budget_note_ = kStoppedBySignalNote;
  elapsed_seconds_ = std::chrono::duration<double>(Clock::now() - start_).count();
  for (auto& stats : stats_)
    if (stats.worst && stats.worst_written_ratio < stats.worst_ratio) write_worst_case(stats);
  end_progress_line();
}

void BackendStats::add_sample(const ResultSample& s) {
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  const std::uint64_t key = s.key;
  if (sample_heap.size() == kMaxSamples) {
    if (key >= sample_heap.front().first) return;
    std::pop_heap(sample_heap.begin(), sample_heap.end(), by_key);
    sample_heap.pop_back();
  }
  sample_heap.emplace_back(key, s);
  std::push_heap(sample_heap.begin(), sample_heap.end(), by_key);
}

BackendResults BackendStats::results_with_samples() const {
  BackendResults r = results;
  auto kept = sample_heap;
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, sample] : kept) r.samples.push_back(std::move(sample));
  return r;
}

CampaignResults Campaign::results() const {
  CampaignResults r;
  r.tool = options_.tool;
  r.seed = options_.seed;
  r.cases_per_stream = cases_run_;
  r.shard_index = options_.shard_index;
  r.shard_count = options_.shard_count;
  r.seconds = elapsed_seconds_;
  r.notes = plugin_warnings();
  if (!budget_note_.empty()) r.notes.push_back(budget_note_);
  for (const auto& s : stats_) r.backends.push_back(s.results_with_samples());
  return r;
}

}  // namespace accucheck
