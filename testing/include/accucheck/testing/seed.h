// Seeds of randomized tests, from the environment (as CCCL's c2h takes them): a test that draws
// random cases asks test_seed(k) for the seed it would otherwise write as the constant k.
//
//   ACCUCHECK_TEST_SEED unset or empty: k itself, so every run sees the same cases.
//   ACCUCHECK_TEST_SEED=N (decimal, 0 to 2^64-1): splitmix64(N ^ splitmix64(k)), so distinct
//     constants stay distinct and N reproduces the run.
//   ACCUCHECK_TEST_SEED=random: N drawn once per process from std::random_device.
//
// A test that fails after asking for seeds prints them and the line that reruns it with the
// same cases. Only tests whose checks hold for every input take their seeds from here; those
// whose thresholds were measured on fixed seeds keep them.
#pragma once

#include <cstdint>

namespace accucheck::test {

std::uint64_t test_seed(std::uint64_t fixed);

}  // namespace accucheck::test
