#include "accucheck/case_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "accucheck/json.h"
#include "accucheck/number_parse.h"

namespace accucheck {
namespace {

constexpr std::size_t kMaxValues = std::size_t{1} << 28;  // refuse absurd shapes before allocating

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& what) {
  throw CaseError(source + ": " + field + ": " + what);
}

const JsonValue& require(const JsonValue& object, std::string_view key, JsonValue::Type type,
                         const std::string& source) {
  const JsonValue* v = object.find(key);
  if (!v) fail(source, std::string(key), "missing");
  if (v->type != type) {
    JsonValue expected;
    expected.type = type;
    fail(source, std::string(key), "must be " + std::string(expected.type_name()) + ", not " + std::string(v->type_name()));
  }
  return *v;
}

std::string optional_string(const JsonValue& object, std::string_view key, const std::string& source) {
  const JsonValue* v = object.find(key);
  if (!v || v->type == JsonValue::Type::null) return "";
  if (v->type != JsonValue::Type::string) fail(source, std::string(key), "must be a string");
  return v->text;
}

std::uint64_t count_field(const JsonValue& object, std::string_view key, const std::string& source) {
  const JsonValue& v = require(object, key, JsonValue::Type::number, source);
  const std::string& t = v.text;
  if (t.empty() || t.size() > 12 || t.find_first_not_of("0123456789") != std::string::npos)
    fail(source, std::string(key), "must be a non-negative integer below 10^12, got " + t);
  return std::stoull(t);
}

double value_field(const JsonValue& v, Format f, const std::string& source, const std::string& field) {
  if (v.type != JsonValue::Type::string && v.type != JsonValue::Type::number)
    fail(source, field, "must be a number or a string such as \"0x1.8p-3\", not " + std::string(v.type_name()));
  const ParseResult parsed = parse_number(v.text);
  if (!parsed.ok()) fail(source, field, "'" + v.text + "' is not a number (" + parsed.error + ")");
  const auto value = exact_value_in(parsed.number, f);
  if (!value) fail(source, field, "'" + v.text + "' is not exactly a " + std::string(name(f)) + " value");
  return *value;
}

}  // namespace

std::string case_to_json(const CaseFile& c) {
  const DenseWorkload& w = c.workload;
  std::string out = "{\n";
  auto line = [&](std::string_view key, const std::string& json_value, bool comma = true) {
    out += "  \"" + std::string(key) + "\": " + json_value + (comma ? ",\n" : "\n");
  };
  auto quoted = [](const std::string& s) { return "\"" + json_escape(s) + "\""; };
  line("accucheck_case", std::to_string(kCaseFormatVersion));
  line("workload", quoted("dense"));
  line("format", quoted(std::string(name(w.format))));
  line("elements", std::to_string(w.elements));
  line("steps", std::to_string(w.steps));
  if (!c.backend.empty()) line("backend", quoted(c.backend));
  if (!c.bound.empty()) line("bound", quoted(c.bound));
  if (!c.verdict.empty()) line("verdict", quoted(c.verdict));
  if (!w.family.empty()) line("family", quoted(w.family));
  if (c.seed) line("seed", std::to_string(*c.seed));
  if (!c.found_by.empty()) line("found_by", quoted(c.found_by));
  if (!c.note.empty()) line("note", quoted(c.note));
  std::string initial = "[";
  for (std::size_t j = 0; j < w.elements; ++j) initial += (j ? ", " : "") + quoted(hex_float(w.initial[j]));
  line("initial", initial + "]");
  out += "  \"addends\": [";
  for (std::size_t t = 0; t < w.steps; ++t) {
    out += t ? ",\n    [" : "\n    [";
    for (std::size_t j = 0; j < w.elements; ++j) out += (j ? ", " : "") + quoted(hex_float(w.addend(t, j)));
    out += "]";
  }
  out += w.steps ? "\n  ]\n}\n" : "]\n}\n";
  return out;
}

CaseFile parse_case(std::string_view text, const std::string& source) {
  const JsonParseResult json = parse_json(text);
  if (!json.ok()) throw CaseError(source + ": not valid JSON: " + json.error);
  const JsonValue& root = json.value;
  if (root.type != JsonValue::Type::object) throw CaseError(source + ": a case file is a JSON object");
  const std::uint64_t version = count_field(root, "accucheck_case", source);
  if (version != kCaseFormatVersion)
    fail(source, "accucheck_case", "version " + std::to_string(version) + " is not supported (this accucheck reads " +
                                       std::to_string(kCaseFormatVersion) + ")");
  const std::string kind = require(root, "workload", JsonValue::Type::string, source).text;
  if (kind != "dense") fail(source, "workload", "'" + kind + "' is not a workload kind this accucheck reads (dense)");
  const std::string format_text = require(root, "format", JsonValue::Type::string, source).text;
  const auto format = parse_format(format_text);
  if (!format) fail(source, "format", "'" + format_text + "' is not a format (f64, f32, f16, bf16)");

  CaseFile c;
  DenseWorkload& w = c.workload;
  w.format = *format;
  w.elements = count_field(root, "elements", source);
  w.steps = count_field(root, "steps", source);
  if (w.elements == 0) fail(source, "elements", "must be at least 1");
  if (w.elements > kMaxValues || w.steps > kMaxValues || w.elements * (w.steps + 1) > kMaxValues)
    fail(source, "elements", "elements x (steps+1) is too large");
  c.backend = optional_string(root, "backend", source);
  c.bound = optional_string(root, "bound", source);
  c.verdict = optional_string(root, "verdict", source);
  w.family = optional_string(root, "family", source);
  c.found_by = optional_string(root, "found_by", source);
  c.note = optional_string(root, "note", source);
  if (const JsonValue* seed = root.find("seed"); seed && seed->type != JsonValue::Type::null) {
    // Seeds are 64-bit: written as a number (or a string), all digits, at most 2^64 - 1.
    const std::string& t = seed->text;
    if ((seed->type != JsonValue::Type::number && seed->type != JsonValue::Type::string) || t.empty() || t.size() > 20 ||
        t.find_first_not_of("0123456789") != std::string::npos || (t.size() == 20 && t > "18446744073709551615"))
      fail(source, "seed", "must be an integer in [0, 2^64)");
    c.seed = std::stoull(t);
  }

  const JsonValue& initial = require(root, "initial", JsonValue::Type::array, source);
  if (initial.items.size() != w.elements)
    fail(source, "initial", "has " + std::to_string(initial.items.size()) + " values, expected elements = " + std::to_string(w.elements));
  w.initial.resize(w.elements);
  for (std::size_t j = 0; j < w.elements; ++j)
    w.initial[j] = value_field(initial.items[j], w.format, source, "initial[" + std::to_string(j) + "]");

  const JsonValue& addends = require(root, "addends", JsonValue::Type::array, source);
  if (addends.items.size() != w.steps)
    fail(source, "addends", "has " + std::to_string(addends.items.size()) + " steps, expected steps = " + std::to_string(w.steps));
  w.addends.resize(w.steps * w.elements);
  for (std::size_t t = 0; t < w.steps; ++t) {
    const JsonValue& step = addends.items[t];
    const std::string field = "addends[" + std::to_string(t) + "]";
    if (step.type != JsonValue::Type::array) fail(source, field, "must be an array of " + std::to_string(w.elements) + " values");
    if (step.items.size() != w.elements)
      fail(source, field, "has " + std::to_string(step.items.size()) + " values, expected elements = " + std::to_string(w.elements));
    for (std::size_t j = 0; j < w.elements; ++j)
      w.addends[t * w.elements + j] = value_field(step.items[j], w.format, source, field + "[" + std::to_string(j) + "]");
  }
  return c;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CaseError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw CaseError(path + ": read error");
  return buffer.str();
}

CaseFile read_case_file(const std::string& path) { return parse_case(read_text_file(path), path); }

void write_file_atomically(const std::string& path, std::string_view contents) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error(temporary + ": cannot create (" + std::strerror(errno) + ")");
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      throw std::runtime_error(temporary + ": write failed (" + std::strerror(saved) + ")");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(temporary.c_str());
    throw std::runtime_error(temporary + ": cannot flush (" + std::strerror(errno) + ")");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temporary.c_str());
    throw std::runtime_error(path + ": cannot rename into place (" + std::strerror(saved) + ")");
  }
}

}  // namespace accucheck
