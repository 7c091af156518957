// fuzz_maxerr: searches for dense inputs that maximise error/bound, per backend.
//
// Same input layout and backends as fuzz_dense (fuzzers/common/fuzz_input.h). For each backend
// the largest error/bound over the elements (non-vacuous bounds whose precondition holds) is
// put into a quarter-octave bucket of log2(ratio), 64 buckets covering [2^-16, 1], and the
// counter (backend, bucket) of an extra coverage section is set. libFuzzer's extra counters
// (the __libfuzzer_extra_counters section, read by clang-14's libFuzzer after every run like
// its own 8-bit counters: "INFO: N Extra Counters" at start-up) make every bucket a feature,
// so an input that reaches a higher bucket than any before it is new coverage and is kept:
// the corpus climbs towards the worst case of every backend.
//
// The worst case per backend is written (atomically, through write_file_atomically) as a case
// file $ACCUCHECK_MAXERR_DIR/<backend>.json (default ./maxerr), replacing the previous record
// only when it is beaten; at start-up and before replacing, a record on disk is re-judged, so
// that parallel jobs (-fork, -jobs) sharing the directory keep the best. A ratio above 1 is a
// violation of the stated bound: it aborts (through the same judge_all as fuzz_dense).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "accucheck/case_file.h"
#include "common/fuzz_check.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"

using namespace accucheck;

namespace {

constexpr std::size_t kBuckets = 64;        // quarter octaves: log2(ratio) in [-16, 0]
constexpr std::size_t kMaxBackends = 256;

// One byte per (backend, bucket). libFuzzer clears the section before each run and collects
// the non-zero bytes as features after it; in the replay build it is an ordinary array.
__attribute__((section("__libfuzzer_extra_counters"), used)) std::uint8_t extra_counters[kMaxBackends * kBuckets];

std::size_t bucket_of(double ratio) {
  if (!(ratio > 0)) return 0;
  const double b = std::floor(4 * std::log2(ratio)) + static_cast<double>(kBuckets);  // 4*log2 in [-64, 0)
  return static_cast<std::size_t>(std::clamp(b, 0.0, static_cast<double>(kBuckets - 1)));
}

std::string record_dir() {
  const char* dir = std::getenv("ACCUCHECK_MAXERR_DIR");
  return dir && *dir ? dir : "maxerr";
}

// The worst error/bound of backend b on the case file at path (0 if there is none or it is unreadable).
double recorded_ratio(const Backend& b, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return 0;
  try {
    const CaseFile c = read_case_file(path);
    if (format_of(c.workload) != b.storage || !b.supports(kind_of(c.workload))) return 0;
    return run_and_judge(b, c.workload).max_ratio;
  } catch (const std::exception&) {
    return 0;
  }
}

struct Record {
  double ratio = -1;  // -1: not loaded from disk yet
};

std::unordered_map<const Backend*, Record>& records() {
  static std::unordered_map<const Backend*, Record> r;
  return r;
}

void maybe_record(const Backend& b, const Workload& w, const BackendOutcome& outcome) {
  Record& rec = records()[&b];
  const std::string path = record_dir() + "/" + b.name + ".json";
  if (rec.ratio < 0) rec.ratio = recorded_ratio(b, path);
  if (!(outcome.max_ratio > rec.ratio)) return;
  // Another job may have written a better one meanwhile.
  rec.ratio = std::max(rec.ratio, recorded_ratio(b, path));
  if (!(outcome.max_ratio > rec.ratio)) return;
  rec.ratio = outcome.max_ratio;
  std::size_t element = 0;
  for (std::size_t e = 0; e < outcome.elements.size(); ++e)
    if (outcome.elements[e].ratio == outcome.max_ratio) element = e;
  const ElementVerdict& v = outcome.elements[element];
  CaseFile c;
  c.workload = w;
  c.backend = b.name;
  c.bound = b.bound_text();
  c.verdict = std::string(name(v.verdict));
  c.found_by = "fuzz_maxerr";
  char note[256];
  std::snprintf(note, sizeof note, "max error/bound %.9g at element %zu: error %.17g, bound %.17g, kappa %.6g", outcome.max_ratio,
                element, v.error, v.bound, v.kappa);
  c.note = note;
  try {
    std::filesystem::create_directories(record_dir());
    write_file_atomically(path, case_to_json(c));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_maxerr: cannot write %s: %s\n", path.c_str(), e.what());
  }
}

// ACCUCHECK_MAXERR_COVERAGE=0 leaves the counters alone (the control run of the
// experiment in docs/fuzzing.md that shows what they buy).
bool counters_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("ACCUCHECK_MAXERR_COVERAGE");
    return !(v && std::string(v) == "0");
  }();
  return enabled;
}

std::size_t backend_index(const Backend* b) {
  static std::unordered_map<const Backend*, std::size_t> index = [] {
    std::unordered_map<const Backend*, std::size_t> m;
    const auto& all = fuzz::selected_backends();
    for (std::size_t i = 0; i < all.size(); ++i) m[all[i]] = i;
    return m;
  }();
  const auto it = index.find(b);
  return it == index.end() ? 0 : it->second % kMaxBackends;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::DecodedInput input = fuzz::decode_input(std::span<const std::uint8_t>(data, size), WorkloadKind::dense);
  const auto judged = fuzz::judge_all("fuzz_maxerr", input.workload, /*every_property=*/false);
  for (const auto& j : judged) {
    if (!(j.outcome.max_ratio > 0)) continue;
    if (counters_enabled()) extra_counters[backend_index(j.backend) * kBuckets + bucket_of(j.outcome.max_ratio)] = 1;
    maybe_record(*j.backend, input.workload, j.outcome);
  }
  return 0;
}

ACCUCHECK_FUZZ_WORKLOAD_MUTATOR(WorkloadKind::dense)
