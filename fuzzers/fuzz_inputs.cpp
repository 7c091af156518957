// fuzz_inputs: every reader of user input gets a value or a clear error; never a crash, a
// leak, undefined behaviour, a hang, or an exception other than the reader's own error type.
//
// Input: byte 0 chooses the reader (draw(4): 0 case file, 1 CLI number, 2 JSON, 3 bound
// expression, 4 .npy), the rest is the text (or bytes) it reads.
//
//   case file  parse_case: CaseError or a case; a parsed case must validate and survive a
//              round trip (case_to_json, parse_case again: the same workload, bit for bit).
//   number     parse_number (+ exact_value_in, round_parsed_to_format in every format): when
//              exact_value_in(f) has a value, round_parsed_to_format(f) is that value; a token
//              that strtod reads whole rounds to the same double as round_parsed_to_format(f64).
//   JSON       parse_json: a value or "line L, column C: ..." (depth and size limits hold).
//   bound      parse_bound: a BoundExpr or an error text; to_string of a parsed bound parses
//              again to the same text (the printed form is canonical).
//   .npy       parse_npy (when core has it): NpyError or an array whose data size matches its
//              shape; floats()/integers() as the dtype allows.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "checking/bound.h"
#include "checking/choice.h"
#include "checking/judge.h"
#include "io/case_file.h"
#include "io/json.h"
#include "io/json_parse.h"
#include "io/npy.h"
#include "numerics/number_parse.h"

using namespace accucheck;

namespace {

[[noreturn]] void finding(const char* reader, const std::string& what, std::string_view text) {
  std::fprintf(stderr, "\n==== accucheck fuzz_inputs: FINDING in the %s reader ====\n%s\ninput (%zu bytes): ", reader,
               what.c_str(), text.size());
  for (unsigned char c : text.substr(0, 400)) {
    if (c >= 0x20 && c < 0x7f && c != '\\')
      std::fputc(c, stderr);
    else
      std::fprintf(stderr, "\\x%02x", c);
  }
  std::fprintf(stderr, "\n==== end of accucheck report ====\n");
  std::fflush(stderr);
  std::abort();
}

// What `parse` read from `text`, or nothing where it refused the input with an Error that names
// `source` first; an error that does not, or any other exception, is a finding of `reader`.
template <class Error, class Parse>
auto read_or_refuse(const char* reader, std::string_view source, std::string_view text, Parse parse)
    -> std::optional<decltype(parse())> {
  try {
    return parse();
  } catch (const Error& e) {
    if (!std::string_view(e.what()).starts_with(source))
      finding(reader, std::string("error does not name the source: ") + e.what(), text);
    return std::nullopt;
  } catch (const std::exception& e) {
    finding(reader, std::string("threw something other than its error type: ") + e.what(), text);
  }
}

void case_reader(std::string_view text) {
  const auto read =
      read_or_refuse<CaseError>("case file", "fuzz.json", text, [&] { return parse_case(text, "fuzz.json"); });
  if (!read) return;
  const CaseFile& c = *read;
  const std::string invalid = validate(c.workload);
  if (!invalid.empty()) finding("case file", "parse_case accepted an invalid workload: " + invalid, text);
  std::string again;
  try {
    again = case_to_json(c);
    const CaseFile d = parse_case(again, "round-trip.json");
    if (c.workload != d.workload || d.backend != c.backend || d.bound != c.bound || d.verdict != c.verdict ||
        d.found_by != c.found_by || d.note != c.note || d.seed != c.seed)
      finding("case file", "case_to_json -> parse_case does not give the same case back:\n" + again, text);
  } catch (const std::exception& e) {
    finding("case file",
            std::string("the case does not survive case_to_json -> parse_case: ") + e.what() + "\n" + again, text);
  }
}

void number_reader(std::string_view text) {
  const ParseResult parsed = parse_number(text);
  if (!parsed.ok()) {
    if (parsed.error.empty()) finding("number", "error without a message", text);
    return;
  }
  for (Format f : all_formats) {
    const auto exact = exact_value_in(parsed.number, f);
    const double rounded = round_parsed_to_format(parsed.number, f);
    if (!representable(rounded, f))
      finding("number", "round_parsed_to_format gave a value outside " + std::string(name(f)), text);
    if (exact && !same_result_bits(*exact, rounded))
      finding("number",
              "exact_value_in(" + std::string(name(f)) + ") = " + hex_float(*exact) +
                  " but round_parsed_to_format = " + hex_float(rounded),
              text);
  }
  // glibc's strtod rounds correctly: where it reads the whole token, it must agree.
  const std::string token(text);
  if (token.empty() || token.find_first_of(" \t\n\v\f\r") != std::string::npos || token.find('\0') != std::string::npos)
    return;
  char* end = nullptr;
  const double expected = std::strtod(token.c_str(), &end);
  if (end != token.c_str() + token.size()) return;
  const double got = round_parsed_to_format(parsed.number, Format::f64);
  if (!same_result_bits(expected, got))
    finding("number", "round_parsed_to_format(f64) = " + hex_float(got) + ", strtod = " + hex_float(expected), text);
}

void json_reader(std::string_view text) {
  const JsonParseResult r = parse_json(text);
  if (!r.ok() && r.error.rfind("line ", 0) != 0) finding("JSON", "error without a position: " + r.error, text);
}

void bound_reader(std::string_view text) {
  std::string error;
  const auto bound = parse_bound(text, &error);
  if (!bound) {
    if (error.empty()) finding("bound", "parse_bound failed without an error text", text);
    return;
  }
  const std::string printed = to_string(*bound);
  std::string error2;
  const auto again = parse_bound(printed, &error2);
  if (!again) finding("bound", "to_string gave '" + printed + "', which does not parse: " + error2, text);
  if (to_string(*again) != printed)
    finding("bound", "'" + printed + "' prints back as '" + to_string(*again) + "'", text);
  (void)bound_formats(*bound);
  (void)bound_source(bound->kind);
}

void npy_reader(std::string_view text) {
  NpyLimits limits;
  limits.max_bytes = std::uint64_t{1} << 24;  // the fuzzer's memory limit is 2 GiB
  const auto read = read_or_refuse<NpyError>(".npy", "fuzz.npy", text, [&] {
    return parse_npy(std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(text.data()), text.size()),
                     "fuzz.npy", limits);
  });
  if (!read) return;
  const NpyArray& a = *read;
  if (a.data.size() != a.count() * npy_item_size(a.dtype)) finding(".npy", "data size does not match the shape", text);
  try {
    // uint8 read as FP8 bit patterns too (trace --fp8), in a format the input's length picks.
    const Format fp8 = text.size() % 2 ? Format::e4m3 : Format::e5m2;
    if (a.float_format(true, fp8)) {
      const auto values = a.floats(true, fp8);
      if (values.size() != a.count()) finding(".npy", "floats() size does not match the shape", text);
    } else {
      const auto values = a.integers();
      if (values.size() != a.count()) finding(".npy", "integers() size does not match the shape", text);
    }
  } catch (const NpyError&) {
  } catch (const std::exception& e) {
    finding(".npy", std::string("reading the values threw something other than NpyError: ") + e.what(), text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  ByteChoiceStream s(std::span<const std::uint8_t>(data, 1));
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (s.draw(4)) {
    case 0: case_reader(text); break;
    case 1: number_reader(text); break;
    case 2: json_reader(text); break;
    case 3: bound_reader(text); break;
    default: npy_reader(text); break;
  }
  return 0;
}
