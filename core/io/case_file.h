// Case files: one workload (and the backend it failed on), versioned JSON, replayable by the
// CLI, the fuzzers and ctest. The format is documented in docs/case-format.md.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "checking/workload.h"

namespace accucheck {

inline constexpr int kCaseFormatVersion = 1;
// The most values (initial and addends, over all elements) one case may hold: absurd shapes are
// refused before anything is allocated, and a campaign's limits keep its cases within it.
inline constexpr std::uint64_t kMaxCaseValues = std::uint64_t{1} << 28;
inline constexpr const char* kMaxCaseValuesText = "2^28 = 268435456";

struct CaseFile {
  Workload workload;     // dense, product or sparse
  std::string backend;   // the backend it failed on ("" when not tied to one)
  std::string bound;     // that backend's stated bound when the case was written
  std::string verdict;   // the verdict it had then
  std::string found_by;  // "accucheck check --seed 7", "property StatedBoundHolds", ...
  std::string note;
  std::optional<std::uint64_t> seed;  // the seed that regenerates it, when there is one
  // Read, not written: "case.json: colour: unknown key, ignored" for each key this version does
  // not know (a newer writer's, or a typo), for the reader to show; the case is read anyway.
  std::vector<std::string> warnings;
};

// A malformed case: the message names the source and the field ("case.json: addends[2][0]: ...").
struct CaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string case_to_json(const CaseFile& c);
CaseFile parse_case(std::string_view text, const std::string& source);
CaseFile read_case_file(const std::string& path);

// Writes through a temporary file in the same directory and rename(2), so that a reader (or
// a campaign killed mid-write) never sees a partial file.
void write_file_atomically(const std::string& path, std::string_view contents);
std::string read_text_file(const std::string& path);  // throws CaseError naming the path

}  // namespace accucheck
