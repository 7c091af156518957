// accucheck_fuzz_tool: the fuzzers' helper, built in the ordinary (g++) build.
//
//   accucheck_fuzz_tool seeds CORPORA_DIR      writes corpora/<target>/seed/ for every target
//                                              (fuzzers/make-seeds.sh calls it)
//   accucheck_fuzz_tool dicts DIR              writes the dictionaries: workload.dict, each
//                                              format's special values in the explicit encoding
//                                              (fuzz_dense, fuzz_sparse, fuzz_product, fuzz_maxerr),
//                                              fuzz_oracle.dict (raw bits) and fuzz_inputs.dict
//                                              (the readers' tokens); fuzzers/options/<target>.options
//                                              names each target's (dict = NAME)
//   accucheck_fuzz_tool encode CASE.json OUT   a case file (from `accucheck check`,
//                                              fuzz_maxerr, a property) as an explicit-mode fuzz
//                                              input (the targets also read case files as they are)
//   accucheck_fuzz_tool decode KIND INPUT [OUT.json]
//                                              a fuzz_dense / fuzz_maxerr (KIND dense), fuzz_sparse
//                                              (sparse) or fuzz_product (product) input as a case
//                                              file (stdout without OUT)
//   accucheck_fuzz_tool selftest               the layout and the mutator: decode(encode(w)) == w,
//                                              every mutation decodes to a valid workload
//
// Seeds are recorded choice streams: a SeededChoiceStream drives a generator family through a
// RecordingChoiceStream, and the recorded bytes (behind the header of fuzz_input.h) decode to
// the same workload, so each seed is one family at one seed, replayable and mutable.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "checking/climb.h"
#include "checking/families.h"
#include "checking/float_gen.h"
#include "checking/judge.h"
#include "checking/shrink.h"
#include "common/fuzz_input.h"
#include "common/mutator.h"
#include "io/case_file.h"
#include "io/npy.h"
#include "io/workload_encoding.h"
#include "numerics/exact.h"
#include "numerics/hash.h"

using namespace accucheck;
using namespace accucheck::fuzz;
namespace fs = std::filesystem;

namespace {

// Seeds are named by content (like libFuzzer's corpus files), with a readable prefix.
void write_seed(const fs::path& dir, const std::string& label, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(dir);
  char name[64];
  std::snprintf(name, sizeof name, "-%016llx", static_cast<unsigned long long>(fnv1a(bytes)));
  write_file_atomically((dir / (label + name)).string(),
                        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::uint64_t format_index(Format f) {
  for (std::uint64_t i = 0; i < 4; ++i)
    if (all_formats[i] == f) return i;
  return 0;
}

// Equal but for the family, which is provenance: a raw round trip names it "raw".
bool same_workload(Workload a, const Workload& b) {
  std::visit([&b](auto& w) { w.family = family_of(b); }, a);
  return a == b;
}

// One family-mode input: the header (format, family), then the family's recorded draws.
std::vector<std::uint8_t> family_input(WorkloadKind kind, Format f, std::size_t family_index, std::uint64_t seed) {
  const auto candidates = families_of(kind);
  ChoiceWriter header;
  header.put(format_choice(f, kind), kind == WorkloadKind::product ? 2 : 3);
  header.put(family_index + 1, candidates.size());
  SeededChoiceStream source(seed);
  RecordingChoiceStream recorder(source);
  const Workload made = generate(recorder, f, limits_for(kind), kind, candidates[family_index]);
  std::vector<std::uint8_t> bytes = header.bytes();
  bytes.insert(bytes.end(), recorder.bytes().begin(), recorder.bytes().end());
  // The recorded stream must decode to the very workload the family made.
  const Workload decoded = decode_input(bytes, kind).workload;
  if (!same_workload(made, decoded)) {
    std::fprintf(stderr, "seed of %s/%s (seed %llu) does not decode to the same workload\n",
                 std::string(candidates[family_index]->name).c_str(), std::string(name(f)).c_str(),
                 static_cast<unsigned long long>(seed));
    std::exit(1);
  }
  return bytes;
}

DenseWorkload dense_of(Format f, std::vector<std::vector<double>> columns) {
  DenseWorkload w;
  w.format = f;
  w.elements = columns.size();
  w.steps = columns[0].size() - 1;
  for (auto& c : columns) w.initial.push_back(round_to_format(c[0], f));
  for (std::size_t t = 0; t < w.steps; ++t)
    for (auto& c : columns) w.addends.push_back(round_to_format(c[t + 1], f));
  return w;
}

// Hand-written explicit-mode dense workloads: the known hard cases of BOUNDS.md and INCIDENTS.md.
std::vector<std::pair<std::string, Workload>> explicit_dense_cases() {
  std::vector<std::pair<std::string, Workload>> out;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Kahan's counterexample (Hallman & Ipsen): 2.2u*A for the value Kahan's loop returns.
  out.push_back({"explicit-kahan-counterexample",
                 dense_of(Format::f64, {{-22.0, -(std::ldexp(1.0, 54) + 4), -(std::ldexp(1.0, 56) - 8), 8.0}})});
  for (Format f : all_formats) {
    const std::string fn(name(f));
    const double big = largest_finite(f), tiny = smallest_subnormal(f);
    out.push_back({"explicit-overflow-partials-" + fn, dense_of(f, {{big, big, -big, -big, 1.0}})});
    out.push_back({"explicit-specials-" + fn,
                   dense_of(f, {{1.0, inf, 2.0}, {nan, 1.0, 1.0}, {inf, -inf, 0.0}, {-0.0, -0.0, -0.0}})});
    out.push_back({"explicit-subnormals-" + fn, dense_of(f, {{tiny, -tiny, tiny * 3, smallest_normal(f) - tiny}})});
    const double p2 = std::ldexp(1.0, traits(f).precision);
    std::vector<double> stagnation(64, 0.5);
    stagnation[0] = p2;
    out.push_back({"explicit-stagnation-" + fn, dense_of(f, {stagnation})});
    std::vector<double> ties(40, 1.0);
    ties[0] = p2;
    out.push_back({"explicit-ties-" + fn, dense_of(f, {ties})});
  }
  return out;
}

SparseWorkload explicit_sparse_case(Format f) {
  SparseWorkload s{.format = f,
                   .rows = 4,
                   .dim = 2,
                   .steps = 2,
                   .initial = std::vector<double>(8, 0.0),
                   .step_offsets = {0, 3, 6},
                   .row_index = {0, 1, 0, 1, 0, 1},
                   .values = {},
                   .family = {},
                   .layout = {},
                   .input_format = {}};
  s.initial[0] = round_to_format(1e-3, f);
  for (std::uint32_t q = 0; q < 6; ++q) {
    s.values.push_back(round_to_format(q % 2 ? 0.25 : -0.125, f));
    s.values.push_back(round_to_format(q % 3 ? 1e-4 : -1e-4, f));
  }
  return s;
}

// mxnet-16686's shape in small: C += A_t B_t over two steps whose A columns are about +0.5
// then -0.5, B the same at both steps (the products nearly cancel), some B exactly 0 (relu).
ProductWorkload explicit_product_case(Format f) {
  const auto r = [f](double x) { return round_to_format(x, f); };
  return ProductWorkload{.format = f,
                         .rows = 2,
                         .cols = 3,
                         .batch = 1,
                         .steps = 2,
                         .initial = {0.0, r(1e-13), 0.0, 0.0, 0.0, r(-3e-14)},
                         .a = {r(0.5000019), r(-0.4999981), r(-0.5000038), r(0.4999962)},
                         .b = {r(7.5e-7), 0.0, r(3.1e-7), r(7.5e-7), 0.0, r(3.1e-7)},
                         .family = {},
                         .input_format = {},
                         .b_input_format = {}};
}

// The low storage_bits bits: a raw bit pattern of f (fuzz_oracle's raw addends, its dictionary).
std::uint64_t storage_mask(Format f) {
  const int bits = traits(f).storage_bits;
  return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// fuzz_oracle's input: format, encoding, count, repeat, direct limit, span, midway, addends.
std::vector<std::uint8_t> oracle_input(Format f, bool raw, const std::vector<double>& values, std::size_t repeat,
                                       std::uint64_t limit_choice, std::size_t span, std::size_t midway) {
  ChoiceWriter w;
  w.put(format_index(f), 3);
  w.put(raw ? 1 : 0, 1);
  w.put(std::min<std::size_t>(values.size(), 255), 255);
  w.put(repeat - 1, 63);
  w.put(limit_choice, 2);
  w.put(span, 255);
  w.put(midway, 255);
  for (std::size_t i = 0; i < values.size() && i < 255; ++i)
    w.put(encode(values[i], f) & storage_mask(f), storage_mask(f));
  return w.bytes();
}

std::vector<std::uint8_t> text_input(std::uint8_t selector, std::string_view text) {
  std::vector<std::uint8_t> out(1 + text.size());
  out[0] = selector;
  std::copy(text.begin(), text.end(), out.begin() + 1);
  return out;
}

const char* const kBoundTexts[] = {
    "recursive(f32)",
    "anyorder(bf16)",
    "tree(numpy,f32)",
    "tree(pairwise,f64)",
    "tree(blocked:64,f16)",
    "tree(lanes:8,bf16)",
    "kahan(f64)",
    "neumaier(f32)",
    "widened(recursive(f64),f32)",
    "widened(recursive(f32),bf16)",
    "products(f32)",
    "correctly_rounded",
    "faithful",
    "reproducible_binned(3,40,f64)",
    "stochastic(2.5,bf16)",
    "ftz(recursive(f32),f16)",
    "ulps(2)",
    "tree(blocked:0,f32)",
    "widened(widened(recursive(f64),f32),f16)",
};

const char* const kNumbers[] = {"0",
                                "-0",
                                "1.5",
                                "-2e-3",
                                "0x1.8p-3",
                                "inf",
                                "-inf",
                                "nan",
                                "65504",
                                "65520",
                                "0x1p-1074",
                                "4.9e-324",
                                "1e-400",
                                "1e400",
                                "0x1.fffffffffffffp+1023",
                                "3.4028235e38",
                                "1.00000005960464477539",
                                "0.1",
                                "-0x0p+0",
                                "2.2250738585072011e-308",
                                "5e-324",
                                "1.0000000000000002220446",
                                "9007199254740993"};

// Two seeds per family of `kind` in format f, family i's drawn from seed_base * (i + 1) + 10 *
// format_index(f) + k (the committed corpora were written with these).
void write_family_seeds(const fs::path& dir, WorkloadKind kind, Format f, std::uint64_t seed_base) {
  const std::uint64_t seeds_per_family = 2;
  const auto families = families_of(kind);
  for (std::size_t i = 0; i < families.size(); ++i)
    for (std::uint64_t k = 0; k < seeds_per_family; ++k)
      write_seed(dir, std::string(families[i]->name) + "-" + std::string(name(f)),
                 family_input(kind, f, i, seed_base * (i + 1) + 10 * format_index(f) + k));
}

void write_seeds(const fs::path& root) {
  // fuzz_dense and fuzz_maxerr share the dense layout.
  for (const char* target : {"fuzz_dense", "fuzz_maxerr"}) {
    const fs::path dir = root / target / "seed";
    for (Format f : all_formats) write_family_seeds(dir, WorkloadKind::dense, f, 1000);
    for (const auto& [label, w] : explicit_dense_cases()) write_seed(dir, label, encode_input(w));
  }
  for (Format f : all_formats) {
    const fs::path dir = root / "fuzz_sparse" / "seed";
    write_family_seeds(dir, WorkloadKind::sparse, f, 5000);
    write_seed(dir, "explicit-sparse-" + std::string(name(f)), encode_input(explicit_sparse_case(f)));
  }
  for (Format f : {Format::f32, Format::f16, Format::bf16}) {
    const fs::path dir = root / "fuzz_product" / "seed";
    write_family_seeds(dir, WorkloadKind::product, f, 7000);
    write_seed(dir, "explicit-product-" + std::string(name(f)), encode_input(explicit_product_case(f)));
  }
  {
    const fs::path dir = root / "fuzz_oracle" / "seed";
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    for (Format f : all_formats) {
      const std::string fn(name(f));
      const double big = largest_finite(f), tiny = smallest_subnormal(f);
      write_seed(dir, "oracle-empty-" + fn, oracle_input(f, true, {}, 1, 0, 0, 0));
      write_seed(dir, "oracle-overflow-" + fn, oracle_input(f, true, {big, big, -big, 1.0}, 1, 0, 2, 2));
      write_seed(dir, "oracle-subnormal-" + fn, oracle_input(f, true, {tiny, -tiny * 3, tiny * 5, -0.0}, 3, 0, 0, 1));
      write_seed(dir, "oracle-negzero-" + fn, oracle_input(f, true, {-0.0, -0.0, -0.0}, 2, 1, 0, 1));
      write_seed(dir, "oracle-specials-" + fn, oracle_input(f, true, {1.0, inf, -2.0, nan}, 1, 0, 0, 2));
      write_seed(dir, "oracle-infs-" + fn, oracle_input(f, true, {inf, 1.0, -inf}, 1, 2, 0, 0));
      // 64 x 64 equal addends: one chunk of the large superaccumulator fills and flushes.
      write_seed(dir, "oracle-chunk-flush-" + fn, oracle_input(f, true, std::vector<double>(65, 1.5), 64, 1, 17, 100));
      write_seed(dir, "oracle-long-mixed-" + fn,
                 oracle_input(f, true, {1.0, -std::ldexp(1.0, -traits(f).precision), big / 8, -big / 8, tiny}, 64, 0,
                              255, 30));
      // Recorded draws of the float decoder: a mix of simple, special and banded values.
      for (std::uint64_t k = 0; k < 3; ++k) {
        ChoiceWriter head;
        head.put(format_index(f), 3);
        head.put(0, 1);
        head.put(60, 255);
        head.put(k == 2 ? 40 : 0, 63);
        head.put(k, 2);
        head.put(k * 7, 255);
        head.put(30, 255);
        SeededChoiceStream source(77 + k + 10 * format_index(f));
        RecordingChoiceStream rec(source);
        for (int i = 0; i < 60; ++i) (void)draw_float(rec, f, true);
        std::vector<std::uint8_t> bytes = head.bytes();
        bytes.insert(bytes.end(), rec.bytes().begin(), rec.bytes().end());
        write_seed(dir, "oracle-decoded-" + fn, bytes);
      }
    }
  }
  {
    const fs::path dir = root / "fuzz_inputs" / "seed";
    // Case files of every kind.
    CaseFile c;
    c.workload = std::get<DenseWorkload>(explicit_dense_cases()[0].second);
    c.backend = "kahan_f64";
    c.bound = "kahan(f64)";
    c.verdict = "ok";
    c.found_by = "accucheck_fuzz_tool seeds";
    c.note = "Kahan's counterexample";
    c.seed = 7;
    write_seed(dir, "case-dense", text_input(0, case_to_json(c)));
    c = CaseFile{};
    c.workload = explicit_sparse_case(Format::f16);
    write_seed(dir, "case-sparse", text_input(0, case_to_json(c)));
    SeededChoiceStream ps(3);
    c.workload =
        generate(ps, Format::bf16, GenerationLimits{}, WorkloadKind::product, families_of(WorkloadKind::product)[0]);
    write_seed(dir, "case-product", text_input(0, case_to_json(c)));
    write_seed(dir, "case-bad-version",
               text_input(0, "{\"accucheck_case\": 2, \"format\": \"f32\", \"workload\": \"dense\"}"));
    for (const char* n : kNumbers) write_seed(dir, "number", text_input(1, n));
    write_seed(dir, "json", text_input(2, "{\"a\": [1, 2.5e-3, \"x\\u00e9\", true, null, {\"b\": -0}]}"));
    write_seed(dir, "json-deep", text_input(2, std::string(70, '[') + std::string(70, ']')));
    for (const char* b : kBoundTexts) write_seed(dir, "bound", text_input(3, b));
    const std::size_t shape[] = {2, 3};
    const double values[] = {1.0, -0.0, 0.5, 65504.0, 1e-7, -2.0};
    for (Format f : all_formats) {
      const auto bytes = npy_bytes(f, shape, values);
      write_seed(dir, "npy-" + std::string(name(f)), text_input(4, std::string(bytes.begin(), bytes.end())));
    }
  }
}

std::string escaped(const std::vector<std::uint8_t>& bytes) {
  std::string out;
  char hex[8];
  for (std::uint8_t b : bytes) {
    std::snprintf(hex, sizeof hex, "\\x%02X", b);
    out += hex;
  }
  return out;
}

std::vector<std::uint8_t> big_endian(std::uint64_t bits, int bytes) {
  std::vector<std::uint8_t> out;
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
  return out;
}

void write_dicts(const fs::path& dir) {
  fs::create_directories(dir);
  // Each format's special values and their negations: for the workload targets in the explicit
  // encoding (workload_encoding.h: what a value is in their inputs), one dictionary they share,
  // for fuzz_oracle as raw big-endian bit patterns (its raw addends).
  const auto dictionary = [](bool raw) {
    std::string d =
        raw ? "# Special values of each format as raw bit patterns (big-endian), both signs.\n"
            : "# Special values of each format in the explicit encoding (workload_encoding.h), both signs.\n";
    d += "# Written by `accucheck_fuzz_tool dicts` (fuzzers/make-seeds.sh); do not edit.\n";
    for (Format f : all_formats)
      for (double v : special_values(f, true))
        for (double x : {v, -v}) {
          std::vector<std::uint8_t> bytes;
          if (raw) {
            bytes = big_endian(encode(x, f) & storage_mask(f), traits(f).storage_bits / 8);
          } else {
            ChoiceWriter w;
            encode_value(w, x, f);
            bytes = w.bytes();
          }
          char label[64];
          std::snprintf(label, sizeof label, "%s_%s", std::string(name(f)).c_str(), hex_float(x).c_str());
          std::string key;
          for (char ch : std::string(label)) key += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
          d += key + "=\"" + escaped(bytes) + "\"\n";
        }
    return d;
  };
  write_file_atomically((dir / "workload.dict").string(), dictionary(false));
  write_file_atomically((dir / "fuzz_oracle.dict").string(), dictionary(true));
  std::string text =
      "# Tokens of the readers fuzz_inputs exercises.\n# Written by `accucheck_fuzz_tool dicts`; do not edit.\n";
  auto token = [&](const std::string& t) {  // libFuzzer's dictionary syntax: \\, \", \xNN
    std::string q;
    for (unsigned char ch : t) {
      if (ch == '"' || ch == '\\') {
        q += '\\';
        q += static_cast<char>(ch);
      } else if (ch < 0x20 || ch >= 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02X", ch);
        q += hex;
      } else {
        q += static_cast<char>(ch);
      }
    }
    text += "\"" + q + "\"\n";
  };
  for (const char* t : {"\"accucheck_case\"",
                        "\"workload\"",
                        "\"format\"",
                        "\"elements\"",
                        "\"steps\"",
                        "\"initial\"",
                        "\"addends\"",
                        "\"rows\"",
                        "\"cols\"",
                        "\"batch\"",
                        "\"dim\"",
                        "\"pairs\"",
                        "\"row\"",
                        "\"values\"",
                        "\"a\"",
                        "\"b\"",
                        "\"backend\"",
                        "\"bound\"",
                        "\"verdict\"",
                        "\"family\"",
                        "\"seed\"",
                        "\"found_by\"",
                        "\"note\"",
                        "\"zeros\"",
                        "\"dense\"",
                        "\"sparse\"",
                        "\"product\"",
                        "\"f64\"",
                        "\"f32\"",
                        "\"f16\"",
                        "\"bf16\"",
                        "true",
                        "false",
                        "null",
                        "\\u0000",
                        "\\ud800",
                        "1e999",
                        "0x1p-1074",
                        "0x1.fffffffffffffp+1023",
                        "nan",
                        "inf",
                        "-inf",
                        "e-",
                        "p+",
                        "0x",
                        "recursive",
                        "anyorder",
                        "tree",
                        "numpy",
                        "pairwise",
                        "blocked:",
                        "lanes:",
                        "kahan",
                        "neumaier",
                        "widened",
                        "products",
                        "correctly_rounded",
                        "faithful",
                        "reproducible_binned",
                        "stochastic",
                        "ftz",
                        "ulps",
                        "\x93NUMPY",
                        "'descr': '<f4'",
                        "'fortran_order': False",
                        "'shape': (",
                        "'<f8'",
                        "'<f2'",
                        "'<u2'",
                        "'<i4'",
                        "'<i8'",
                        "'>f4'"})
    token(t);
  write_file_atomically((dir / "fuzz_inputs.dict").string(), text);
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int selftest() {
  std::size_t checked = 0, wide = 0;
  for (WorkloadKind kind : {WorkloadKind::dense, WorkloadKind::sparse, WorkloadKind::product}) {
    const auto fams = families_of(kind);
    for (Format f : all_formats)
      if (kind != WorkloadKind::product || f != Format::f64)
        for (std::size_t i = 0; i < fams.size(); ++i)
          for (std::uint64_t seed = 0; seed < 20; ++seed) {
            std::vector<std::uint8_t> bytes = family_input(kind, f, i, seed);
            Workload w = decode_input(bytes, kind).workload;
            // raw encoding round trip
            if (!same_workload(w, decode_input(encode_input(w), kind).workload)) {
              std::fprintf(stderr, "selftest: encode_raw does not round-trip %s/%s seed %llu\n",
                           std::string(fams[i]->name).c_str(), std::string(name(f)).c_str(),
                           static_cast<unsigned long long>(seed));
              return 1;
            }
            // fuzz_maxerr's climb: a climb mutation of one element is an input that decodes to it
            if (kind == WorkloadKind::dense) {
              SeededChoiceStream climb(seed * 977 + i);
              Workload one = element_alone(w, 0);
              for (int m = 0; m < 20; ++m) {
                one = climb_mutation(one, climb, dense_limits().max_steps + 1);
                fit_layout(one, dense_limits());  // as encode_input does: T may have changed
                if (!same_workload(one, decode_input(encode_input(one), kind).workload)) {
                  std::fprintf(stderr, "selftest: a climb mutation of %s/%s seed %llu does not round-trip\n",
                               std::string(fams[i]->name).c_str(), std::string(name(f)).c_str(),
                               static_cast<unsigned long long>(seed));
                  return 1;
                }
                ++checked;
              }
            }
            // mutations: each result decodes to a valid workload; workload-level mutations round-trip
            MutationRng rng(seed * 131 + i);
            for (int m = 0; m < 40; ++m) {
              const char* what = mutate_workload(w, rng);
              if (const std::string bad = validate(w); !bad.empty()) {
                std::fprintf(stderr, "selftest: mutation '%s' made an invalid workload: %s\n", what, bad.c_str());
                return 1;
              }
              const Workload back = decode_input(encode_input(w), kind).workload;
              if (!same_workload(w, back)) {
                std::fprintf(stderr, "selftest: after mutation '%s' the workload does not round-trip\n", what);
                return 1;
              }
              w = back;
              ++checked;
              wide += kind == WorkloadKind::dense && element_count(w) > dense_limits().max_elements;
            }
            bytes.resize(bytes.size() + 16384);
            std::size_t size = bytes.size() - 16384;
            for (int m = 0; m < 10; ++m) {
              size = mutate_input(bytes.data(), size, bytes.size(), static_cast<unsigned>(seed * 7 + m), kind);
              const Workload mutated = decode_input(std::span<const std::uint8_t>(bytes.data(), size), kind).workload;
              if (const std::string bad = validate(mutated); !bad.empty()) {
                std::fprintf(stderr, "selftest: mutate_input made an invalid workload: %s\n", bad.c_str());
                return 1;
              }
            }
          }
  }
  // The mutator's widening reaches the compact wide buffers (fuzz_input.h), which round-trip too.
  if (dense_limits().max_patched_elements > 0 && wide == 0) {
    std::fprintf(stderr, "selftest: no mutation made a wide dense buffer\n");
    return 1;
  }
  std::printf("selftest: %zu mutations round-tripped, %zu of them wide dense buffers\n", checked, wide);
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: accucheck_fuzz_tool seeds CORPORA_DIR | dicts DIR | encode CASE.json OUT | decode "
               "dense|sparse|product INPUT [OUT.json]"
               " | selftest\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string command = argv[1];
  try {
    if (command == "seeds" && argc == 3) {
      write_seeds(argv[2]);
      return 0;
    }
    if (command == "dicts" && argc == 3) {
      write_dicts(argv[2]);
      return 0;
    }
    if (command == "selftest") return selftest();
    if (command == "encode" && argc == 4) {
      const CaseFile c = read_case_file(argv[2]);
      const auto bytes = encode_input(c.workload);
      if (!same_workload(c.workload, decode_input(bytes, kind_of(c.workload)).workload))
        std::fprintf(stderr, "%s: note: the workload exceeds the fuzz limits and was clamped\n", argv[2]);
      write_file_atomically(argv[3], std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
      return 0;
    }
    if (command == "decode" && (argc == 4 || argc == 5)) {
      const std::string kind = argv[2];
      if (kind != "dense" && kind != "sparse" && kind != "product") return usage();
      const auto bytes = read_bytes(argv[3]);
      CaseFile c;
      c.workload = decode_input(bytes, kind == "dense"    ? WorkloadKind::dense
                                       : kind == "sparse" ? WorkloadKind::sparse
                                                          : WorkloadKind::product)
                       .workload;
      c.found_by = std::string("fuzz input ") + fs::path(argv[3]).filename().string();
      const std::string json = case_to_json(c);
      if (argc == 5)
        write_file_atomically(argv[4], json);
      else
        std::fputs(json.c_str(), stdout);
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accucheck_fuzz_tool: %s\n", e.what());
    return 1;
  }
  return usage();
}
