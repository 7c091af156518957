// The real MPI_Allreduce backends (impls/thirdparty/openmpi.cpp, built when Open MPI is installed)
// against the Open MPI order models (common/allreduce_orders.h): with coll/tuned forced to an
// algorithm, the library's bits are the model's over the ranks' partial sums, buffer by buffer;
// and a world that cannot start is the backend's failure, reported, not a crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "checking/backend.h"
#include "common/allreduce_orders.h"
#include "numerics/soft_float.h"

namespace accucheck {
namespace {

using namespace impls::allreduce;

// n terms per element of D elements, f32 values over a few binades of both signs (ties and
// cancellations happen).
DenseWorkload random_workload(std::size_t elements, std::size_t n, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> exponent(-30, 0), mantissa(0, (1 << 24) - 1), sign(0, 1);
  auto value = [&] {
    const float x = std::ldexp(static_cast<float>((1 << 23) + mantissa(random) / 2), exponent(random) - 23);
    return static_cast<double>(sign(random) ? -x : x);
  };
  DenseWorkload w;
  w.format = Format::f32;
  w.elements = elements;
  w.steps = n - 1;
  for (std::size_t j = 0; j < elements; ++j) w.initial.push_back(value());
  for (std::size_t i = 0; i < w.steps * elements; ++i) w.addends.push_back(value());
  return w;
}

// What the world computes before the all-reduce: rank r's share [r n / P, (r+1) n / P) summed in order.
std::vector<float> partial_sums(const DenseWorkload& w, std::size_t j, std::size_t ranks) {
  const std::size_t n = w.steps + 1;
  std::vector<float> partial;
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::size_t begin = n * r / ranks, end = n * (r + 1) / ranks;
    float acc = -0.0f;
    for (std::size_t i = begin; i < end; ++i) {
      const float x = static_cast<float>(i == 0 ? w.initial[j] : w.addend(i - 1, j));
      acc = i == begin ? x : acc + x;
    }
    partial.push_back(acc);
  }
  return partial;
}

struct Forced {
  const char* backend;
  float (*model)(std::span<const float>, std::size_t element, std::size_t elements);
};
const Forced kForced[] = {
    {"mpi_allreduce_np4_basic_linear_f32",
     [](std::span<const float> x, std::size_t, std::size_t) { return mpi_basic_linear(x); }},
    {"mpi_allreduce_np4_recursive_doubling_f32",
     [](std::span<const float> x, std::size_t, std::size_t) { return mpi_recursive_doubling(x); }},
    {"mpi_allreduce_np4_ring_f32",
     [](std::span<const float> x, std::size_t j, std::size_t d) { return mpi_ring(x, j, d); }},
    {"mpi_allreduce_np4_rabenseifner_f32",
     [](std::span<const float> x, std::size_t, std::size_t d) { return mpi_rabenseifner(x, d); }},
};

TEST(OpenMpi, ForcedAlgorithmsAreTheOrderModels) {
  for (const Forced& forced : kForced) {
    const Backend* b = Registry::global().find(forced.backend);
    ASSERT_NE(b, nullptr) << forced.backend;
    std::uint32_t seed = 1;
    // Buffers below and above 4 elements (the ring's and Rabenseifner's fallbacks), D mod 4 != 0
    // (unequal ring blocks); one term per rank, and shares of 2 and 3.
    for (std::size_t elements : {1u, 2u, 3u, 4u, 5u, 7u, 64u, 1001u})
      for (std::size_t n : {4u, 8u, 11u}) {
        const DenseWorkload w = random_workload(elements, n, seed++);
        std::vector<double> result(elements);
        b->run(w, result, RunOptions{});
        for (std::size_t j = 0; j < elements; ++j) {
          const std::vector<float> partial = partial_sums(w, j, 4);
          const float want = forced.model(std::span<const float>(partial), j, elements);
          ASSERT_EQ(result[j], static_cast<double>(want))
              << forced.backend << ": D = " << elements << ", n = " << n << ", element " << j;
        }
      }
  }
}

// The library's own choice on 4 ranks: recursive doubling for small messages (coll/tuned's fixed
// decision below 8 KiB for 4 <= P < 8, coll_tuned_decision_fixed.c), the model's bits.
TEST(OpenMpi, DefaultChoiceForSmallMessagesIsRecursiveDoubling) {
  const Backend* b = Registry::global().find("mpi_allreduce_np4_f32");
  ASSERT_NE(b, nullptr);
  const DenseWorkload w = random_workload(100, 4, 7);  // 400 bytes
  std::vector<double> result(w.elements);
  b->run(w, result, RunOptions{});
  for (std::size_t j = 0; j < w.elements; ++j) {
    const std::vector<float> partial = partial_sums(w, j, 4);
    ASSERT_EQ(result[j], static_cast<double>(mpi_recursive_doubling(std::span<const float>(partial)))) << j;
  }
}

// What the backend's run of w threw as BackendFailure ("no failure reported" if it returned).
std::string failure_of(const Backend& b, const DenseWorkload& w) {
  std::vector<double> result(w.elements);
  try {
    b.run(w, result, RunOptions{});
  } catch (const BackendFailure& failure) {
    return failure.what();
  }
  return "no failure reported";
}

TEST(OpenMpi, AMissingMpirunIsTheBackendsFailureEachTime) {
  ::setenv("ACCUCHECK_MPIRUN", "/nonexistent/mpirun", 1);
  const Backend* b = Registry::global().find("mpi_allreduce_np4_f64");
  ASSERT_NE(b, nullptr);
  const DenseWorkload w = random_workload(3, 5, 2);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string failure = failure_of(*b, w);
    EXPECT_NE(failure.find("cannot start /nonexistent/mpirun"), std::string::npos) << failure;
  }
  ::unsetenv("ACCUCHECK_MPIRUN");
  std::vector<double> result(w.elements);
  b->run(w, result, RunOptions{});  // a clean start after two failed ones
  for (std::size_t j = 0; j < w.elements; ++j) {
    // 5 terms over 4 ranks in f64: shares {0}, {1}, {2}, {3, 4}; recursive doubling on 4 ranks.
    const double x0 = w.initial[j], x1 = w.addend(0, j), x2 = w.addend(1, j), x3 = w.addend(2, j), x4 = w.addend(3, j);
    EXPECT_EQ(result[j], (x0 + x1) + (x2 + (x3 + x4))) << j;
  }
}

TEST(OpenMpi, AWorldThatCannotStartIsTheBackendsFailure) {
  ::setenv("ACCUCHECK_MPIRUN", "/bin/false", 1);
  const Backend* b = Registry::global().find("mpi_allreduce_np2_f32");
  ASSERT_NE(b, nullptr);
  const DenseWorkload w = random_workload(3, 2, 1);
  const std::string failure = failure_of(*b, w);
  EXPECT_NE(failure.find("the MPI world ended"), std::string::npos) << failure;
  ::unsetenv("ACCUCHECK_MPIRUN");
  std::vector<double> result(w.elements);
  b->run(w, result, RunOptions{});  // the next workload starts a world again
  const std::vector<float> partial = partial_sums(w, 0, 2);
  EXPECT_EQ(result[0], static_cast<double>(partial[0] + partial[1]));
}

}  // namespace
}  // namespace accucheck
