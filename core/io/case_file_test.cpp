// Tests of case_file.h's reader on hand-written files: what a case file may not say (a key
// given twice, a bound that does not parse, a verdict nobody writes) is refused naming the file
// and the field; a key this version does not know is read past with a warning; whatever the
// writers write is read back.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "checking/properties.h"
#include "checking/verdict.h"
#include "checking/workload.h"
#include "io/case_file.h"

namespace accucheck {
namespace {

const std::string kDense = R"({"accucheck_case": 1, "workload": "dense", "format": "f32", "elements": 1, "steps": 1,
  "initial": ["1"], "addends": [["0.5"]]})";
const std::string kSparse =
    R"({"accucheck_case": 1, "workload": "sparse", "format": "f32", "rows": 8, "dim": 1, "steps": 1,
  "initial": "zeros", "pairs": [[{"row": 1, "values": ["1"]}]]})";

// The text with `insert` placed right after the opening brace.
std::string with(const std::string& text, const std::string& insert) { return "{" + insert + text.substr(1); }

std::string error_of(const std::string& text) {
  try {
    parse_case(text, "c.json");
  } catch (const CaseError& e) {
    return e.what();
  }
  return "";
}

// The text with the first `from` replaced by `to`.
std::string swapped(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}

// Written and read back: the same workload, without warnings.
void expect_round_trip(const CaseFile& c) {
  const CaseFile back = parse_case(case_to_json(c), "back.json");
  EXPECT_TRUE(back.warnings.empty());
  EXPECT_EQ(back.workload, c.workload);
}

// The text is refused with an error that names each of `parts` (the field, the format).
void expect_error_names(const std::string& text, std::initializer_list<std::string_view> parts) {
  const std::string error = error_of(text);
  for (std::string_view part : parts) EXPECT_NE(error.find(part), std::string::npos) << part << " in: " << error;
}

// Without its input_format key (`key`, as written) the text's values are of its storage format:
// replacing `from` by `to` (a value of that format, not of the FP8 one) is accepted, and the
// key is not written back.
void expect_storage_values_without_input_format(const std::string& text, const std::string& key,
                                                const std::string& from, const std::string& to) {
  const std::string plain = swapped(text, key, "");
  EXPECT_EQ(error_of(swapped(plain, from, to)), "");
  EXPECT_EQ(case_to_json(parse_case(plain, "q.json")).find("input_format"), std::string::npos);
}

TEST(CaseFile, DuplicateKeysAreRefusedNamingTheKeyAndWhere) {
  const std::string top = error_of(with(kDense, R"("format": "f64", )"));
  EXPECT_NE(top.find("c.json"), std::string::npos) << top;
  EXPECT_NE(top.find("duplicate key \"format\" in the top-level object"), std::string::npos) << top;
  std::string sparse = kSparse;
  sparse.replace(sparse.find(R"("row": 1)"), 8, R"("row": 1, "row": 5)");
  const std::string pair = error_of(sparse);
  EXPECT_NE(pair.find("duplicate key \"row\" in pairs[0][0]"), std::string::npos) << pair;
  // Objects of many keys take the hashed path: the duplicate is found there too.
  std::string many;
  for (int i = 0; i < 40; ++i) many += "\"x" + std::to_string(i) + "\": 0, ";
  const std::string large = error_of(with(kDense, "\"note\": {" + many + "\"x7\": 1}, "));
  EXPECT_NE(large.find("duplicate key \"x7\" in note"), std::string::npos) << large;
  EXPECT_EQ(error_of(with(kDense, "\"extension\": {" + many + "\"y\": 1}, ")),
            "");  // no duplicate: read (with a warning)
}

TEST(CaseFile, UnknownKeysAreReadWithAWarningEach) {
  EXPECT_TRUE(parse_case(kDense, "c.json").warnings.empty());
  EXPECT_TRUE(parse_case(kSparse, "c.json").warnings.empty());
  const CaseFile dense = parse_case(with(kDense, R"("colour": "red", "pairs": [], )"), "c.json");
  ASSERT_EQ(dense.warnings.size(), 2u);
  EXPECT_EQ(dense.warnings[0], "c.json: colour: unknown key, ignored");
  EXPECT_EQ(dense.warnings[1], "c.json: pairs: unknown key, ignored");  // a sparse key in a dense case
  std::string sparse = kSparse;
  sparse.replace(sparse.find(R"("row": 1)"), 8, R"("row": 1, "weight": 2)");
  const CaseFile read = parse_case(sparse, "c.json");
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_EQ(read.warnings[0], "c.json: pairs[0][0].weight: unknown key, ignored");
  EXPECT_EQ(std::get<SparseWorkload>(read.workload).row_index.at(0), 1u);
}

TEST(CaseFile, BoundAndVerdictMustBeWhatTheWritersWrite) {
  const std::string bound = error_of(with(kDense, R"j("bound": "recursive(f33)", )j"));
  EXPECT_NE(bound.find("c.json: bound: "), std::string::npos) << bound;
  EXPECT_NE(bound.find("f33"), std::string::npos) << bound;
  const std::string verdict = error_of(with(kDense, R"("verdict": "fine-probably", )"));
  EXPECT_NE(verdict.find("c.json: verdict: 'fine-probably' is not a verdict"), std::string::npos) << verdict;
  // Every verdict name and both metamorphic labels (properties.h), as findings record them.
  std::vector<std::string> written = {"scaling-mismatch", "negation-mismatch"};
  for (Verdict v :
       {Verdict::ok, Verdict::bound_vacuous, Verdict::precondition_not_met, Verdict::bound_exceeded,
        Verdict::not_correctly_rounded, Verdict::overflow, Verdict::special_value_mismatch, Verdict::not_representable,
        Verdict::nondeterministic, Verdict::metamorphic_mismatch, Verdict::backend_failed})
    written.emplace_back(name(v));
  for (const auto& v : written) EXPECT_EQ(error_of(with(kDense, "\"verdict\": \"" + v + "\", ")), "") << v;
  EXPECT_NE(error_of(with(kDense, R"("verdict": "?", )")), "");
  // A bound of every kind, as check, the properties and the fuzzers write it (impls/tests'
  // registry_test round-trips every registered backend's).
  for (const char* text : {"recursive(f32)", "anyorder(f16)", "tree(pairwise,f32)", "tree(numpy,bf16)",
                           "tree(blocked:64,f32)", "tree(lanes:8,f32)", "kahan(f64)", "neumaier(f32)",
                           "widened(recursive(f64),bf16)", "products(f32)", "correctly_rounded", "faithful", "ulps(2)",
                           "reproducible_binned(3,40,f64)", "stochastic(6,bf16)", "ftz(anyorder(f32),f32)"})
    EXPECT_EQ(error_of(with(kDense, "\"bound\": \"" + std::string(text) + "\", ")), "") << text;
}

TEST(CaseFile, WrittenCasesReadBackWithoutWarnings) {
  CaseFile c = parse_case(kSparse, "c.json");
  c.backend = "naive_f32";
  c.bound = "recursive(f32)";
  c.verdict = "bound-exceeded";
  c.found_by = "accucheck check --seed 18446744073709551615";
  c.note = "n";
  c.seed = ~std::uint64_t{0};
  const CaseFile back = parse_case(case_to_json(c), "back.json");
  EXPECT_TRUE(back.warnings.empty());
  EXPECT_EQ(back.seed, c.seed);
  EXPECT_EQ(back.verdict, c.verdict);
}

// FP8 inputs: A and B are read as values of input_format, C as values of format; written back
// only when set; anything but e4m3 or e5m2 is refused naming the field.
TEST(CaseFile, Fp8InputsOfProductsRoundTripAndBadOnesAreRefused) {
  const std::string product = R"({"accucheck_case": 1, "workload": "product", "format": "f32", "rows": 1, "cols": 1,
    "batch": 2, "steps": 1, "input_format": "e4m3", "initial": ["1.0625"], "a": [["448", "-0.001953125"]], "b": [["0.5", "3"]]})";
  const CaseFile c = parse_case(product, "p.json");
  const auto& p = std::get<ProductWorkload>(c.workload);
  ASSERT_EQ(p.input_format, Format::e4m3);
  EXPECT_EQ(p.a[0], 448.0);
  EXPECT_EQ(p.a[1], -0x1p-9);  // E4M3's smallest subnormal
  EXPECT_EQ(p.validate(), "");
  const CaseFile back = parse_case(case_to_json(c), "back.json");
  EXPECT_TRUE(back.warnings.empty());
  EXPECT_EQ(std::get<ProductWorkload>(back.workload).input_format, Format::e4m3);
  EXPECT_EQ(std::get<ProductWorkload>(back.workload).a, p.a);
  // 1.0625 is a value of f32 (C), not of E4M3 (A); 480 is past E4M3's largest finite value.
  const std::string b_error = error_of(std::string(product).replace(product.find("\"0.5\""), 5, "\"1.0625\""));
  EXPECT_NE(b_error.find("c.json: b[0][0]"), std::string::npos) << b_error;
  EXPECT_NE(error_of(std::string(product).replace(product.find("\"448\""), 5, "\"480\"")).find("a[0][0]"),
            std::string::npos)
      << error_of(std::string(product).replace(product.find("\"448\""), 5, "\"480\""));
  EXPECT_NE(error_of(std::string(product).replace(product.find("\"e4m3\""), 6, "\"f16\"")).find("input_format"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(product).replace(product.find("\"e4m3\""), 6, "8")).find("input_format"),
            std::string::npos);
  // Without the key, A and B are f32 values again: 1.0625 is one.
  std::string plain = std::string(product).replace(product.find("\"input_format\": \"e4m3\", "), 24, "");
  EXPECT_EQ(error_of(plain.replace(plain.find("\"0.5\""), 5, "\"1.0625\"")), "");
  EXPECT_EQ(case_to_json(parse_case(plain, "q.json")).find("input_format"), std::string::npos);
}

// Mixed FP8 inputs (E5M2 gradients A, E4M3 activations B): each operand read as a value of its
// own format, written back, and b_input_format refused without input_format or equal to it.
TEST(CaseFile, MixedFp8InputsRoundTripAndEachOperandKeepsItsFormat) {
  const std::string product = R"({"accucheck_case": 1, "workload": "product", "format": "f32", "rows": 1, "cols": 1,
    "batch": 2, "steps": 1, "input_format": "e5m2", "b_input_format": "e4m3", "initial": ["0"], "a": [["57344", "0.75"]], "b": [["448", "0.875"]]})";
  const CaseFile c = parse_case(product, "m.json");
  const auto& p = std::get<ProductWorkload>(c.workload);
  EXPECT_EQ(p.a_inputs(), Format::e5m2);
  EXPECT_EQ(p.b_inputs(), Format::e4m3);
  EXPECT_EQ(p.validate(), "");
  expect_round_trip(c);
  // 0.9375 (1.111b / 2) has four significant bits: E4M3's, not E5M2's three; 57344 is E5M2's largest, past E4M3's.
  EXPECT_NE(error_of(swapped(product, "\"0.75\"", "\"0.9375\"")).find("a[0][1]"), std::string::npos);
  EXPECT_NE(error_of(swapped(product, "\"448\"", "\"57344\"")).find("b[0][0]"), std::string::npos);
  EXPECT_NE(error_of(swapped(product, "\"input_format\": \"e5m2\", ", "")).find("b_input_format"), std::string::npos);
  EXPECT_NE(
      error_of(swapped(product, "\"b_input_format\": \"e4m3\"", "\"b_input_format\": \"e5m2\"")).find("b_input_format"),
      std::string::npos);
  EXPECT_NE(
      error_of(swapped(product, "\"b_input_format\": \"e4m3\"", "\"b_input_format\": \"bf16\"")).find("b_input_format"),
      std::string::npos);
  // A workload differing only in B's format is a different workload.
  auto same_formats = p;
  same_formats.b_input_format.reset();
  EXPECT_FALSE(same_formats == p);
}

// FP8 gradients into a buffer of the storage format: the addends read as values of
// input_format, the initial buffer as a value of format; written back; bad ones refused
// naming the field.
TEST(CaseFile, Fp8AddendsOfDenseWorkloadsRoundTripAndBadOnesAreRefused) {
  const std::string dense = R"({"accucheck_case": 1, "workload": "dense", "format": "bf16", "elements": 2, "steps": 2,
    "input_format": "e5m2", "initial": ["1.0078125", "0"], "addends": [["57344", "-0.0000152587890625"], ["0.75", "-inf"]]})";
  const CaseFile c = parse_case(dense, "d.json");
  const auto& d = std::get<DenseWorkload>(c.workload);
  ASSERT_EQ(d.input_format, Format::e5m2);
  EXPECT_EQ(d.addend_format(), Format::e5m2);
  EXPECT_EQ(d.addends[1], -0x1p-16);  // E5M2's smallest subnormal
  EXPECT_EQ(d.validate(), "");
  expect_round_trip(c);
  // 0.9375 (1.111b / 2) has four significant bits: E4M3's and bf16's, not E5M2's three.
  expect_error_names(swapped(dense, "\"0.75\"", "\"0.9375\""), {"c.json: addends[1][0]", "e5m2"});
  EXPECT_NE(error_of(swapped(dense, "\"e5m2\"", "\"f32\"")).find("input_format"), std::string::npos);
  EXPECT_NE(error_of(swapped(dense, "\"e5m2\"", "true")).find("input_format"), std::string::npos);
  // Without the key the addends are bf16 values: 0.9375 is one. The initial 1.0078125 is a bf16, not an FP8, value.
  expect_storage_values_without_input_format(dense, "\"input_format\": \"e5m2\", ", "\"0.75\"", "\"0.9375\"");
  auto not_fp8 = d;
  not_fp8.input_format.reset();
  EXPECT_FALSE(not_fp8 == d);
  not_fp8.input_format = Format::f16;
  EXPECT_NE(not_fp8.validate().find("input_format f16 is not an fp8 format"), std::string::npos) << not_fp8.validate();
}

// FP8 embedding rows into a table of the storage format: each pair's values read as values of
// input_format, the table's as values of format; written back; bad ones refused naming the field.
TEST(CaseFile, Fp8RowsOfSparseWorkloadsRoundTripAndBadOnesAreRefused) {
  const std::string sparse =
      R"({"accucheck_case": 1, "workload": "sparse", "format": "f16", "rows": 3, "dim": 2, "steps": 1,
    "input_format": "e4m3", "initial": ["0.0009765625", "0", "0", "0", "0", "1"],
    "pairs": [[{"row": 2, "values": ["448", "-0.001953125"]}, {"row": 2, "values": ["0.9375", "nan"]}]]})";
  const CaseFile c = parse_case(sparse, "s.json");
  const auto& s = std::get<SparseWorkload>(c.workload);
  ASSERT_EQ(s.input_format, Format::e4m3);
  EXPECT_EQ(s.value_format(), Format::e4m3);
  EXPECT_EQ(s.values[1], -0x1p-9);  // E4M3's smallest subnormal
  EXPECT_EQ(s.validate(), "");
  expect_round_trip(c);
  // 0.96875 (1.1111b / 2) has five significant bits: f16's, not E4M3's four; 2^-10 (the table's) is below E4M3's range.
  expect_error_names(swapped(sparse, "\"0.9375\"", "\"0.96875\""), {"c.json: pairs[0][1].values[0]", "e4m3"});
  EXPECT_NE(error_of(swapped(sparse, "\"e4m3\"", "\"bf16\"")).find("input_format"), std::string::npos);
  expect_storage_values_without_input_format(sparse, "\"input_format\": \"e4m3\", ", "\"0.9375\"", "\"0.96875\"");
  auto other = s;
  other.input_format = Format::e5m2;
  EXPECT_FALSE(other == s);
  EXPECT_NE(other.validate().find("is not a e5m2 value"), std::string::npos)
      << other.validate();  // 0.9375: four significant bits
}

// A layout is written only when it is not contiguous, and read back whole; a bad one is refused
// naming the field.
TEST(CaseFile, LayoutsRoundTripAndBadOnesAreRefused) {
  CaseFile dense = parse_case(kDense, "c.json");
  EXPECT_TRUE(std::get<DenseWorkload>(dense.workload).layout.contiguous());
  EXPECT_EQ(case_to_json(dense).find("layout"), std::string::npos);
  const DenseLayout layout{.element_major = true, .gap = 3, .padding = 64, .buffer_gap = 2};
  std::get<DenseWorkload>(dense.workload).layout = layout;
  const CaseFile back = parse_case(case_to_json(dense), "back.json");
  EXPECT_TRUE(back.warnings.empty());
  EXPECT_EQ(std::get<DenseWorkload>(back.workload).layout, layout);

  CaseFile sparse = parse_case(kSparse, "c.json");
  std::get<SparseWorkload>(sparse.workload).layout = SparseLayout{.table_padding = 5, .value_padding = 1};
  EXPECT_EQ(std::get<SparseWorkload>(parse_case(case_to_json(sparse), "s.json").workload).layout,
            (SparseLayout{.table_padding = 5, .value_padding = 1}));

  EXPECT_EQ(std::get<DenseWorkload>(parse_case(with(kDense, R"("layout": {"gap": 1}, )"), "c.json").workload).layout,
            (DenseLayout{.gap = 1}));
  EXPECT_NE(error_of(with(kDense, R"("layout": {"gap": 4}, )")).find("c.json: layout.gap: 4 is too large (at most 3)"),
            std::string::npos)
      << error_of(with(kDense, R"("layout": {"gap": 4}, )"));
  EXPECT_NE(
      error_of(with(kDense, R"("layout": {"element_major": 1}, )")).find("layout.element_major: must be true or false"),
      std::string::npos);
  EXPECT_NE(error_of(with(kDense, R"("layout": [1], )")).find("c.json: layout: must be an object"), std::string::npos);
  EXPECT_NE(
      error_of(with(kSparse, R"("layout": {"table_padding": 65}, )")).find("layout.table_padding: 65 is too large"),
      std::string::npos);
  const CaseFile unknown = parse_case(with(kDense, R"("layout": {"stride": 2}, )"), "c.json");
  ASSERT_EQ(unknown.warnings.size(), 1u);
  EXPECT_NE(unknown.warnings[0].find("layout.stride: unknown key"), std::string::npos) << unknown.warnings[0];
}

}  // namespace
}  // namespace accucheck
