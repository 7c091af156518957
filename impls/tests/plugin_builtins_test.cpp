// The example plugins against the built-in backends they mirror (their results agree bit for
// bit in every isolation mode, on small and large workloads), and a plugin may not take a
// built-in backend's name. The loader's own tests: core/plugins/plugin_loader_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "accucheck/testing/backends.h"
#include "accucheck/testing/bits.h"
#include "accucheck/testing/workloads.h"
#include "checking/judge.h"
#include "plugins/plugin_loader.h"

namespace accucheck {
namespace {

using test::random_sparse;
using test::results_of;

std::string test_plugin(const std::string& variant) {
  return std::string(ACCUCHECK_TEST_PLUGIN_DIR) + "/libtest_plugin_" + variant + ".so";
}

// The workloads of core/plugins/plugin_loader_test.cpp: ordinary values.
DenseWorkload random_dense(Format f, std::size_t elements, std::size_t steps, std::uint64_t seed) {
  return test::random_dense(f, elements, steps, seed, test::Values::ordinary);
}

// The example backends do what the built-in ones do, so their results agree bit for bit: the
// values cross the ABI as raw bits of the storage format and come back decoded exactly.
TEST(PluginLoader, ExampleResultsMatchTheBuiltinsBitForBit) {
  for (PluginIsolation isolation :
       {PluginIsolation::worker, PluginIsolation::fork_per_call, PluginIsolation::in_process}) {
    Registry registry;
    PluginOptions options;
    options.isolation = isolation;
    load_plugin(ACCUCHECK_GOOD_EXAMPLE_PLUGIN, options, registry);
    const Registry& builtin = Registry::global();
    const struct {
      const char* plugin;
      const char* builtin;
      Format format;
    } pairs[] = {{"example.naive_f64", "naive_f64", Format::f64},
                 {"example.widened_bf16", "widened_bf16_acc_f32", Format::bf16},
                 {"example.widened_f16", "widened_f16_acc_f64", Format::f16}};
    for (const auto& p : pairs) {
      const Backend* mine = registry.find(p.plugin);
      const Backend* theirs = builtin.find(p.builtin);
      ASSERT_NE(mine, nullptr);
      ASSERT_NE(theirs, nullptr) << p.builtin;
      for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        const Workload w = random_dense(p.format, 5, 40 * seed, seed);
        test::expect_same_bits(results_of(*mine, w), results_of(*theirs, w), p.plugin);
        EXPECT_FALSE(run_and_judge(*mine, w).violated()) << p.plugin;
      }
      if (mine->supports(WorkloadKind::sparse) && theirs->supports(WorkloadKind::sparse)) {
        const Workload s = random_sparse(p.format, 9);
        test::expect_same_bits(results_of(*mine, s), results_of(*theirs, s), std::string(p.plugin) + " sparse");
      }
    }
  }
}

// A plugin backend may not take a built-in backend's name (the registry it is loaded into
// decides: a private registry has no built-ins).
TEST(PluginLoader, BuiltinNamesAreTaken) {
  const std::size_t before = Registry::global().all().size();
  try {
    load_plugin(test_plugin("builtin_name"));
    FAIL();
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find(test_plugin("builtin_name") +
                                         ": backend 'naive_f32': name is already registered (a built-in backend)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(Registry::global().all().size(), before);
  Registry registry;
  EXPECT_EQ(load_plugin(test_plugin("builtin_name"), registry), std::vector<std::string>{"naive_f32"});
}

// Large workloads grow the shared region; the results still agree with the built-in backend.
TEST(PluginLoader, LargeWorkloadsCrossTheWorker) {
  Registry registry;
  load_plugin(ACCUCHECK_GOOD_EXAMPLE_PLUGIN, registry);
  const Backend* mine = registry.find("example.naive_f64");
  for (std::size_t elements : {1u, 1000u, 3u, 20000u}) {
    const Workload w = random_dense(Format::f64, elements, 50, elements);
    test::expect_same_bits(results_of(*mine, w), results_of(*Registry::global().find("naive_f64"), w),
                           "elements " + std::to_string(elements));
  }
}

}  // namespace
}  // namespace accucheck
