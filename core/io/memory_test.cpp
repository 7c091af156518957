// The memory limit inputs are sized against (memory.h): ACCUCHECK_MEMORY_LIMIT over the
// machine's limits, a size it cannot read refused naming it, the shortfall in words.
#include "io/memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace accucheck {
namespace {

class MemoryLimit : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("ACCUCHECK_MEMORY_LIMIT"); }
};

TEST_F(MemoryLimit, TheVariableOverridesTheMachine) {
  const std::uint64_t machine = memory_limit_bytes();
  EXPECT_GT(machine, 0u);
  EXPECT_NE(memory_limit_source(), "ACCUCHECK_MEMORY_LIMIT");
  setenv("ACCUCHECK_MEMORY_LIMIT", "3G", 1);
  EXPECT_EQ(memory_limit_bytes(), 3ull << 30);
  EXPECT_EQ(memory_limit_source(), "ACCUCHECK_MEMORY_LIMIT");
  setenv("ACCUCHECK_MEMORY_LIMIT", "4096", 1);
  EXPECT_EQ(memory_limit_bytes(), 4096u);
  setenv("ACCUCHECK_MEMORY_LIMIT", "1024T", 1);  // above any machine's: the variable still wins
  EXPECT_EQ(memory_limit_bytes(), 1ull << 50);
}

TEST_F(MemoryLimit, AnUnreadableSizeIsRefusedNamingTheVariable) {
  setenv("ACCUCHECK_MEMORY_LIMIT", "lots", 1);
  try {
    memory_limit_bytes();
    FAIL() << "accepted 'lots'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ACCUCHECK_MEMORY_LIMIT"), std::string::npos) << e.what();
  }
}

TEST_F(MemoryLimit, TheShortfallSaysHowMuchAndWhy) {
  setenv("ACCUCHECK_MEMORY_LIMIT", "1G", 1);
  EXPECT_FALSE(memory_shortfall(512ull << 20).has_value());
  const auto why = memory_shortfall(8ull << 30);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("8.0 GiB"), std::string::npos) << *why;
  EXPECT_NE(why->find("1.0 GiB"), std::string::npos) << *why;
}

TEST(BytesText, PicksTheUnit) {
  EXPECT_EQ(bytes_text(300), "300 bytes");
  EXPECT_EQ(bytes_text(12 * 1024), "12.0 KiB");
  EXPECT_EQ(bytes_text(3ull << 29), "1.5 GiB");
}

}  // namespace
}  // namespace accucheck
