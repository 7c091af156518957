#include "accucheck/testing/workloads.h"

#include <cmath>
#include <random>

namespace accucheck::test {

DenseWorkload column_workload(Format f, const std::vector<double>& column) {
  DenseWorkload w;
  w.format = f;
  w.elements = 1;
  w.steps = column.size() - 1;
  w.initial = {column.front()};
  w.addends.assign(column.begin() + 1, column.end());
  return w;
}

DenseWorkload random_dense(Format f, std::size_t elements, std::size_t steps, std::uint64_t seed, Values values) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-12, 12);
  auto ordinary = [&] {
    const double m = mantissa(rng);  // drawn in sequence: the same values under every compiler
    return round_to_format(std::ldexp(m, exponent(rng)), f);
  };
  auto with_extremes = [&] {
    const int e = static_cast<int>(rng() % 24) - 12;
    double x = round_to_format(std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53), e), f);
    if (rng() % 16 == 0) x = static_cast<double>(1 + rng() % 50) * smallest_subnormal(f);
    if (rng() % 64 == 0) x = std::ldexp(1.0, traits(f).emax - 8);
    return (rng() & 1) ? -x : x;
  };
  auto draw = [&] { return values == Values::ordinary ? ordinary() : with_extremes(); };
  DenseWorkload w;
  w.format = f;
  w.elements = elements;
  w.steps = steps;
  for (std::size_t j = 0; j < elements; ++j) w.initial.push_back(draw());
  for (std::size_t i = 0; i < elements * steps; ++i) w.addends.push_back(draw());
  return w;
}

SparseWorkload random_sparse(Format f, std::uint64_t seed, const SparseShape& shape) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  SparseWorkload w;
  w.format = f;
  w.rows = shape.rows;
  w.dim = shape.dim;
  w.steps = shape.steps;
  for (std::size_t i = 0; i < w.rows * w.dim; ++i) w.initial.push_back(round_to_format(mantissa(rng), f));
  w.step_offsets.push_back(0);
  for (std::size_t t = 0; t < w.steps; ++t) {
    for (std::size_t k = 0; k < shape.pairs_per_step; ++k) {
      w.row_index.push_back(static_cast<std::uint32_t>(rng() % shape.touched_rows));
      for (std::size_t d = 0; d < w.dim; ++d)
        w.values.push_back(round_to_format(std::ldexp(mantissa(rng), static_cast<int>(k) * 3), f));
    }
    w.step_offsets.push_back(w.row_index.size());
  }
  return w;
}

ProductWorkload random_product(std::size_t rows, std::size_t cols, std::size_t batch, std::size_t steps,
                               std::uint64_t seed, bool cancelling) {
  ProductWorkload p;
  p.format = Format::f32;
  p.rows = rows;
  p.cols = cols;
  p.batch = batch;
  p.steps = steps;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto f32 = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  p.initial.resize(rows * cols);
  for (double& x : p.initial) x = f32(u(rng));
  p.a.resize(steps * rows * batch);
  p.b.resize(steps * batch * cols);
  for (double& x : p.a) x = f32(u(rng));
  for (std::size_t i = 0; i < p.b.size(); ++i) p.b[i] = f32(cancelling && i % 2 ? -p.b[i - 1] * 1.0000001 : u(rng));
  return p;
}

}  // namespace accucheck::test
