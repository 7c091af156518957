// hash.h against published values: a seed, a corpus file name or a case-file name means what
// these functions make of it, so a change to either hash must fail here, not silently re-seed
// every campaign.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "checking/choice.h"
#include "numerics/hash.h"

namespace accucheck {
namespace {

// The FNV reference's constants, as the specification gives them (decimal).
static_assert(kFnv1aOffsetBasis == 14695981039346656037ULL);
static_assert(kFnv1aPrime == 1099511628211ULL);
static_assert(fnv1a(std::string_view("a")) == 0xaf63dc4c8601ec8cULL, "usable in constant expressions");

// The first outputs of Vigna's splitmix64.c seeded with 0.
TEST(SplitMix64, PublishedOutputsFromSeedZero) {
  SplitMix64 generator(0);
  for (std::uint64_t expected :
       {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL, 0x06c45d188009454fULL, 0xf88bb8a8724c81ecULL})
    EXPECT_EQ(generator.next(), expected);
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(splitmix64(kSplitMix64Gamma), 0x6e789e6aa1b965f4ULL);
}

// Seeded campaigns draw from SplitMix64 itself: a printed seed regenerates the same words.
TEST(SplitMix64, SeededChoiceStreamIsTheGenerator) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{20240601}, ~std::uint64_t{0}}) {
    SeededChoiceStream stream(seed);
    SplitMix64 generator(seed);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(stream.next(), generator.next()) << "seed " << seed << ", word " << i;
  }
}

// Test vectors of the FNV reference implementation (Noll's fnv_test.c, FNV-1a 64-bit).
TEST(Fnv1a, PublishedTestVectors) {
  EXPECT_EQ(fnv1a(std::string_view("")), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a(std::string_view("a")), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a(std::string_view("foobar")), 0x85944171f73967e8ULL);
  const std::vector<std::uint8_t> bytes = {'f', 'o', 'o', 'b', 'a', 'r'};
  EXPECT_EQ(fnv1a(bytes), 0x85944171f73967e8ULL);
  EXPECT_EQ(fnv1a(std::string_view("bar"), fnv1a(std::string_view("foo"))), 0x85944171f73967e8ULL)
      << "continues a hash";
}

TEST(Fnv1a, Le64HashesTheBytesLeastSignificantFirst) {
  const std::vector<std::uint8_t> bytes = {'f', 'o', 'o', 'b', 'a', 'r', 0, 0};
  const std::uint64_t word = 0x0000'7261'626f'6f66ULL;  // "foobar" read as a little-endian word
  EXPECT_EQ(fnv1a_le64(word), fnv1a(bytes));
  EXPECT_EQ(fnv1a_le64(word, 12345), fnv1a(bytes, 12345));
  EXPECT_NE(fnv1a_le64(word), fnv1a_le64(__builtin_bswap64(word)));
}

}  // namespace
}  // namespace accucheck
