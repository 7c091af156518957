#include "fuzz_check.h"

#include <fnmatch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>

#include "engine/findings.h"
#include "io/case_file.h"
#include "numerics/hash.h"
#include "plugins/plugin_loader.h"

namespace accucheck::fuzz {
namespace {

std::deque<Backend>& extra_backends() {
  static std::deque<Backend> extra;  // deque: pointers stay valid
  return extra;
}

// A glob with a leading '-' excludes what it matches (a backend with a known, documented finding
// that would stop every run at once); the others include, all when there are none.
bool selected_by_env(const std::string& name) {
  const char* globs = std::getenv("ACCUCHECK_FUZZ_BACKENDS");
  if (!globs || !*globs) return true;
  const std::string list = globs;
  bool any_include = false, included = false;
  for (std::size_t begin = 0; begin <= list.size();) {
    std::size_t end = list.find(',', begin);
    if (end == std::string::npos) end = list.size();
    std::string glob = list.substr(begin, end - begin);
    begin = end + 1;
    const bool exclude = !glob.empty() && glob[0] == '-';
    if (exclude) glob.erase(0, 1);
    if (glob.empty()) continue;
    const bool matches = fnmatch(glob.c_str(), name.c_str(), 0) == 0;
    if (exclude && matches) return false;
    if (!exclude) {
      any_include = true;
      included = included || matches;
    }
  }
  return included || !any_include;
}

// ACCUCHECK_FUZZ_PROPERTY_EVERY=K: the properties beyond the stated bound (determinism,
// correct rounding, scaling, negation: several reruns each) only on the workloads whose hash
// is 0 mod K, a deterministic function of the workload, so any input replays the same way;
// replaying with K = 1 (the default) checks everything on every input, so a finding made with
// K > 1 always reproduces.
std::uint64_t property_every() {
  static const std::uint64_t k = [] {
    const char* text = std::getenv("ACCUCHECK_FUZZ_PROPERTY_EVERY");
    const long long v = text ? std::atoll(text) : 1;
    return static_cast<std::uint64_t>(v > 1 ? v : 1);
  }();
  return k;
}

bool properties_sampled(const Workload& w) {
  const std::uint64_t k = property_every();
  if (k == 1) return true;
  std::uint64_t h = kFnv1aOffsetBasis;
  std::vector<double> terms;
  for (std::size_t e = 0; e < element_count(w); ++e) {
    element_terms(w, e, terms);
    for (double x : terms) {
      std::uint64_t bits;
      std::memcpy(&bits, &x, sizeof bits);
      h = fnv1a_le64(bits, h);
    }
  }
  // FNV's low bits mix poorly; the modulus sees the SplitMix64 finalizer of the hash.
  return splitmix64(h) % k == 0;
}

}  // namespace

void add_extra_backend(Backend backend) { extra_backends().push_back(std::move(backend)); }

const std::vector<const Backend*>& selected_backends() {
  static const std::vector<const Backend*> chosen = [] {
    // Plugins named by ACCUCHECK_PLUGINS are fuzzed like built-in CPU backends (they run in a
    // worker process: a crash there is that backend's failure, reported as a finding).
    try {
      load_plugins_from_environment();
    } catch (const PluginError& e) {
      std::fprintf(stderr, "accucheck fuzzer: %s\n", e.what());
      std::_Exit(2);  // not abort(): a bad environment is no finding for libFuzzer to keep
    }
    for (const auto& warning : plugin_warnings())
      std::fprintf(stderr, "accucheck fuzzer: warning: %s\n", warning.c_str());
    std::vector<const Backend*> out;
    for (const Backend& b : Registry::global().all())
      if (b.device == Device::cpu && selected_by_env(b.name)) out.push_back(&b);
    for (const Backend& b : extra_backends())
      if (selected_by_env(b.name)) out.push_back(&b);
    if (out.empty()) {
      std::fprintf(stderr, "accucheck fuzzer: no backend selected (ACCUCHECK_FUZZ_BACKENDS=%s)\n",
                   std::getenv("ACCUCHECK_FUZZ_BACKENDS") ? std::getenv("ACCUCHECK_FUZZ_BACKENDS") : "");
    }
    return out;
  }();
  return chosen;
}

const std::vector<const Backend*>& backends_for(Format f, WorkloadKind kind) {
  static std::map<std::pair<Format, WorkloadKind>, std::vector<const Backend*>> cache;
  const auto key = std::make_pair(f, kind);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::vector<const Backend*> list;
  for (const Backend* b : selected_backends())
    if (b->storage == f && b->supports(kind)) list.push_back(b);
  return cache.emplace(key, std::move(list)).first->second;
}

void report_and_abort(const char* target, const std::string& what, const Workload& w, const Backend* backend,
                      const std::string& verdict) {
  CaseFile c;
  c.workload = w;
  if (backend) {
    c.backend = backend->name;
    c.bound = backend->bound_text();
  }
  c.verdict = verdict;
  c.found_by = std::string(target);
  std::string json;
  try {
    json = case_to_json(c);
  } catch (const std::exception& e) {
    json = std::string("(case file could not be written: ") + e.what() + ")";
  }
  std::fprintf(
      stderr,
      "\n==== accucheck %s: VIOLATION ====\n%s\n---- the workload as a case file (accucheck replay CASE) ----\n%s\n"
      "==== end of accucheck report ====\n",
      target, what.c_str(), json.c_str());
  std::fflush(stderr);
  std::abort();
}

std::vector<Judged> judge_all(const char* target, const Workload& w, bool every_property, bool cross_check_oracle) {
  const std::string invalid = validate(w);
  if (!invalid.empty()) report_and_abort(target, "the generator made an invalid workload: " + invalid, w);
  std::vector<Judged> judged;
  const auto& backends = backends_for(format_of(w), kind_of(w));
  if (backends.empty() && !cross_check_oracle) return judged;
  const std::vector<ExactSum> exact = exact_sums(w);
  if (cross_check_oracle)  // once per workload, backends or not
    if (const auto f = oracle_finding(w, exact)) report_and_abort(target, f->detail, w, nullptr, f->label);
  judged.reserve(backends.size());
  FindingPolicy policy;
  policy.further_properties = every_property && properties_sampled(w);
  for (const Backend* b : backends) {
    if (!b->runs(w)) continue;  // an FP8-only model on other inputs
    Judgement judgement = find_violations(*b, w, exact, policy);
    if (judgement.violated()) {
      const Finding& f = judgement.findings.front();
      const std::string what = f.property == Property::stated_bound
                                   ? f.detail
                                   : "property " + std::string(name(f.property)) + " fails:\n" + f.detail;
      report_and_abort(target, what, w, b, f.label);
    }
    judged.push_back({b, std::move(judgement.outcome)});
  }
  return judged;
}

}  // namespace accucheck::fuzz

// ACCUCHECK_FUZZ_LIST_BACKENDS=1: print the backends this target could run (after
// ACCUCHECK_FUZZ_BACKENDS), one per line: name, workload kinds, storage format, stated bound;
// then exit.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using namespace accucheck;
  if (std::getenv("ACCUCHECK_FUZZ_LIST_BACKENDS")) {
    for (const Backend* b : fuzz::selected_backends()) {
      std::string kinds;
      for (WorkloadKind k : {WorkloadKind::dense, WorkloadKind::sparse, WorkloadKind::product})
        if (b->supports(k)) kinds += (kinds.empty() ? "" : ",") + std::string(name(k));
      std::printf("%s %s %s %s\n", b->name.c_str(), kinds.c_str(), std::string(name(b->storage)).c_str(),
                  b->bound_text().c_str());
    }
    std::exit(0);
  }
  return 0;
}
