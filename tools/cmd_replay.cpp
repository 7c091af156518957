// accucheck replay CASE [--backend GLOB]... [--json] [--all] [--bound EXPR]
// Re-runs one case file and prints the per-element verdict table (a wide buffer's most severe
// elements and the count per verdict; --all: every element); exit 1 if it still fails.
#include <algorithm>
#include <cstdio>
#include <functional>

#include "checking/judge.h"
#include "checking/properties.h"
#include "cli.h"
#include "engine/findings.h"
#include "io/case_file.h"
#include "io/json.h"
#include "io/memory.h"
#include "io/results.h"

namespace accucheck::cli {

// One rule for the backends a case runs on, named by the case or chosen by --backend: a backend
// runs workloads of its storage format only (its values, its buffer), so one of another format
// is refused, never fed the case's values as if they were its own. A glob keeps the backends of
// the case's format among those it matches.
std::vector<const Backend*> backends_for_case(const std::vector<std::string>& globs, const std::string& named,
                                              Format storage, const std::string& source) {
  const Registry& registry = Registry::global();
  const std::string format_text(name(storage));
  std::vector<const Backend*> chosen;
  if (!globs.empty()) {
    std::string other_formats;  // the first few, for the error
    std::size_t others = 0;
    for (const auto& glob : globs) {
      const auto matched = registry.match(glob);
      if (matched.empty()) throw UsageError("--backend '" + glob + "' matches no backend (see accucheck list)");
      for (const Backend* b : matched) {
        if (b->storage != storage && ++others <= 4)
          other_formats += (other_formats.empty() ? "" : ", ") + b->name + " (" + std::string(name(b->storage)) + ")";
        else if (b->storage == storage && std::find(chosen.begin(), chosen.end(), b) == chosen.end())
          chosen.push_back(b);
      }
    }
    if (others > 4) other_formats += ", ...";
    if (chosen.empty())
      throw UsageError(source + ": the case's format is " + format_text +
                       ", and --backend selects only backends of other storage formats: " + other_formats +
                       " (a backend runs workloads of its own storage format)");
    return chosen;
  }
  if (!named.empty()) {
    const Backend* b = registry.find(named);
    if (!b)
      throw UsageError("the case names backend '" + named +
                       "', which is not registered (see accucheck list; load its plugin with --plugin)");
    if (b->storage != storage)
      throw UsageError(source + ": backend: '" + named + "' stores " + std::string(name(b->storage)) +
                       ", but the case's format is " + format_text +
                       " (a backend runs workloads of its own storage format; --backend GLOB picks " + format_text +
                       " backends)");
    return {b};
  }
  for (const auto& b : registry.all())
    if (b.storage == storage) chosen.push_back(&b);
  return chosen;
}

// Buffers wider than this show their most severe elements and the count per verdict (--all: every element).
constexpr std::size_t kShownElements = 20;

void print_table_header(std::FILE* out) {
  std::fprintf(out, "  %7s %-24s %-24s %-24s %-11s %-11s %-10s %6s %-10s %s\n", "element", "exact", "computed",
               "RNE(S)", "error", "bound", "err/bound", "ulps", "kappa", "verdict");
}

// One row; when the `exact` double is not S itself it ends in `~` and S follows exactly on a line of its own.
void print_element_row(const JudgedElement& e, std::FILE* out) {
  const ElementVerdict& v = e.verdict;
  char exact[40];
  std::snprintf(exact, sizeof exact, "%.17g%s", v.exact, v.exact_is_rounded ? "~" : "");
  std::fprintf(out, "  %7zu %-24s %-24.17g %-24.17g %-11.4g %-11.4g %-10.4g %6lld %-10.4g %s%s\n", e.index, exact,
               v.computed, v.correctly_rounded, v.error, v.bound, v.ratio, static_cast<long long>(v.ulps), v.kappa,
               std::string(name(v.verdict)).c_str(),
               v.vacuous && v.verdict != Verdict::bound_vacuous ? " (vacuous)" : "");
  if (v.exact_is_rounded) std::fprintf(out, "  %7s ~ S = %s exactly\n", "", e.exact_hex.c_str());
}

std::string verdict_counts_text(const OutcomeSummary& summary) {
  std::string text;
  for (std::size_t v = 0; v < kVerdictCount; ++v)
    if (summary.counts[v])
      text += (text.empty() ? "" : ", ") + std::string(name(static_cast<Verdict>(v))) + " " +
              std::to_string(summary.counts[v]);
  return text;
}

// What replaying needs beyond the workload itself: a copy of it (the permuted, scaled and
// negated workloads of the properties, one at a time), the result and up to three more result
// buffers (a rerun, a transformed run, the backend's own scratch), and the blocks of exact
// sums being judged.
std::uint64_t replay_bytes(const Workload& w) {
  constexpr std::uint64_t kFixed = std::uint64_t{32} << 20;
  return 2 * workload_bytes(w) + 4 * sizeof(double) * element_count(w) + kFixed;
}

int replay_command(CommandLine& cl) {
  std::vector<std::string> files, globs;
  BackendSources plugins;
  bool json = false, show_all = false;
  cl.arguments("CASE", files, "the case file (docs/case-format.md)", 1, 1, "replay takes one CASE file");
  cl.repeatable(
      "--backend", globs, "GLOB",
      "run the backends of the case's format whose names match (default: the case's backend, else all of its format)");
  cl.plugins(plugins);
  cl.flag("--json", json, "print the verdicts as JSON");
  cl.flag("--all", show_all, "every element (default: a buffer of more than 20 shows its 20 most severe)");
  std::optional<BoundExpr> bound_override;
  cl.option(
      "--bound", "EXPR",
      "judge against this bound instead of each backend's stated one (a bound `characterize` derived; docs/bounds.md)",
      [&](const std::string& text) {
        std::string error;
        bound_override = parse_bound(text, &error);
        if (!bound_override) throw UsageError("--bound: " + error);
      });
  if (!cl.parse()) return kExitOk;
  load_plugins(plugins);
  CaseFile c;
  try {
    c = read_case_file(files[0]);
  } catch (const CaseError& e) {
    throw UsageError(e.what());
  }
  for (const auto& warning : c.warnings) std::fprintf(stderr, "accucheck replay: warning: %s\n", warning.c_str());
  const Workload& w = c.workload;
  const Format format = format_of(w);
  auto backends = backends_for_case(globs, c.backend, format, files[0]);
  std::string why_none;
  std::erase_if(backends, [&](const Backend* b) {
    if (b->runs(w)) return false;
    if (why_none.empty() && b->supports(kind_of(w))) why_none = " (" + b->why_not(w) + ")";
    return true;
  });
  if (backends.empty())
    throw UsageError("no selected backend runs " + std::string(name(kind_of(w))) + " workloads in " +
                     std::string(name(format)) + why_none);
  std::vector<Backend> restated;  // --bound: copies stating it (kept alive for the pointers below)
  if (bound_override) {
    restated.reserve(backends.size());
    for (const Backend*& b : backends) {
      restated.push_back(*b);
      restated.back().bound = *bound_override;
      b = &restated.back();
    }
  }
  if (auto why = memory_shortfall(replay_bytes(w)))
    throw UsageError(files[0] + ": replaying " + describe_shape(w) + " " + *why);
  const std::size_t elements = element_count(w);
  const bool every_element = show_all || elements <= kShownElements;
  bool failed = false;
  JsonWriter out;
  out.begin_object()
      .field("case", files[0])
      .field("workload", name(kind_of(w)))
      .field("format", name(format))
      .field("elements", elements)
      .field("max_terms", max_terms(w));
  out.key("backends").begin_array();
  if (!json) std::printf("case %s: %s\n\n", files[0].c_str(), describe_shape(w).c_str());
  for (const Backend* b : backends) {
    if (json) {
      out.begin_object().field("backend", b->name).field("bound", b->bound_text());
      out.key("elements").begin_array();
    } else {
      std::printf("%s  (stated bound %s, %s)\n", b->name.c_str(), b->bound_text().c_str(),
                  std::string(name(b->determinism)).c_str());
    }
    // Every element as it is judged (a small buffer, or --all), else the most severe ones.
    std::function<void(const JudgedElement&)> each;
    if (every_element)
      each = [&](const JudgedElement& e) {
        if (json) {
          write_element_json(out, e);
          if (out.str().size() > (std::size_t{1} << 20)) std::fputs(out.take().c_str(), stdout);
        } else {
          if (e.index == 0) print_table_header(stdout);
          print_element_row(e, stdout);
        }
      };
    const OutcomeSummary summary = run_and_summarize(*b, w, every_element ? 0 : kShownElements, each);
    const BackendOutcome& outcome = summary.outcome;
    if (!every_element) {
      if (json) {
        for (const auto& e : summary.most_severe) write_element_json(out, e);
      } else if (outcome.failure.empty()) {
        print_table_header(stdout);
        for (const auto& e : summary.most_severe) print_element_row(e, stdout);
      }
    }
    // The stated bound, then every further property that applies, as every engine defines them
    // (findings.h); they compare with this run's result and take exact sums a block at a time.
    std::vector<Finding> property_failures;
    if (outcome.failure.empty()) property_failures = further_findings(*b, w, summary.result);
    const bool violated = outcome.violated() || !property_failures.empty();
    failed = failed || violated;
    if (json) {
      out.end_array().field("elements_shown", every_element ? "all" : "most_severe");
      out.key("verdicts").begin_object();
      for (std::size_t v = 0; v < kVerdictCount; ++v)
        if (summary.counts[v]) out.field(name(static_cast<Verdict>(v)), summary.counts[v]);
      out.end_object();
      const Verdict worst =
          outcome.violated() || property_failures.empty() ? outcome.worst : property_failures.front().verdict;
      out.field("worst", name(worst)).field("failure", outcome.failure);
      out.key("properties").begin_array();
      for (const auto& f : property_failures)
        out.begin_object()
            .field("property", name(f.property))
            .field("label", f.label)
            .field("detail", f.detail)
            .end_object();
      out.end_array().end_object();
    } else {
      if (!outcome.failure.empty())
        std::printf("  backend failed: %s\n", outcome.failure.c_str());
      else if (!every_element)
        std::printf("  %zu elements: %s; the %zu most severe shown (--all shows every element)\n", elements,
                    verdict_counts_text(summary).c_str(), summary.most_severe.size());
      for (const auto& f : property_failures) std::printf("  %s:\n%s", f.label.c_str(), f.detail.c_str());
      std::printf("  => %s\n\n", violated ? "VIOLATED" : "ok");
    }
  }
  out.end_array().field("failed", failed).end_object();
  if (json) std::printf("%s\n", out.str().c_str());
  return failed ? kExitViolation : kExitOk;
}

}  // namespace accucheck::cli
