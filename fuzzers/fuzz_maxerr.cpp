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
//
// The climb (core/checking/climb.h, what `check --maximize` does): a quarter of the custom mutator's
// outputs are a climb mutation of one backend's worst case so far (its worst element alone),
// encoded as an explicit-mode input, so the search also moves by significand bits, exponent
// shifts, swaps, moves, exact splits and half-ulp growth from the best it has, not only by the
// byte edits that reach a new bucket. ACCUCHECK_MAXERR_CLIMB=0 turns it off.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "checking/climb.h"
#include "checking/judge.h"
#include "checking/shrink.h"
#include "common/fuzz_check.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"
#include "io/case_file.h"

using namespace accucheck;

namespace {

constexpr std::size_t kBuckets = 64;  // quarter octaves: log2(ratio) in [-16, 0]
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
    if (format_of(c.workload) != b.storage || !b.runs(c.workload)) return 0;
    return run_and_judge(b, c.workload).max_ratio;
  } catch (const std::exception&) {
    return 0;
  }
}

struct Record {
  double ratio = -1;              // -1: not loaded from disk yet
  std::optional<Workload> worst;  // the worst element alone, in this process (the climb's start)
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
  rec.worst = element_count(w) > 1 ? element_alone(w, element) : w;
  CaseFile c;
  c.workload = w;
  c.backend = b.name;
  c.bound = b.bound_text();
  c.verdict = std::string(name(v.verdict));
  c.found_by = "fuzz_maxerr";
  char note[256];
  std::snprintf(note, sizeof note, "max error/bound %.9g at element %zu: error %.17g, bound %.17g, kappa %.6g",
                outcome.max_ratio, element, v.error, v.bound, v.kappa);
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

bool climb_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("ACCUCHECK_MAXERR_CLIMB");
    return !(v && std::string(v) == "0");
  }();
  return enabled;
}

// A climb mutation of a worst case, as an input of at most max_size bytes; 0 when there is none
// yet or it does not fit.
std::size_t climb_input(std::uint8_t* data, std::size_t max_size, unsigned seed) {
  std::vector<const Workload*> worst;
  for (const auto& [backend, record] : records())
    if (record.worst) worst.push_back(&*record.worst);
  if (worst.empty()) return 0;
  SeededChoiceStream s(seed);
  const Workload& start = *worst[s.pick(worst.size())];
  const auto bytes = fuzz::encode_input(climb_mutation(start, s, fuzz::dense_limits().max_steps + 1));
  if (bytes.size() > max_size) return 0;
  std::copy(bytes.begin(), bytes.end(), data);
  return bytes.size();
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

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (climb_enabled() && seed % 4 == 0)
    if (const std::size_t climbed = climb_input(data, max_size, seed / 4)) return climbed;
  return fuzz::mutate_input(data, size, max_size, seed, WorkloadKind::dense);
}

extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* data1, std::size_t size1,
                                                 const std::uint8_t* data2, std::size_t size2, std::uint8_t* out,
                                                 std::size_t max_out_size, unsigned int seed) {
  return fuzz::cross_over_inputs(data1, size1, data2, size2, out, max_out_size, seed, WorkloadKind::dense);
}
