// accucheck exact --format F [FILE|-] [--json]
// Reads whitespace-separated numbers, each exactly a value of F, and prints their correctly
// rounded sum in F, the exact sum, A = sum |x| and the condition number. F may be an OCP fp8
// format (e4m3, e5m2): the sum rounds with its non-saturating rule (beyond 448, E4M3 gives NaN).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli.h"
#include "io/json.h"
#include "numerics/exact.h"
#include "numerics/number_parse.h"

namespace accucheck::cli {
namespace {

// Reads every token of `in`, checks it is exactly a value of f, feeds the oracle.
// any_nan: a NaN addend was read (then A = sum |x| is NaN; with infinities alone it is +inf).
ExactSum read_and_sum(std::istream& in, const std::string& source, Format f, bool& any_nan) {
  BoostExactAccumulator accumulator;
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    // A byte order mark is allowed at the very start of the file (editors write one); anywhere
    // else it is inside a token, and parse_number names it.
    if (line_number == 1 && line.rfind(kUtf8ByteOrderMark, 0) == 0) line.erase(0, kUtf8ByteOrderMark.size());
    const auto comment = line.find('#');
    if (comment != std::string::npos) line.erase(comment);
    std::istringstream tokens(line);
    std::string token;
    while (tokens >> token) {
      const ParseResult parsed = parse_number(token);
      const std::string where = source + ":" + std::to_string(line_number) + ": ";
      if (!parsed.ok()) throw UsageError(where + echo_token(token) + " is not a number (" + parsed.error + ")");
      const auto value = exact_value_in(parsed.number, f);
      if (!value) {
        const double nearest = round_parsed_to_format(parsed.number, f);
        throw UsageError(where + echo_token(token) + " is not exactly representable in " + std::string(name(f)) +
                         " (nearest " + std::string(name(f)) + " value: " + shortest_decimal(nearest, f) + " = " +
                         hex_float(nearest) + ")");
      }
      any_nan = any_nan || std::isnan(*value);
      accumulator.add(*value);
    }
  }
  if (in.bad()) throw UsageError(source + ": read error");
  return accumulator.result();
}

}  // namespace

int exact_command(CommandLine& cl) {
  std::vector<std::string> files;
  std::optional<Format> f;
  bool json = false;
  cl.required(cl.format("--format", f, "the format every number must be exact in (f64, f32, f16, bf16, e4m3, e5m2)",
                        /*fp8_too=*/true));
  cl.arguments("FILE|-", files, "the numbers (standard input when none or -)", 0, 1,
               "exact reads one FILE (or - for standard input)");
  cl.flag("--json", json, "print the sums as JSON");
  if (!cl.parse()) return kExitOk;
  const std::string path = files.empty() ? "-" : files[0];

  ExactSum exact;
  bool any_nan = false;
  if (path == "-") {
    exact = read_and_sum(std::cin, "<stdin>", *f, any_nan);
  } else {
    if (std::filesystem::is_directory(path)) throw UsageError(path + ": is a directory, not a file");
    std::ifstream in(path);
    if (!in) throw UsageError(path + ": cannot open");
    exact = read_and_sum(in, path, *f, any_nan);
  }

  const double rounded = exact.rounded(*f);
  const bool finite = exact.special == Special::none;
  const std::string exact_text = finite ? fixed_hex(exact.sum) : std::string(name(exact.special));
  const std::string abs_text = finite ? fixed_hex(exact.abs_sum) : std::string(any_nan ? "nan" : "inf");
  const double kappa = exact.condition_number();
  if (json) {
    JsonWriter w;
    w.begin_object()
        .field("format", name(*f))
        .field("count", exact.count)
        .field("special", name(exact.special))
        .field("sum_hex", hex_float(rounded))
        .field("sum_decimal", shortest_decimal(rounded, *f))
        .field("sum_bits",
               [&] {
                 char bits[24];
                 std::snprintf(bits, sizeof bits, "0x%0*llx", traits(*f).storage_bits / 4,
                               static_cast<unsigned long long>(encode(rounded, *f)));
                 return std::string(bits);
               }())
        .field("exact", exact_text)
        .field("exact_nearest_f64", finite ? nearest_double(exact.sum) : rounded)
        .field("abs_sum_hex", abs_text)
        .field("kappa", kappa)
        .end_object();
    std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  std::printf("format    %s\n", std::string(name(*f)).c_str());
  std::printf("count     %llu\n", static_cast<unsigned long long>(exact.count));
  std::printf("sum       %s = %s   (correctly rounded to %s)\n", hex_float(rounded).c_str(),
              shortest_decimal(rounded, *f).c_str(), std::string(name(*f)).c_str());
  std::printf("exact     %s\n", exact_text.c_str());
  std::printf("abs_sum   %s\n", abs_text.c_str());
  std::printf("kappa     %.6g\n", kappa);
  return kExitOk;
}

}  // namespace accucheck::cli
