#include "accucheck/testing/seed.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "numerics/hash.h"

namespace accucheck::test {
namespace {

constexpr const char* kVariable = "ACCUCHECK_TEST_SEED";

// N of ACCUCHECK_TEST_SEED, nothing when it is unset or empty; a value that is not a seed is
// an error of the run (thrown, so the test asking fails naming it), not a silent default.
std::optional<std::uint64_t> environment_seed() {
  const char* text = std::getenv(kVariable);
  if (!text || !*text) return std::nullopt;
  if (std::string(text) == "random") {
    static const std::uint64_t drawn = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    return drawn;
  }
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*text < '0' || *text > '9' || *end != '\0' || errno == ERANGE)
    throw std::invalid_argument(std::string(kVariable) + "='" + text +
                                "' is not a seed (a decimal integer from 0 to 2^64-1, or 'random')");
  return value;
}

// The seeds the running test asked for; printed when it fails.
class SeedReporter : public ::testing::EmptyTestEventListener {
 public:
  void asked(std::uint64_t fixed, std::uint64_t used) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const ::testing::TestInfo* now = ::testing::UnitTest::GetInstance()->current_test_info();
    if (now != test_) {
      test_ = now;
      seeds_.clear();
    }
    for (const auto& seed : seeds_)
      if (seed.first == fixed) return;
    seeds_.emplace_back(fixed, used);
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (&info != test_ || !info.result()->Failed()) return;
    const std::optional<std::uint64_t> n = environment_seed();
    std::string seeds;
    for (const auto& [fixed, used] : seeds_)
      seeds += (seeds.empty() ? " " : ", ") + std::to_string(fixed) + (n ? " -> " + std::to_string(used) : "");
    if (n)
      std::printf(
          "[ seeds    ] %s.%s drew its cases from ACCUCHECK_TEST_SEED=%llu (seeds%s): rerun with "
          "ACCUCHECK_TEST_SEED=%llu to reproduce them\n",
          info.test_suite_name(), info.name(), static_cast<unsigned long long>(*n), seeds.c_str(),
          static_cast<unsigned long long>(*n));
    else
      std::printf("[ seeds    ] %s.%s drew its cases from its fixed seeds%s; ACCUCHECK_TEST_SEED=N draws others\n",
                  info.test_suite_name(), info.name(), seeds.c_str());
    std::fflush(stdout);
    test_ = nullptr;
  }

 private:
  std::mutex mutex_;
  const ::testing::TestInfo* test_ = nullptr;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seeds_;
};

SeedReporter& reporter() {
  // GoogleTest owns and deletes the listeners it is given.
  static SeedReporter* installed = [] {
    auto* r = new SeedReporter;
    ::testing::UnitTest::GetInstance()->listeners().Append(r);
    return r;
  }();
  return *installed;
}

}  // namespace

std::uint64_t test_seed(std::uint64_t fixed) {
  const std::optional<std::uint64_t> n = environment_seed();
  const std::uint64_t used = n ? splitmix64(*n ^ splitmix64(fixed)) : fixed;
  reporter().asked(fixed, used);
  return used;
}

}  // namespace accucheck::test
