// The strict JSON reader (json_parse.h): what it accepts, and each refusal with line and column.
#include "io/json_parse.h"

#include <gtest/gtest.h>

#include <string>

namespace accucheck {
namespace {

TEST(JsonParse, ReadsEveryTypeAndKeepsNumbersAsTheirText) {
  const auto r = parse_json(R"({"a": [1, -0.0, 1e-310, "x\u00e9\n"], "b": {"t": true, "f": false, "n": null}})");
  ASSERT_TRUE(r.ok()) << r.error;
  const JsonValue* a = r.value.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->type, JsonValue::Type::array);
  ASSERT_EQ(a->items.size(), 4u);
  EXPECT_EQ(a->items[1].text, "-0.0");  // the token, so that -0 and subnormals parse exactly later
  EXPECT_EQ(a->items[2].text, "1e-310");
  EXPECT_EQ(a->items[3].text, "x\xc3\xa9\n");  // \u00e9 as UTF-8
  const JsonValue* b = r.value.find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->find("t")->boolean);
  EXPECT_FALSE(b->find("f")->boolean);
  EXPECT_EQ(b->find("n")->type, JsonValue::Type::null);
  EXPECT_EQ(b->members.front().first, "t");  // document order
  EXPECT_EQ(r.value.find("missing"), nullptr);
}

TEST(JsonParse, RefusesWhatRfc8259Refuses) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "nul", "\"\\x\"", "[1] 2", "'a'",
                          "{a:1}", "\"tab\there\"", "NaN", "Infinity"}) {
    const auto r = parse_json(bad);
    EXPECT_FALSE(r.ok()) << "accepted: " << bad;
    EXPECT_NE(r.error.find("line "), std::string::npos) << bad << ": " << r.error;
  }
}

TEST(JsonParse, NamesTheLineAndColumnOfAnError) {
  const auto r = parse_json("{\n  \"a\": [1,\n        2,,\n  ]\n}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("line 3, column ", 0), 0u) << r.error;
}

TEST(JsonParse, RefusesAKeyGivenTwiceNamingItAndWhere) {
  const auto r = parse_json(R"({"pairs": [[0, {"k": 1, "k": 2}]]})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("\"k\""), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("pairs[0][1]"), std::string::npos) << r.error;
}

TEST(JsonParse, NestsValuesAtMost64LevelsBelowTheTopOne) {
  const auto nested = [](int arrays) { return std::string(arrays, '[') + std::string(arrays, ']'); };
  EXPECT_TRUE(parse_json(nested(65)).ok());  // the innermost array 64 levels below the outermost
  const auto deep = parse_json(nested(66));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error.find("deep"), std::string::npos) << deep.error;
}

}  // namespace
}  // namespace accucheck
