#include "numerics/enum_names.h"

#include <gtest/gtest.h>

namespace accucheck {
namespace {

enum class Colour : unsigned char { red, green, blue };

constexpr EnumNames<Colour, 3> colour_names({{Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}});

TEST(EnumNames, NamesAndParsesEveryValue) {
  EXPECT_EQ(colour_names.name(Colour::red), "red");
  EXPECT_EQ(colour_names.name(Colour::green), "green");
  EXPECT_EQ(colour_names.name(Colour::blue), "blue");
  EXPECT_EQ(colour_names.parse("red"), Colour::red);
  EXPECT_EQ(colour_names.parse("green"), Colour::green);
  EXPECT_EQ(colour_names.parse("blue"), Colour::blue);
}

TEST(EnumNames, UnknownTextAndValuesOutsideTheTable) {
  EXPECT_EQ(colour_names.parse("Red"), std::nullopt);
  EXPECT_EQ(colour_names.parse(""), std::nullopt);
  EXPECT_EQ(colour_names.parse("blue "), std::nullopt);
  EXPECT_EQ(colour_names.name(static_cast<Colour>(7)), "?");
}

// A table out of enum order does not compile (the consteval constructor throws); what compiles
// is checked here to be usable in constant expressions.
static_assert(colour_names.name(Colour::blue) == "blue");
static_assert(colour_names.parse("green") == Colour::green);
static_assert(decltype(colour_names)::size() == 3);

}  // namespace
}  // namespace accucheck
