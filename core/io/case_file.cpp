#include "io/case_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>

#include "checking/bound.h"
#include "checking/properties.h"
#include "checking/verdict.h"
#include "io/json.h"
#include "io/json_parse.h"
#include "io/memory.h"
#include "numerics/number_parse.h"

namespace accucheck {
namespace {

constexpr std::uint64_t kMaxValues = kMaxCaseValues;

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& what) {
  throw CaseError(source + ": " + field + ": " + what);
}

std::string quoted(const std::string& s) { return "\"" + json_escape(s) + "\""; }

// ---- writing --------------------------------------------------------------------------------

std::string value_list(const double* values, std::size_t count) {
  std::string out = "[";
  for (std::size_t i = 0; i < count; ++i) out += (i ? ", " : "") + quoted(hex_float(values[i]));
  return out + "]";
}

// One JSON array per step, each of `per_step` values, one line each.
std::string step_lists(const std::vector<double>& values, std::size_t steps, std::size_t per_step) {
  if (steps == 0) return "[]";
  std::string out = "[";
  for (std::size_t t = 0; t < steps; ++t)
    out += (t ? ",\n    " : "\n    ") + value_list(values.data() + t * per_step, per_step);
  return out + "\n  ]";
}

std::string initial_list(const std::vector<double>& initial) {
  bool all_zero = true;
  for (double x : initial) all_zero = all_zero && x == 0.0 && !std::signbit(x);
  return all_zero && initial.size() > 16 ? quoted("zeros") : value_list(initial.data(), initial.size());
}

// ---- reading --------------------------------------------------------------------------------

// The parsed JSON holds about 1.5 JsonValues (88 bytes) per value (vectors grow by doubling) and
// the values' text; each value becomes a double. A value follows '[', ',' or ':' (or starts
// the document), which bounds their number from above. Measured: 104 bytes per value for
// 10^6 values "0", 178 MB for 10^6 f64 hex floats (24 MB of text).
void check_parse_memory(std::string_view text, const std::string& source) {
  std::uint64_t values = 1;
  for (char c : text) values += c == ',' || c == '[' || c == ':';
  const std::uint64_t bytes = values * (sizeof(JsonValue) * 3 / 2 + sizeof(double)) + 2 * text.size();
  if (auto why = memory_shortfall(bytes))
    throw CaseError(source + ": parsing its " + std::to_string(values) + " values " + *why);
}

const JsonValue& require(const JsonValue& object, std::string_view key, JsonValue::Type type,
                         const std::string& source) {
  const JsonValue* v = object.find(key);
  if (!v) fail(source, std::string(key), "missing");
  if (v->type != type) {
    JsonValue expected;
    expected.type = type;
    fail(source, std::string(key),
         "must be " + std::string(expected.type_name()) + ", not " + std::string(v->type_name()));
  }
  return *v;
}

std::string optional_string(const JsonValue& object, std::string_view key, const std::string& source) {
  const JsonValue* v = object.find(key);
  if (!v || v->type == JsonValue::Type::null) return "";
  if (v->type != JsonValue::Type::string) fail(source, std::string(key), "must be a string");
  return v->text;
}

std::uint64_t unsigned_text(const JsonValue& v, const std::string& source, const std::string& field,
                            std::uint64_t limit) {
  const std::string& t = v.text;
  bool too_large = false;
  const auto value =
      v.type == JsonValue::Type::number || v.type == JsonValue::Type::string ? parse_u64(t, &too_large) : std::nullopt;
  if (too_large) fail(source, field, echo_token(t) + " is too large (at most " + kU64MaxText + ")");
  if (!value)
    fail(source, field,
         "must be a non-negative integer, got " + (t.empty() ? std::string(v.type_name()) : echo_token(t)));
  if (*value > limit) fail(source, field, t + " is too large (at most " + std::to_string(limit) + ")");
  return *value;
}

std::uint64_t count_field(const JsonValue& object, std::string_view key, const std::string& source,
                          std::uint64_t limit = kMaxValues) {
  return unsigned_text(require(object, key, JsonValue::Type::number, source), source, std::string(key), limit);
}

double value_field(const JsonValue& v, Format f, const std::string& source, const std::string& field) {
  if (v.type != JsonValue::Type::string && v.type != JsonValue::Type::number)
    fail(source, field, "must be a number or a string such as \"0x1.8p-3\", not " + std::string(v.type_name()));
  const ParseResult parsed = parse_number(v.text);
  if (!parsed.ok()) fail(source, field, echo_token(v.text) + " is not a number (" + parsed.error + ")");
  const auto value = exact_value_in(parsed.number, f);
  if (!value) fail(source, field, echo_token(v.text) + " is not exactly a " + std::string(name(f)) + " value");
  return *value;
}

// An array of exactly `count` values of f.
void read_values(const JsonValue& array, std::size_t count, Format f, const std::string& source,
                 const std::string& field, double* out) {
  if (array.type != JsonValue::Type::array)
    fail(source, field, "must be an array of " + std::to_string(count) + " values");
  if (array.items.size() != count)
    fail(source, field, "has " + std::to_string(array.items.size()) + " values, expected " + std::to_string(count));
  for (std::size_t i = 0; i < count; ++i)
    out[i] = value_field(array.items[i], f, source, field + "[" + std::to_string(i) + "]");
}

void read_initial(const JsonValue& root, std::size_t count, Format f, const std::string& source,
                  std::vector<double>& out) {
  const JsonValue* v = root.find("initial");
  if (!v) fail(source, "initial", "missing");
  // "zeros" is the one way to many values without their text (explicit ones are in the parse estimate).
  if (auto why = memory_shortfall(sizeof(double) * count))
    fail(source, "initial", std::to_string(count) + " values: the workload " + *why);
  out.assign(count, 0.0);
  if (v->type == JsonValue::Type::string && v->text == "zeros") return;
  read_values(*v, count, f, source, "initial", out.data());
}

// A "steps" array of `steps` arrays of `per_step` values.
void read_step_lists(const JsonValue& root, std::string_view key, std::size_t steps, std::size_t per_step, Format f,
                     const std::string& source, std::vector<double>& out) {
  const JsonValue& lists = require(root, key, JsonValue::Type::array, source);
  if (lists.items.size() != steps)
    fail(source, std::string(key),
         "has " + std::to_string(lists.items.size()) + " steps, expected steps = " + std::to_string(steps));
  out.assign(steps * per_step, 0.0);
  for (std::size_t t = 0; t < steps; ++t)
    read_values(lists.items[t], per_step, f, source, std::string(key) + "[" + std::to_string(t) + "]",
                out.data() + t * per_step);
}

void check_total(std::uint64_t a, std::uint64_t b, const std::string& source, const std::string& what) {
  if (a != 0 && b > kMaxValues / a) fail(source, what, "the workload is too large");
}

// An optional FP8 format key ("input_format", "b_input_format"); `absent` says what leaving it out means.
std::optional<Format> fp8_field(const JsonValue& root, std::string_view key, std::string_view absent,
                                const std::string& source) {
  const JsonValue* v = root.find(key);
  if (!v) return std::nullopt;
  if (v->type != JsonValue::Type::string) fail(source, std::string(key), "must be a string: \"e4m3\" or \"e5m2\"");
  const auto inputs = parse_any_format(v->text);
  if (!inputs || !is_fp8(*inputs))
    fail(source, std::string(key), echo_token(v->text) + " is not an fp8 format (e4m3, e5m2); " + std::string(absent));
  return inputs;
}

DenseWorkload read_dense(const JsonValue& root, Format f, const std::string& source) {
  DenseWorkload w;
  w.format = f;
  w.elements = count_field(root, "elements", source);
  w.steps = count_field(root, "steps", source);
  if (w.elements == 0) fail(source, "elements", "must be at least 1");
  check_total(w.elements, w.steps + 1, source, "steps");
  w.input_format = fp8_field(root, "input_format", "addends in the storage format need no key", source);
  read_initial(root, w.elements, f, source, w.initial);
  read_step_lists(root, "addends", w.steps, w.elements, w.addend_format(), source, w.addends);
  return w;
}

ProductWorkload read_product(const JsonValue& root, Format f, const std::string& source) {
  if (f == Format::f64) fail(source, "format", "product workloads of f64 are not supported");
  ProductWorkload p;
  p.format = f;
  p.rows = count_field(root, "rows", source);
  p.cols = count_field(root, "cols", source);
  p.batch = count_field(root, "batch", source);
  p.steps = count_field(root, "steps", source);
  if (p.rows == 0 || p.cols == 0) fail(source, "rows", "rows and cols must be at least 1");
  check_total(p.rows, p.cols, source, "cols");
  check_total(p.rows * p.batch, p.steps, source, "batch");
  check_total(p.cols * p.batch, p.steps, source, "batch");
  p.input_format = fp8_field(root, "input_format", "A and B in the storage format need no key", source);
  p.b_input_format = fp8_field(root, "b_input_format", "B in A's format needs no key", source);
  if (p.b_input_format && !p.input_format)
    fail(source, "b_input_format",
         "needs input_format (A's format): B alone in FP8 is not a workload accucheck models");
  if (p.b_input_format && p.b_input_format == p.input_format)
    fail(source, "b_input_format", "equals input_format; A and B in one format state input_format alone");
  read_initial(root, p.rows * p.cols, f, source, p.initial);
  read_step_lists(root, "a", p.steps, p.rows * p.batch, p.a_inputs(), source, p.a);
  read_step_lists(root, "b", p.steps, p.batch * p.cols, p.b_inputs(), source, p.b);
  return p;
}

// Keys this version does not know are read past with a warning (forward compatibility: a newer
// writer may add fields), never silently.
constexpr std::string_view kCommonKeys[] = {"accucheck_case", "workload", "format", "backend",  "bound",
                                            "verdict",        "family",   "seed",   "found_by", "note"};
constexpr std::string_view kDenseKeys[] = {"elements", "steps", "input_format", "initial", "addends", "layout"};
constexpr std::string_view kProductKeys[] = {"rows",           "cols",    "batch", "steps", "input_format",
                                             "b_input_format", "initial", "a",     "b"};
constexpr std::string_view kSparseKeys[] = {"rows", "dim", "steps", "input_format", "initial", "pairs", "layout"};
constexpr std::string_view kPairKeys[] = {"row", "values"};
constexpr std::string_view kDenseLayoutKeys[] = {"element_major", "gap", "padding", "buffer_gap"};
constexpr std::string_view kSparseLayoutKeys[] = {"table_padding", "value_padding"};

void warn_unknown_keys(const JsonValue& object, std::span<const std::string_view> known,
                       std::span<const std::string_view> also_known, const std::string& source,
                       const std::string& prefix, std::vector<std::string>& warnings) {
  auto in = [](std::span<const std::string_view> list, const std::string& key) {
    return std::find(list.begin(), list.end(), key) != list.end();
  };
  for (const auto& [key, value] : object.members)
    if (!in(known, key) && !in(also_known, key))
      warnings.push_back(source + ": " + prefix + key + ": unknown key, ignored");
}

// The optional "layout" object (workload.h); absent: contiguous.
const JsonValue* layout_object(const JsonValue& root, std::span<const std::string_view> keys, const std::string& source,
                               std::vector<std::string>& warnings) {
  const JsonValue* layout = root.find("layout");
  if (!layout || layout->type == JsonValue::Type::null) return nullptr;
  if (layout->type != JsonValue::Type::object) fail(source, "layout", "must be an object");
  warn_unknown_keys(*layout, keys, {}, source, "layout.", warnings);
  return layout;
}

std::uint32_t layout_count(const JsonValue& layout, std::string_view key, std::uint32_t limit,
                           const std::string& source) {
  const JsonValue* v = layout.find(key);
  if (!v) return 0;
  return static_cast<std::uint32_t>(unsigned_text(*v, source, "layout." + std::string(key), limit));
}

void read_dense_layout(const JsonValue& root, const std::string& source, DenseWorkload& w,
                       std::vector<std::string>& warnings) {
  const JsonValue* layout = layout_object(root, kDenseLayoutKeys, source, warnings);
  if (!layout) return;
  if (const JsonValue* major = layout->find("element_major")) {
    if (major->type != JsonValue::Type::boolean) fail(source, "layout.element_major", "must be true or false");
    w.layout.element_major = major->boolean;
  }
  w.layout.gap = layout_count(*layout, "gap", kMaxLayoutGap, source);
  w.layout.padding = layout_count(*layout, "padding", kMaxLayoutPadding, source);
  w.layout.buffer_gap = layout_count(*layout, "buffer_gap", kMaxLayoutGap, source);
}

void read_sparse_layout(const JsonValue& root, const std::string& source, SparseWorkload& w,
                        std::vector<std::string>& warnings) {
  const JsonValue* layout = layout_object(root, kSparseLayoutKeys, source, warnings);
  if (!layout) return;
  w.layout.table_padding = layout_count(*layout, "table_padding", kMaxLayoutPadding, source);
  w.layout.value_padding = layout_count(*layout, "value_padding", kMaxLayoutPadding, source);
}

SparseWorkload read_sparse(const JsonValue& root, Format f, const std::string& source,
                           std::vector<std::string>& warnings) {
  SparseWorkload s;
  s.format = f;
  s.rows = count_field(root, "rows", source, std::uint64_t{1} << 32);
  s.dim = count_field(root, "dim", source);
  s.steps = count_field(root, "steps", source);
  if (s.rows == 0 || s.dim == 0) fail(source, "rows", "rows and dim must be at least 1");
  check_total(s.rows, s.dim, source, "dim");
  s.input_format = fp8_field(root, "input_format", "values in the storage format need no key", source);
  read_initial(root, s.rows * s.dim, f, source, s.initial);
  const JsonValue& steps = require(root, "pairs", JsonValue::Type::array, source);
  if (steps.items.size() != s.steps)
    fail(source, "pairs",
         "has " + std::to_string(steps.items.size()) + " steps, expected steps = " + std::to_string(s.steps));
  s.step_offsets.assign(1, 0);
  for (std::size_t t = 0; t < s.steps; ++t) {
    const std::string field = "pairs[" + std::to_string(t) + "]";
    const JsonValue& step = steps.items[t];
    if (step.type != JsonValue::Type::array)
      fail(source, field, "must be an array of {\"row\": R, \"values\": [...]} pairs");
    for (std::size_t q = 0; q < step.items.size(); ++q) {
      const JsonValue& pair = step.items[q];
      const std::string pair_field = field + "[" + std::to_string(q) + "]";
      if (pair.type != JsonValue::Type::object)
        fail(source, pair_field, "must be an object {\"row\": R, \"values\": [...]}");
      warn_unknown_keys(pair, kPairKeys, {}, source, pair_field + ".", warnings);
      const JsonValue* row = pair.find("row");
      if (!row) fail(source, pair_field + ".row", "missing");
      const std::uint64_t r = unsigned_text(*row, source, pair_field + ".row", s.rows - 1);
      const JsonValue* values = pair.find("values");
      if (!values) fail(source, pair_field + ".values", "missing");
      check_total(s.values.size() / s.dim + 1, s.dim, source, pair_field);
      s.row_index.push_back(static_cast<std::uint32_t>(r));
      s.values.resize(s.values.size() + s.dim);
      read_values(*values, s.dim, s.value_format(), source, pair_field + ".values",
                  s.values.data() + s.values.size() - s.dim);
    }
    s.step_offsets.push_back(s.row_index.size());
  }
  return s;
}

}  // namespace

std::string case_to_json(const CaseFile& c) {
  std::string out = "{\n";
  auto line = [&](std::string_view key, const std::string& json_value) {
    out += "  \"" + std::string(key) + "\": " + json_value + ",\n";
  };
  line("accucheck_case", std::to_string(kCaseFormatVersion));
  line("workload", quoted(std::string(name(kind_of(c.workload)))));
  line("format", quoted(std::string(name(format_of(c.workload)))));
  if (!c.backend.empty()) line("backend", quoted(c.backend));
  if (!c.bound.empty()) line("bound", quoted(c.bound));
  if (!c.verdict.empty()) line("verdict", quoted(c.verdict));
  if (const std::string family = family_of(c.workload); !family.empty()) line("family", quoted(family));
  if (c.seed) line("seed", std::to_string(*c.seed));
  if (!c.found_by.empty()) line("found_by", quoted(c.found_by));
  if (!c.note.empty()) line("note", quoted(c.note));
  if (auto* w = std::get_if<DenseWorkload>(&c.workload)) {
    line("elements", std::to_string(w->elements));
    line("steps", std::to_string(w->steps));
    if (!w->layout.contiguous())
      line("layout", std::string("{\"element_major\": ") + (w->layout.element_major ? "true" : "false") +
                         ", \"gap\": " + std::to_string(w->layout.gap) +
                         ", \"padding\": " + std::to_string(w->layout.padding) +
                         ", \"buffer_gap\": " + std::to_string(w->layout.buffer_gap) + "}");
    if (w->input_format) line("input_format", quoted(std::string(name(*w->input_format))));
    line("initial", initial_list(w->initial));
    out += "  \"addends\": " + step_lists(w->addends, w->steps, w->elements) + "\n}\n";
  } else if (auto* p = std::get_if<ProductWorkload>(&c.workload)) {
    line("rows", std::to_string(p->rows));
    line("cols", std::to_string(p->cols));
    line("batch", std::to_string(p->batch));
    line("steps", std::to_string(p->steps));
    if (p->input_format) line("input_format", quoted(std::string(name(*p->input_format))));
    if (p->b_input_format) line("b_input_format", quoted(std::string(name(*p->b_input_format))));
    line("initial", initial_list(p->initial));
    line("a", step_lists(p->a, p->steps, p->rows * p->batch));
    out += "  \"b\": " + step_lists(p->b, p->steps, p->batch * p->cols) + "\n}\n";
  } else {
    const auto& s = std::get<SparseWorkload>(c.workload);
    line("rows", std::to_string(s.rows));
    line("dim", std::to_string(s.dim));
    line("steps", std::to_string(s.steps));
    if (!s.layout.contiguous())
      line("layout", "{\"table_padding\": " + std::to_string(s.layout.table_padding) +
                         ", \"value_padding\": " + std::to_string(s.layout.value_padding) + "}");
    if (s.input_format) line("input_format", quoted(std::string(name(*s.input_format))));
    line("initial", initial_list(s.initial));
    out += "  \"pairs\": [";
    for (std::size_t t = 0; t < s.steps; ++t) {
      out += t ? ",\n    [" : "\n    [";
      for (std::size_t q = s.step_offsets[t]; q < s.step_offsets[t + 1]; ++q)
        out += std::string(q > s.step_offsets[t] ? ", " : "") + "{\"row\": " + std::to_string(s.row_index[q]) +
               ", \"values\": " + value_list(s.values.data() + q * s.dim, s.dim) + "}";
      out += "]";
    }
    out += s.steps ? "\n  ]\n}\n" : "]\n}\n";
  }
  return out;
}

CaseFile parse_case(std::string_view text, const std::string& source) {
  check_parse_memory(text, source);
  const JsonParseResult json = parse_json(text);
  if (!json.ok()) throw CaseError(source + ": not valid JSON: " + json.error);
  const JsonValue& root = json.value;
  if (root.type != JsonValue::Type::object) throw CaseError(source + ": a case file is a JSON object");
  const std::uint64_t version = count_field(root, "accucheck_case", source);
  if (version != kCaseFormatVersion)
    fail(source, "accucheck_case",
         "version " + std::to_string(version) + " is not supported (this accucheck reads " +
             std::to_string(kCaseFormatVersion) + ")");
  const std::string format_text = require(root, "format", JsonValue::Type::string, source).text;
  const auto format = parse_format(format_text);
  if (!format) fail(source, "format", echo_token(format_text) + " is not a format (f64, f32, f16, bf16)");
  const std::string kind = require(root, "workload", JsonValue::Type::string, source).text;

  CaseFile c;
  if (kind == "dense") {
    c.workload = read_dense(root, *format, source);
    read_dense_layout(root, source, std::get<DenseWorkload>(c.workload), c.warnings);
    warn_unknown_keys(root, kCommonKeys, kDenseKeys, source, "", c.warnings);
  } else if (kind == "product") {
    c.workload = read_product(root, *format, source);
    warn_unknown_keys(root, kCommonKeys, kProductKeys, source, "", c.warnings);
  } else if (kind == "sparse") {
    c.workload = read_sparse(root, *format, source, c.warnings);
    read_sparse_layout(root, source, std::get<SparseWorkload>(c.workload), c.warnings);
    warn_unknown_keys(root, kCommonKeys, kSparseKeys, source, "", c.warnings);
  } else {
    fail(source, "workload", echo_token(kind) + " is not a workload kind (dense, product, sparse)");
  }
  const std::string family = optional_string(root, "family", source);
  std::visit([&](auto& w) { w.family = family; }, c.workload);
  c.backend = optional_string(root, "backend", source);
  c.bound = optional_string(root, "bound", source);
  if (std::string error; !c.bound.empty() && !parse_bound(c.bound, &error)) fail(source, "bound", error);
  c.verdict = optional_string(root, "verdict", source);
  if (!c.verdict.empty() && !is_finding_label(c.verdict))
    fail(source, "verdict",
         echo_token(c.verdict) +
             " is not a verdict (bound-exceeded, not-correctly-rounded, overflow, ...: "
             "docs/case-format.md)");
  c.found_by = optional_string(root, "found_by", source);
  c.note = optional_string(root, "note", source);
  if (const JsonValue* seed = root.find("seed"); seed && seed->type != JsonValue::Type::null)
    c.seed = unsigned_text(*seed, source, "seed", ~std::uint64_t{0});
  return c;
}

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw CaseError(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CaseError(path + ": cannot open (" + std::strerror(errno) + ")");
  // The stream's buffer and the string it becomes.
  std::error_code size_error;
  if (const auto size = std::filesystem::file_size(path, size_error); !size_error)
    if (auto why = memory_shortfall(3 * static_cast<std::uint64_t>(size)))
      throw CaseError(path + ": reading its " + bytes_text(size) + " " + *why);
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
