#include "io/results.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "checking/backend.h"
#include "checking/judge.h"
#include "io/json.h"
#include "io/json_parse.h"
#include "numerics/hash.h"
#include "numerics/number_parse.h"

namespace accucheck {

namespace {
// printf onto the end of a string.
[[gnu::format(printf, 2, 3)]] void appendf(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (length > 0) {
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(length) + 1);
    std::vsnprintf(out.data() + start, static_cast<std::size_t>(length) + 1, format, args);
    out.resize(start + static_cast<std::size_t>(length));
  }
  va_end(args);
}
}  // namespace

std::string ulps_text(std::int64_t ulps) {
  if (ulps > -10'000'000 && ulps < 10'000'000) return std::to_string(ulps);
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", static_cast<double>(ulps));
  return text;
}

namespace {
// A bound as the table shows it: a long one (characterize's depths tables) cut to 48 characters;
// the JSON and the case files keep it whole.
std::string shown_bound(const std::string& bound) { return bound.size() <= 48 ? bound : bound.substr(0, 45) + "..."; }
}  // namespace

std::string campaign_table(const CampaignResults& results, const std::string& findings_dir, bool generated) {
  std::string out;
  int name_width = 7, bound_width = 12;  // at least the headers; long plugin names keep the table aligned
  for (const auto& b : results.backends) {
    name_width = std::max(name_width, static_cast<int>(b.name.size()));
    bound_width = std::max(bound_width, static_cast<int>(shown_bound(b.bound).size()));
  }
  // --maximize: when 0.9 and 0.99 of the bound were first reached.
  const bool climbed = std::any_of(results.backends.begin(), results.backends.end(), [](const BackendResults& b) {
    return !b.worst_case.empty() || b.seconds_to_ratio_0_9;
  });
  auto seconds = [](const std::optional<double>& s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", s.value_or(0));
    return s ? std::string(text) : std::string("-");
  };
  appendf(out, "\n%-*s %-6s %-*s %8s  %-28s %13s %10s  %s%s\n", name_width, "backend", "format", bound_width,
          "stated bound", "cases", "violations", "max err/bound", "max ulps", climbed ? "to 0.9 s  to 0.99 s  " : "",
          "determinism");
  for (const auto& b : results.backends) {
    std::string determinism;
    if (b.determinism == name(Determinism::run_to_run_nondeterministic))
      determinism = "not promised";
    else
      determinism = "checked " + std::to_string(b.determinism_checks) + "x";
    if (b.origin == "python")
      determinism += "  [python]";  // defined where no file names it (python -c, a notebook)
    else if (origin_kind(b.origin) != "built-in")
      determinism +=
          "  [" + std::string(origin_kind(b.origin)) + " " + std::filesystem::path(b.origin).filename().string() + "]";
    char climb[48] = "";
    if (climbed)
      std::snprintf(climb, sizeof climb, "%8s  %9s  ", seconds(b.seconds_to_ratio_0_9).c_str(),
                    seconds(b.seconds_to_ratio_0_99).c_str());
    appendf(out, "%-*s %-6s %-*s %8llu  %-28s %13.4g %10s  %s%s\n", name_width, b.name.c_str(),
            std::string(name(b.storage)).c_str(), bound_width, shown_bound(b.bound).c_str(),
            static_cast<unsigned long long>(b.cases), b.violation_text().c_str(), b.max_ratio,
            ulps_text(b.max_ulps).c_str(), climb, determinism.c_str());
  }
  for (const auto& b : results.backends)
    for (const auto& f : b.failures) appendf(out, "backend failed: %s\n", f.c_str());
  for (const auto& note : results.notes) appendf(out, "note: %s\n", note.c_str());
  if (climbed) appendf(out, "worst cases (--maximize): %s/worst/<backend>.json\n", findings_dir.c_str());
  const std::uint64_t violations = results.violation_count();
  const std::string verdict =
      violations ? std::to_string(violations) + " violations (findings in " + findings_dir + "/)" : "no violations";
  std::string shard;
  if (results.shard_count > 1)
    shard = " (shard " + std::to_string(results.shard_index) + " of " + std::to_string(results.shard_count) + ")";
  if (generated)
    appendf(out, "\n%zu backends, %llu cases per format x workload stream%s, %.1f s, seed %llu: %s\n",
            results.backends.size(), static_cast<unsigned long long>(results.cases_per_stream), shard.c_str(),
            results.seconds, static_cast<unsigned long long>(results.seed), verdict.c_str());
  else
    appendf(out, "\n%zu backends, %llu cases, %.1f s: %s\n", results.backends.size(),
            static_cast<unsigned long long>(results.cases_per_stream), results.seconds, verdict.c_str());
  return out;
}

std::uint64_t BackendResults::violation_count() const {
  std::uint64_t total = 0;
  for (const auto& [verdict, count] : violations) total += count;
  return total;
}

std::string BackendResults::violation_text() const {
  std::string text;
  for (const auto& [verdict, count] : violations)
    text += (text.empty() ? "" : ", ") + std::string(accucheck::name(verdict)) + " " + std::to_string(count);
  return text.empty() ? "0" : text;
}

std::uint64_t CampaignResults::violation_count() const {
  std::uint64_t total = 0;
  for (const auto& b : backends) total += b.violation_count();
  return total;
}

void write_element_json(JsonWriter& out, const JudgedElement& e) {
  const ElementVerdict& v = e.verdict;
  out.begin_object()
      .field("element", static_cast<std::uint64_t>(e.index))
      .field("verdict", name(v.verdict))
      .field("exact", v.exact)
      .field("exact_is_rounded", v.exact_is_rounded);
  if (!e.exact_hex.empty()) out.field("exact_hex", e.exact_hex);
  out.field("computed", v.computed)
      .field("correctly_rounded", v.correctly_rounded)
      .field("error", v.error)
      .field("bound", v.bound)
      .field("ratio", v.ratio)
      .field("ulps", v.ulps)
      .field("kappa", v.kappa)
      .field("vacuous", v.vacuous)
      .field("precondition_met", v.precondition_met)
      .end_object();
}

std::string results_to_json(const CampaignResults& r) {
  JsonWriter w;
  w.begin_object()
      .field("tool", r.tool)
      .field("format_version", kResultsFormatVersion)
      .field("seed", r.seed)
      .field("cases_per_stream", r.cases_per_stream)
      .field("shard_index", r.shard_index)
      .field("shard_count", r.shard_count)
      .field("seconds", r.seconds)
      .field("violations", r.violation_count());
  w.key("notes").begin_array();  // plugin warnings (e.g. one changed the FP environment), the budget's end
  for (const auto& note : r.notes) w.value(note);
  w.end_array();
  w.key("backends").begin_array();
  for (const auto& b : r.backends) {
    w.begin_object()
        .field("name", b.name)
        .field("device", b.device)
        .field("storage", name(b.storage))
        .field("precision", traits(b.storage).precision)
        .field("accumulation", b.accumulation)
        .field("bound", b.bound)
        .field("determinism", b.determinism)
        .field("origin", b.origin)
        .field("cases", b.cases)
        .field("addends", b.addends)
        .field("max_ratio", b.max_ratio)
        .field("max_ulps", b.max_ulps)
        .field("determinism_checks", b.determinism_checks);
    if (b.seconds_to_ratio_0_9) w.field("seconds_to_ratio_0_9", *b.seconds_to_ratio_0_9);
    if (b.seconds_to_ratio_0_99) w.field("seconds_to_ratio_0_99", *b.seconds_to_ratio_0_99);
    if (!b.worst_case.empty()) w.field("worst_case", b.worst_case);
    for (const auto* counts : {&b.verdicts, &b.violations}) {
      w.key(counts == &b.verdicts ? "verdicts" : "violations").begin_object();
      for (const auto& [verdict, count] : *counts) w.field(name(verdict), count);
      w.end_object();
    }
    for (const auto* list : {&b.findings, &b.failures}) {
      w.key(list == &b.findings ? "findings" : "failures").begin_array();
      for (const auto& text : *list) w.value(text);
      w.end_array();
    }
    // Where the findings and failures came from (merge_results), when known for each of them.
    if (!b.findings.empty() && b.finding_origins.size() == b.findings.size()) {
      w.key("finding_origins").begin_array();
      for (const auto& origin : b.finding_origins)
        w.begin_object().field("position", origin.position).field("verdict", name(origin.verdict)).end_object();
      w.end_array();
    }
    if (!b.failures.empty() && b.failure_positions.size() == b.failures.size()) {
      w.key("failure_positions").begin_array();
      for (const auto position : b.failure_positions) w.value(position);
      w.end_array();
    }
    w.key("samples").begin_array();
    for (const auto& s : b.samples)
      w.begin_object()
          .field("family", s.family)
          .field("n", s.n)
          .field("error", s.error)
          .field("bound", s.bound)
          .field("ratio", s.ratio)
          .field("kappa", s.kappa)
          .field("exact", s.exact)
          .field("abs_sum", s.abs_sum)
          .field("verdict", name(s.verdict))
          .field("key", s.key)
          .end_object();
    w.end_array();
    w.end_object();
  }
  w.end_array().end_object();
  return w.str() + "\n";
}

namespace {

// Field access with errors that name the file and the field.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw ResultsError(source_ + ": " + field + ": " + what);
  }
  const JsonValue& member(const JsonValue& object, std::string_view key, const std::string& path) const {
    const JsonValue* v = object.find(key);
    if (!v) fail(path + std::string(key), "missing");
    return *v;
  }
  const JsonValue* optional(const JsonValue& object, std::string_view key) const {
    const JsonValue* v = object.find(key);
    return v && v->type != JsonValue::Type::null ? v : nullptr;
  }
  std::string string(const JsonValue& v, const std::string& field) const {
    if (v.type != JsonValue::Type::string) fail(field, "must be a string, not " + std::string(v.type_name()));
    return v.text;
  }
  double number(const JsonValue& v, const std::string& field) const {
    if (v.type == JsonValue::Type::string) {  // JsonWriter writes non-finite doubles as strings
      if (v.text == "nan") return NAN;
      if (v.text == "inf") return INFINITY;
      if (v.text == "-inf") return -INFINITY;
      fail(field, "must be a number, not the string '" + v.text + "'");
    }
    if (v.type != JsonValue::Type::number) fail(field, "must be a number, not " + std::string(v.type_name()));
    return std::strtod(v.text.c_str(), nullptr);
  }
  std::uint64_t count(const JsonValue& v, const std::string& field) const {
    bool too_large = false;
    const auto value = v.type == JsonValue::Type::number ? parse_u64(v.text, &too_large) : std::nullopt;
    if (too_large) fail(field, v.text + " is too large (at most " + kU64MaxText + ")");
    if (!value) fail(field, "must be a non-negative integer");
    return *value;
  }
  // An integer exactly, sign included: through a double, 2^63-1 (the saturated max ulps of an f64
  // backend) became 2^63, and its conversion back to int64 overflowed to -2^63.
  std::int64_t integer(const JsonValue& v, const std::string& field) const {
    const bool negative = v.type == JsonValue::Type::number && !v.text.empty() && v.text[0] == '-';
    const auto magnitude =
        v.type == JsonValue::Type::number ? parse_u64(std::string_view(v.text).substr(negative)) : std::nullopt;
    const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
    if (!magnitude || *magnitude > limit)
      fail(field,
           "must be an integer of 64 bits, not " + (v.text.empty() ? std::string(v.type_name()) : echo_token(v.text)));
    return negative ? static_cast<std::int64_t>(0 - *magnitude) : static_cast<std::int64_t>(*magnitude);
  }
  const JsonValue& array(const JsonValue& v, const std::string& field) const {
    if (v.type != JsonValue::Type::array) fail(field, "must be an array, not " + std::string(v.type_name()));
    return v;
  }
  const JsonValue& object(const JsonValue& v, const std::string& field) const {
    if (v.type != JsonValue::Type::object) fail(field, "must be an object, not " + std::string(v.type_name()));
    return v;
  }
  Verdict verdict(std::string_view text, const std::string& field) const {
    const auto v = parse_verdict(text);
    if (!v) fail(field, echo_token(std::string(text)) + " is not a verdict (ok, bound-exceeded, overflow, ...)");
    return *v;
  }
  std::vector<std::string> strings(const JsonValue& object, std::string_view key, const std::string& at) const {
    std::vector<std::string> out;
    if (auto* v = optional(object, key)) {
      array(*v, at + std::string(key));
      for (std::size_t k = 0; k < v->items.size(); ++k)
        out.push_back(string(v->items[k], at + std::string(key) + "[" + std::to_string(k) + "]"));
    }
    return out;
  }
  std::map<Verdict, std::uint64_t> counts(const JsonValue& object, std::string_view key, const std::string& at) const {
    std::map<Verdict, std::uint64_t> out;
    if (auto* v = optional(object, key)) {
      this->object(*v, at + std::string(key));
      for (const auto& [verdict_name, count] : v->members) {
        const std::string field = at + std::string(key) + "." + verdict_name;
        out[verdict(verdict_name, field)] += this->count(count, field);
      }
    }
    return out;
  }

 private:
  const std::string& source_;
};

ResultSample read_sample(const Reader& r, const JsonValue& js, const std::string& at) {
  ResultSample s;
  s.family = r.string(r.member(js, "family", at), at + "family");
  s.n = static_cast<std::uint64_t>(r.number(r.member(js, "n", at), at + "n"));
  s.error = r.number(r.member(js, "error", at), at + "error");
  s.bound = r.number(r.member(js, "bound", at), at + "bound");
  s.ratio = r.number(r.member(js, "ratio", at), at + "ratio");
  s.kappa = r.number(r.member(js, "kappa", at), at + "kappa");
  s.verdict = r.verdict(r.string(r.member(js, "verdict", at), at + "verdict"), at + "verdict");
  s.exact = NAN;
  s.abs_sum = NAN;
  if (auto* e = r.optional(js, "exact")) s.exact = r.number(*e, at + "exact");
  if (auto* a = r.optional(js, "abs_sum")) s.abs_sum = r.number(*a, at + "abs_sum");
  if (auto* k = r.optional(js, "key")) s.key = r.count(*k, at + "key");  // files of earlier versions: 0
  return s;
}

BackendResults read_backend(const Reader& r, const JsonValue& jb, const std::string& at) {
  BackendResults b;
  b.name = r.string(r.member(jb, "name", at), at + "name");
  const std::string storage = r.string(r.member(jb, "storage", at), at + "storage");
  const auto format = parse_format(storage);
  if (!format) r.fail(at + "storage", "'" + storage + "' is not a format (f64, f32, f16, bf16)");
  b.storage = *format;
  b.bound = r.string(r.member(jb, "bound", at), at + "bound");
  b.cases = r.count(r.member(jb, "cases", at), at + "cases");
  b.max_ratio = r.number(r.member(jb, "max_ratio", at), at + "max_ratio");
  if (auto* v = r.optional(jb, "device")) b.device = r.string(*v, at + "device");
  if (auto* v = r.optional(jb, "accumulation")) b.accumulation = r.string(*v, at + "accumulation");
  if (auto* v = r.optional(jb, "determinism")) b.determinism = r.string(*v, at + "determinism");
  if (auto* v = r.optional(jb, "origin")) b.origin = r.string(*v, at + "origin");
  if (auto* v = r.optional(jb, "addends")) b.addends = r.count(*v, at + "addends");
  if (auto* v = r.optional(jb, "determinism_checks")) b.determinism_checks = r.count(*v, at + "determinism_checks");
  if (auto* v = r.optional(jb, "max_ulps")) b.max_ulps = r.integer(*v, at + "max_ulps");
  if (auto* v = r.optional(jb, "seconds_to_ratio_0_9"))
    b.seconds_to_ratio_0_9 = r.number(*v, at + "seconds_to_ratio_0_9");
  if (auto* v = r.optional(jb, "seconds_to_ratio_0_99"))
    b.seconds_to_ratio_0_99 = r.number(*v, at + "seconds_to_ratio_0_99");
  if (auto* v = r.optional(jb, "worst_case")) b.worst_case = r.string(*v, at + "worst_case");
  b.verdicts = r.counts(jb, "verdicts", at);
  b.violations = r.counts(jb, "violations", at);
  b.findings = r.strings(jb, "findings", at);
  b.failures = r.strings(jb, "failures", at);
  if (auto* v = r.optional(jb, "finding_origins")) {
    r.array(*v, at + "finding_origins");
    for (std::size_t k = 0; k < v->items.size(); ++k) {
      const std::string oat = at + "finding_origins[" + std::to_string(k) + "]";
      const JsonValue& jo = r.object(v->items[k], oat);
      b.finding_origins.push_back(
          {r.count(r.member(jo, "position", oat + "."), oat + ".position"),
           r.verdict(r.string(r.member(jo, "verdict", oat + "."), oat + ".verdict"), oat + ".verdict")});
    }
    if (b.finding_origins.size() != b.findings.size())
      r.fail(at + "finding_origins", std::to_string(b.finding_origins.size()) + " entries for " +
                                         std::to_string(b.findings.size()) + " findings");
  }
  if (auto* v = r.optional(jb, "failure_positions")) {
    r.array(*v, at + "failure_positions");
    for (std::size_t k = 0; k < v->items.size(); ++k)
      b.failure_positions.push_back(r.count(v->items[k], at + "failure_positions[" + std::to_string(k) + "]"));
    if (b.failure_positions.size() != b.failures.size())
      r.fail(at + "failure_positions", std::to_string(b.failure_positions.size()) + " entries for " +
                                           std::to_string(b.failures.size()) + " failures");
  }
  if (auto* v = r.optional(jb, "samples")) {
    r.array(*v, at + "samples");
    for (std::size_t k = 0; k < v->items.size(); ++k) {
      const std::string sat = at + "samples[" + std::to_string(k) + "]";
      b.samples.push_back(read_sample(r, r.object(v->items[k], sat), sat + "."));
    }
  }
  return b;
}

}  // namespace

CampaignResults results_from_json(std::string_view json_text, const std::string& source) {
  const JsonParseResult parsed = parse_json(json_text);
  if (!parsed.ok()) throw ResultsError(source + ": not valid JSON: " + parsed.error);
  Reader r(source);
  const JsonValue& root = r.object(parsed.value, "(top level)");
  CampaignResults results;
  results.tool = r.string(r.member(root, "tool", ""), "tool");
  if (results.tool.rfind("accucheck", 0) != 0)
    r.fail("tool", "'" + results.tool + "' is not an accucheck results file");
  if (auto* v = r.optional(root, "seed")) results.seed = r.count(*v, "seed");
  if (auto* v = r.optional(root, "cases_per_stream")) results.cases_per_stream = r.count(*v, "cases_per_stream");
  if (auto* v = r.optional(root, "shard_count")) results.shard_count = r.count(*v, "shard_count");
  if (results.shard_count == 0) r.fail("shard_count", "must be at least 1");
  if (auto* v = r.optional(root, "shard_index")) results.shard_index = r.count(*v, "shard_index");
  if (results.shard_index >= results.shard_count)
    r.fail("shard_index",
           std::to_string(results.shard_index) + " is not below shard_count " + std::to_string(results.shard_count));
  if (auto* v = r.optional(root, "seconds")) results.seconds = r.number(*v, "seconds");
  results.notes = r.strings(root, "notes", "");
  const JsonValue& backends = r.array(r.member(root, "backends", ""), "backends");
  for (std::size_t i = 0; i < backends.items.size(); ++i) {
    const std::string at = "backends[" + std::to_string(i) + "]";
    results.backends.push_back(read_backend(r, r.object(backends.items[i], at), at + "."));
  }
  return results;
}

std::uint64_t sample_key(std::uint64_t position, std::uint64_t element, std::uint64_t repeat) {
  return splitmix64(fnv1a_le64(repeat, fnv1a_le64(element, fnv1a_le64(position, fnv1a("sample")))));
}

namespace {

// The shards' entries of one list, each with the position it came from, earliest first (ties:
// the shard order, then the text, so that the merge does not depend on the order of the parts).
template <typename Entry>
void sort_by_position(std::vector<std::pair<std::uint64_t, Entry>>& entries) {
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

void merge_backend(BackendResults& into, const BackendResults& part) {
  into.cases += part.cases;
  into.addends += part.addends;
  into.determinism_checks += part.determinism_checks;
  into.max_ratio = std::max(into.max_ratio, part.max_ratio);
  into.max_ulps = std::max(into.max_ulps, part.max_ulps);
  for (const auto& [verdict, count] : part.verdicts) into.verdicts[verdict] += count;
  for (const auto& [verdict, count] : part.violations) into.violations[verdict] += count;
  for (auto* earliest : {&into.seconds_to_ratio_0_9, &into.seconds_to_ratio_0_99}) {
    const auto& theirs =
        earliest == &into.seconds_to_ratio_0_9 ? part.seconds_to_ratio_0_9 : part.seconds_to_ratio_0_99;
    if (theirs && (!*earliest || *theirs < **earliest)) *earliest = theirs;
  }
}

// The shard that distinct shards of one count make together (merge_results, results.h).
void merge_shards(const std::vector<CampaignResults>& parts, CampaignResults& out) {
  const std::uint64_t count = parts[0].shard_count, n = parts.size();
  std::vector<std::uint64_t> indices;
  for (const auto& p : parts) indices.push_back(p.shard_index);
  std::sort(indices.begin(), indices.end());
  out.shard_index = indices[0];
  out.shard_count = count;
  if (count % n == 0) {
    const std::uint64_t m = count / n;
    bool one_class = indices[0] < m;
    for (std::uint64_t j = 0; j < n && one_class; ++j) one_class = indices[j] == indices[0] + m * j;
    if (one_class) {
      out.shard_count = m;
      return;
    }
  }
  std::string held;
  for (auto k : indices) held += (held.empty() ? "" : ", ") + std::to_string(k);
  out.notes.push_back("these results hold shards " + held + " of " + std::to_string(count) +
                      " only: the cases of the others are missing");
}

}  // namespace

MergedResults merge_results(const std::vector<CampaignResults>& parts, const std::vector<std::string>& sources,
                            std::size_t findings_per_class) {
  if (parts.empty()) throw ResultsError("no results to merge");
  auto source = [&](std::size_t i) { return i < sources.size() ? sources[i] : "part " + std::to_string(i + 1); };
  MergedResults merged;
  CampaignResults& out = merged.results;
  out.tool = parts[0].tool;
  out.seed = parts[0].seed;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const CampaignResults& part = parts[i];
    if (part.seed != out.seed)
      throw ResultsError(source(i) + ": seed: " + std::to_string(part.seed) + ", not the seed of " + source(0) + " (" +
                         std::to_string(out.seed) + "): not a shard of the same campaign");
    if (part.tool != out.tool)
      throw ResultsError(source(i) + ": tool: '" + part.tool + "', not '" + out.tool + "' as in " + source(0));
    if (part.backends.size() != parts[0].backends.size())
      throw ResultsError(source(i) + ": backends: " + std::to_string(part.backends.size()) + " backends, " + source(0) +
                         " has " + std::to_string(parts[0].backends.size()));
    for (std::size_t b = 0; b < part.backends.size(); ++b)
      if (part.backends[b].name != parts[0].backends[b].name || part.backends[b].bound != parts[0].backends[b].bound)
        throw ResultsError(source(i) + ": backends[" + std::to_string(b) + "]: " + part.backends[b].name + " stating " +
                           part.backends[b].bound + ", where " + source(0) + " has " + parts[0].backends[b].name +
                           " stating " + parts[0].backends[b].bound);
    if (part.shard_count != parts[0].shard_count)
      throw ResultsError(source(i) + ": shard_count: " + std::to_string(part.shard_count) + ", where " + source(0) +
                         " has " + std::to_string(parts[0].shard_count) + ": not shards of one split");
    for (std::size_t j = 0; j < i; ++j)
      if (parts[j].shard_index == part.shard_index)
        throw ResultsError(source(i) + ": shard " + std::to_string(part.shard_index) + " of " +
                           std::to_string(part.shard_count) + " is also " + source(j) +
                           ": its cases would count twice");
    out.cases_per_stream += part.cases_per_stream;
    out.seconds = std::max(out.seconds, part.seconds);
    for (const auto& note : part.notes)
      if (std::find(out.notes.begin(), out.notes.end(), note) == out.notes.end()) out.notes.push_back(note);
  }
  merge_shards(parts, out);
  for (std::size_t b = 0; b < parts[0].backends.size(); ++b) {
    BackendResults into = parts[0].backends[b];
    into.cases = into.addends = into.determinism_checks = 0;
    into.max_ratio = 0;
    into.max_ulps = 0;
    into.verdicts.clear();
    into.violations.clear();
    into.findings.clear();
    into.failures.clear();
    into.finding_origins.clear();
    into.failure_positions.clear();
    into.samples.clear();
    into.seconds_to_ratio_0_9 = into.seconds_to_ratio_0_99 = std::nullopt;
    into.worst_case.clear();
    std::vector<std::pair<std::uint64_t, std::pair<std::string, Verdict>>> findings;
    std::vector<std::pair<std::uint64_t, std::string>> failures;
    std::vector<std::pair<std::uint64_t, ResultSample>> samples;
    double worst_ratio = -1;
    for (const CampaignResults& part : parts) {
      const BackendResults& theirs = part.backends[b];
      merge_backend(into, theirs);
      for (std::size_t k = 0; k < theirs.findings.size(); ++k) {
        // A file of an earlier version says nothing of its origin: last, its class from its name.
        const bool known = k < theirs.finding_origins.size();
        findings.push_back({known ? theirs.finding_origins[k].position : UINT64_MAX,
                            {theirs.findings[k], known ? theirs.finding_origins[k].verdict : Verdict::ok}});
      }
      for (std::size_t k = 0; k < theirs.failures.size(); ++k)
        failures.push_back(
            {k < theirs.failure_positions.size() ? theirs.failure_positions[k] : UINT64_MAX, theirs.failures[k]});
      for (const ResultSample& s : theirs.samples) samples.push_back({s.key, s});
      if (!theirs.worst_case.empty()) {
        if (theirs.max_ratio > worst_ratio) {
          if (!into.worst_case.empty()) merged.superseded.push_back(into.worst_case);
          into.worst_case = theirs.worst_case;
          worst_ratio = theirs.max_ratio;
        } else {
          merged.superseded.push_back(theirs.worst_case);
        }
      }
    }
    sort_by_position(findings);
    std::map<Verdict, std::size_t> kept;
    for (const auto& [position, finding] : findings) {
      const auto& [path, verdict] = finding;
      if (position != UINT64_MAX && kept[verdict]++ >= findings_per_class) {
        merged.superseded.push_back(path);
        continue;
      }
      into.findings.push_back(path);
      if (position != UINT64_MAX) into.finding_origins.push_back({position, verdict});
    }
    if (into.finding_origins.size() != into.findings.size()) into.finding_origins.clear();  // some of unknown origin
    sort_by_position(failures);
    for (const auto& [position, message] : failures) {
      if (into.failures.size() == kMaxFailureMessages) break;
      into.failures.push_back(message);
      into.failure_positions.push_back(position);
    }
    if (std::find(into.failure_positions.begin(), into.failure_positions.end(), UINT64_MAX) !=
        into.failure_positions.end())
      into.failure_positions.clear();
    std::sort(samples.begin(), samples.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t k = 0; k < samples.size() && k < kMaxSamples; ++k) into.samples.push_back(samples[k].second);
    out.backends.push_back(std::move(into));
  }
  // Case files are named by their content: two shards may have written the same file, one copy
  // kept and the other superseded. A file the merged results name is never superseded.
  std::set<std::string> named;
  for (const auto& b : out.backends) {
    named.insert(b.findings.begin(), b.findings.end());
    if (!b.worst_case.empty()) named.insert(b.worst_case);
  }
  std::erase_if(merged.superseded, [&](const std::string& path) { return !named.insert(path).second; });
  return merged;
}

}  // namespace accucheck
