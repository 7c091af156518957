// Workloads built by tests: one column by hand, and seeded random dense, sparse and product
// workloads. The same seed gives the same workload on every machine (std::mt19937_64 and
// libstdc++'s distributions are fixed functions of the seed); pass test_seed(k) (seed.h) to let
// ACCUCHECK_TEST_SEED vary them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "checking/workload.h"

namespace accucheck::test {

// One element: column[0] is the initial value, then one addend per step (column not empty).
DenseWorkload column_workload(Format f, const std::vector<double>& column);

// How random_dense draws its values (each a value of the format):
//   ordinary:      uniform in [-1, 1) times 2^e, e uniform in [-12, 12];
//   with_extremes: a random sign and significand times 2^e, e in [-12, 11], and also small
//                  multiples of the smallest subnormal (1 in 16) and 2^(emax - 8) (1 in 64):
//                  gradual underflow and sums near overflow in every format.
enum class Values { ordinary, with_extremes };

DenseWorkload random_dense(Format f, std::size_t elements, std::size_t steps, std::uint64_t seed,
                           Values values = Values::with_extremes);

// An embedding table: `touched_rows` of `rows` appear in the pairs (the others keep their
// initial values), `pairs_per_step` pairs per step, rows drawn uniformly, values uniform in
// [-1, 1) scaled by 2^(3k) for the k-th pair of a step.
struct SparseShape {
  std::size_t rows = 7, dim = 3, steps = 4, pairs_per_step = 5, touched_rows = 5;
};
SparseWorkload random_sparse(Format f, std::uint64_t seed, const SparseShape& shape = {});

// An f32 GEMM-with-beta=1 workload with values uniform in [-1, 1); `cancelling`: every other
// value of B is minus the one before it, times 1.0000001, so the products cancel in pairs.
ProductWorkload random_product(std::size_t rows, std::size_t cols, std::size_t batch, std::size_t steps,
                               std::uint64_t seed, bool cancelling);

}  // namespace accucheck::test
