// The plugin options from the environment (plugin_options.h): each variable's values, and a
// value it does not understand refused naming the variable.
#include "plugins/plugin_options.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace accucheck {
namespace {

// Sets the variables for one test and restores the unset state after it.
class PluginOptionsFromEnvironment : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* name : {"ACCUCHECK_PLUGIN_ISOLATION", "ACCUCHECK_PLUGIN_TIMEOUT", "ACCUCHECK_PLUGIN_MEMORY"})
      unsetenv(name);
  }
  static std::string error_for(const char* name, const char* value) {
    setenv(name, value, 1);
    try {
      plugin_options_from_environment();
    } catch (const PluginError& e) {
      unsetenv(name);
      return e.what();
    }
    unsetenv(name);
    return "";
  }
};

TEST_F(PluginOptionsFromEnvironment, DefaultsToAWorkerWithAMinuteAndHalfTheMemory) {
  const PluginOptions o = plugin_options_from_environment();
  EXPECT_EQ(o.isolation, PluginIsolation::worker);
  EXPECT_EQ(o.timeout_seconds, 60);
  EXPECT_GT(o.memory_limit_bytes, 0u);
}

TEST_F(PluginOptionsFromEnvironment, ReadsEachVariable) {
  setenv("ACCUCHECK_PLUGIN_ISOLATION", "fork", 1);
  setenv("ACCUCHECK_PLUGIN_TIMEOUT", "2.5", 1);
  setenv("ACCUCHECK_PLUGIN_MEMORY", "1.5G", 1);
  PluginOptions o = plugin_options_from_environment();
  EXPECT_EQ(o.isolation, PluginIsolation::fork_per_call);
  EXPECT_EQ(o.timeout_seconds, 2.5);
  EXPECT_EQ(o.memory_limit_bytes, 1536ull << 20);
  setenv("ACCUCHECK_PLUGIN_ISOLATION", "none", 1);
  setenv("ACCUCHECK_PLUGIN_MEMORY", "none", 1);
  o = plugin_options_from_environment();
  EXPECT_EQ(o.isolation, PluginIsolation::in_process);
  EXPECT_EQ(o.memory_limit_bytes, 0u);  // no limit
}

TEST_F(PluginOptionsFromEnvironment, RefusesWhatItDoesNotUnderstandNamingTheVariable) {
  for (const char* value : {"thread", "Worker"})
    EXPECT_NE(error_for("ACCUCHECK_PLUGIN_ISOLATION", value).find("ACCUCHECK_PLUGIN_ISOLATION"), std::string::npos)
        << value;
  for (const char* value : {"0", "-1", "x", "86401", "1s"})
    EXPECT_NE(error_for("ACCUCHECK_PLUGIN_TIMEOUT", value).find("ACCUCHECK_PLUGIN_TIMEOUT"), std::string::npos)
        << value;
  for (const char* value : {"1K", "4X", "G", "-4G", "1e30"})
    EXPECT_NE(error_for("ACCUCHECK_PLUGIN_MEMORY", value).find("ACCUCHECK_PLUGIN_MEMORY"), std::string::npos) << value;
}

}  // namespace
}  // namespace accucheck
