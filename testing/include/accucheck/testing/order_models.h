// Summation orders of the tree backends (impls/cpu/pairwise.cpp, blocked.cpp, lanes.cpp) and of
// the frameworks' reductions (docs/frameworks.md),
// restated from their definitions as templates over the value type: on float they must give
// the backends' bits (impls/tests/backends_test.cpp), on Depth the height of the tree they
// build, which core's tree_height must match (core/checking/bound_test.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace accucheck::test {

// The number of roundings on the longest leaf-to-root path. Adding an empty value (the -0
// identity of the lanes backend) is exact, so it does not count.
struct Depth {
  int depth = 0;
  bool empty = false;
  friend Depth operator+(Depth a, Depth b) {
    if (a.empty) return b;
    if (b.empty) return a;
    return {std::max(a.depth, b.depth) + 1, false};
  }
};

// An accumulator's zero start (torch's): +0 for float, an empty Depth (adding to it is exact).
template <class T>
T zero();
template <>
inline float zero<float>() {
  return 0.0f;
}
template <>
inline Depth zero<Depth>() {
  return {0, true};
}

// The lanes' starting value: adding it changes nothing.
template <class T>
T identity();
template <>
inline float identity<float>() {
  return -0.0f;
}
template <>
inline Depth identity<Depth>() {
  return {0, true};
}

// NumPy's pairwise_sum: a left-to-right loop below 8 terms; up to 128, eight strided partial
// sums combined by a fixed 3-level tree, then the remainder left to right; above 128, the two
// halves, split at a multiple of 8.
template <class T>
T model_numpy(const T* a, std::size_t n) {
  if (n > 128) {
    const std::size_t half = n / 2 - (n / 2) % 8;
    return model_numpy(a, half) + model_numpy(a + half, n - half);
  }
  if (n < 8) return std::accumulate(a + 1, a + n, a[0]);
  const std::size_t strided = n - n % 8;
  T r[8];
  std::copy(a, a + 8, r);
  for (std::size_t i = 8; i < strided; ++i) r[i % 8] = r[i % 8] + a[i];
  const T tree = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  return std::accumulate(a + strided, a + n, tree);
}

// Blocks of b terms, each summed left to right, the block sums added left to right.
template <class T>
T model_blocked(const T* x, std::size_t n, std::size_t b) {
  T total{};
  for (std::size_t start = 0; start < n; start += b) {
    const T block = std::accumulate(x + start + 1, x + std::min(n, start + b), x[start]);
    total = start == 0 ? block : total + block;
  }
  return total;
}

// 8 lanes (term i into lane i mod 8), combined by a balanced tree.
template <class T>
T model_lanes8(const T* x, std::size_t n) {
  T lane[8];
  std::fill(lane, lane + 8, identity<T>());
  for (std::size_t i = 0; i < n; ++i) lane[i % 8] = i < 8 ? x[i] : lane[i % 8] + x[i];
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// NumPy 1.24's reduction of a contiguous row (umath/reduction.c through the buffered iterator):
// the output starts at the identity, and each block of b terms is pairwise_sum'd and added to it.
template <class T>
T model_numpy_buffered(const T* x, std::size_t n, std::size_t b) {
  T total = identity<T>();
  for (std::size_t start = 0; start < n; start += b) total = total + model_numpy(x + start, std::min(b, n - start));
  return total;
}

// XLA CPU's tree_reduction_rewriter: windows of w terms (here each summed left to right, the
// deepest order within a window), level after level until one value is left.
template <class T>
T model_windows(const T* x, std::size_t n, std::size_t w) {
  std::vector<T> level(x, x + n);
  while (level.size() > 1) {
    std::vector<T> next;
    for (std::size_t start = 0; start < level.size(); start += w)
      next.push_back(std::accumulate(level.begin() + static_cast<std::ptrdiff_t>(start + 1),
                                     level.begin() + static_cast<std::ptrdiff_t>(std::min(level.size(), start + w)),
                                     level[start]));
    level = std::move(next);
  }
  return level[0];
}

// torch.sum's accumulators on the CPU (ATen/native/cpu/SumKernel.cpp, v1.13), from a zero start
// (`T{}`: +0.0f for float, an empty Depth). multi_row_sum for one row: four levels, level 0 taking
// 2^p terms (p = max(4, CeilLog2(n) / 4)) before it is carried into level 1, and so on while the
// count is a multiple of the next span; leftovers into level 0; then levels 1..3 into level 0.
template <class T>
T model_torch_multi(const T* x, std::size_t n) {
  std::size_t log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  const std::size_t power = std::max<std::size_t>(4, log / 4);
  const std::size_t step = std::size_t{1} << power;
  T acc[4] = {zero<T>(), zero<T>(), zero<T>(), zero<T>()};
  std::size_t i = 0;
  while (i + step <= n) {
    for (std::size_t j = 0; j < step; ++j, ++i) acc[0] = acc[0] + x[i];
    for (std::size_t level = 1; level < 4; ++level) {
      acc[level] = acc[level] + acc[level - 1];
      acc[level - 1] = zero<T>();
      if (i % (std::size_t{1} << (power * (level + 1))) != 0) break;
    }
  }
  for (; i < n; ++i) acc[0] = acc[0] + x[i];
  return ((acc[0] + acc[1]) + acc[2]) + acc[3];
}

// row_sum: terms 4q+k into column k (each a multi_row_sum), the n%4 leftovers into column 0,
// then columns 1..3 added to it.
template <class T>
T model_torch_row(const T* x, std::size_t n) {
  const std::size_t rows = n / 4;
  T column[4];
  for (std::size_t k = 0; k < 4; ++k) {
    std::vector<T> terms;
    for (std::size_t q = 0; q < rows; ++q) terms.push_back(x[4 * q + k]);
    column[k] = model_torch_multi(terms.data(), rows);
  }
  for (std::size_t i = 4 * rows; i < n; ++i) column[0] = column[0] + x[i];
  return ((column[0] + column[1]) + column[2]) + column[3];
}

// vectorized_inner_sum: 8 lanes; a vector holds `width` terms (8, or 16 for 16-bit inputs, whose
// two halves are added first); row_sum over the vectors per lane, the tail from zero, then the lanes.
template <class T>
T model_torch_inner(const T* x, std::size_t n, std::size_t width) {
  const std::size_t vectors = n / width;
  T total = zero<T>();
  for (std::size_t i = vectors * width; i < n; ++i) total = total + x[i];
  for (std::size_t lane = 0; lane < 8; ++lane) {
    std::vector<T> terms;
    for (std::size_t v = 0; v < vectors; ++v)
      terms.push_back(width == 16 ? (zero<T>() + x[v * 16 + lane]) + x[v * 16 + 8 + lane] : x[v * 8 + lane]);
    total = total + model_torch_row(terms.data(), vectors);
  }
  return total;
}

// Recursive halving (the textbook pairwise tree).
inline Depth model_halving(std::size_t n) {
  if (n == 1) return {0, false};
  return model_halving(n / 2) + model_halving(n - n / 2);
}

}  // namespace accucheck::test
